package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The fleet summary is what the page's robot list and map get for every
// robot: one compact row per robot (link, mode, mission, battery, labels,
// pose), rebuilt at most every fleetEvery and sent to a tab as the rows
// that changed since the tab's last frame. A tab gets every row with its
// trail when it connects. The selected robot's full picture still comes
// on its own stream (/api/stream?robot=ID).

// Fleet bounds and pacing.
const (
	fleetEvery     = 500 * time.Millisecond // rows are rebuilt and sent at most this often
	maxFleet       = 10000                  // robots tracked; more are counted in "over"
	maxFleetID     = 128                    // bytes; a robot with a longer id is not tracked
	maxLabels      = 32                     // labels kept per robot
	maxLabelKey    = 63
	maxLabelValue  = 128
	maxFencePoints = 1000 // a longer fence is cut (and marked truncated)
	trailLen       = 32   // trail points kept per robot
	// Trail steps: a pose further than this from the trail's last point
	// is added to it.
	trailStepLocal  = 0.1  // m
	trailStepGlobal = 1e-6 // degrees (about 0.1 m)
)

// Link states of a row.
const (
	linkOnline  = "online"  // connection ONLINE, state fresh
	linkStale   = "stale"   // connection ONLINE, no state for silentAfter
	linkOffline = "offline" // OFFLINE, CONNECTION_BROKEN or never heard
)

// fleetPose is a robot's position in its world frame: Frame "local" (x
// east, y north, metres; H the heading in radians, counter-clockwise from
// +x) or "global" (X longitude, Y latitude, degrees).
type fleetPose struct {
	Frame string   `json:"f"`
	X     float64  `json:"x"`
	Y     float64  `json:"y"`
	H     *float64 `json:"h,omitempty"`
}

func (p *fleetPose) equal(q *fleetPose) bool {
	if p == nil || q == nil {
		return p == q
	}
	return p.Frame == q.Frame && p.X == q.X && p.Y == q.Y && eqFloatPtr(p.H, q.H)
}

// fleetRow is one robot in the fleet summary.
type fleetRow struct {
	ID            string            `json:"id"`
	Link          string            `json:"link"`
	Conn          string            `json:"conn,omitempty"` // ONLINE, OFFLINE, CONNECTION_BROKEN or ""
	Mode          string            `json:"mode,omitempty"`
	Mission       string            `json:"mission,omitempty"`
	MissionStatus string            `json:"ms,omitempty"`
	EStop         bool              `json:"estop,omitempty"`
	Failsafe      bool              `json:"fs,omitempty"`
	Battery       *float64          `json:"batt,omitempty"` // percent
	Errors        int               `json:"err,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Fence         string            `json:"fence,omitempty"` // key into the frame's fences
	Pose          *fleetPose        `json:"pose,omitempty"`
	// Local is the robot's pose in its local frame too, when Pose is
	// global (a UAV reports both): the map draws it with the mission's
	// local waypoints.
	Local *fleetPose   `json:"loc,omitempty"`
	Trail [][2]float64 `json:"trail,omitempty"` // oldest first; in a tab's first frame only
}

func (r *fleetRow) equal(q *fleetRow) bool {
	return r.ID == q.ID && r.Link == q.Link && r.Conn == q.Conn && r.Mode == q.Mode && r.Mission == q.Mission &&
		r.MissionStatus == q.MissionStatus && r.EStop == q.EStop && r.Failsafe == q.Failsafe &&
		eqFloatPtr(r.Battery, q.Battery) && r.Errors == q.Errors && maps.Equal(r.Labels, q.Labels) &&
		r.Fence == q.Fence && r.Pose.equal(q.Pose) && r.Local.equal(q.Local)
}

func eqFloatPtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// fleetRobot is what the dashboard keeps of one robot for the fleet
// view: a fixed size plus its labels (bounded) and a shared fence.
type fleetRobot struct {
	id     string
	info   ground.RobotInfo
	labels map[string]string
	fence  string
	poses  poseKeys // the pose keys of its blackboard (fleet_pose.go)
	trail  [trailLen][2]float64
	trailN int // points in the ring
	trailI int // next slot
	frame  string
	row    fleetRow
	json   []byte // row, encoded without its trail
	ver    uint64 // fleet version of the last change
}

// fenceEntry is a fence several robots may share.
type fenceEntry struct {
	json []byte
	refs int
}

// fleetView is the fence as the page gets it.
type fleetFence struct {
	protocol.Geofence
	Truncated bool `json:"truncated,omitempty"`
}

// fleet keeps the fleet summary. Its handlers run on the MQTT client's
// goroutine; refresh runs on the tabs' goroutines.
type fleet struct {
	robots func() []ground.RobotInfo
	every  time.Duration

	refreshMu sync.Mutex // one refresh at a time; taken before mu
	mu        sync.Mutex // guards the rest; held briefly (the MQTT client's goroutine takes it)
	byID      map[string]*fleetRobot
	order     []*fleetRobot // by id
	sorted    bool
	ver       uint64
	over      int // robots seen beyond maxFleet
	overIDs   map[string]struct{}
	fences    map[string]*fenceEntry
	refreshed time.Time
	problems  uint64 // undecodable or refused fleet payloads
}

func newFleet(robots func() []ground.RobotInfo) *fleet {
	return &fleet{robots: robots, every: fleetEvery, byID: map[string]*fleetRobot{}, fences: map[string]*fenceEntry{},
		overIDs: map[string]struct{}{}}
}

// get returns robot's entry, making it when the fleet has room; f.mu held.
func (f *fleet) get(id string) *fleetRobot {
	if r := f.byID[id]; r != nil {
		return r
	}
	if len(id) > maxFleetID || protocol.ValidRobotID(id) != nil {
		return nil
	}
	if len(f.byID) >= maxFleet {
		if _, ok := f.overIDs[id]; !ok && len(f.overIDs) < maxFleet {
			f.overIDs[id] = struct{}{}
		}
		f.over = len(f.overIDs)
		return nil
	}
	r := &fleetRobot{id: id}
	f.byID[id] = r
	f.order = append(f.order, r)
	f.sorted = false
	return r
}

func (f *fleet) handlers() ground.FleetHandlers {
	return ground.FleetHandlers{Factsheet: f.onFacts, Blackboard: f.onBlackboard, Error: f.onError}
}

func (f *fleet) onError(string, string, error) {
	f.mu.Lock()
	f.problems++
	f.mu.Unlock()
}

// onFacts keeps a robot's labels and fence, bounded.
func (f *fleet) onFacts(robot string, m ground.FleetFacts) {
	labels := boundLabels(m.Labels)
	var fenceKey string
	var fenceJSON []byte
	if m.Geofence != nil {
		fenceJSON, fenceKey = encodeFence(*m.Geofence)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.get(robot)
	if r == nil {
		return
	}
	r.labels = labels
	r.poses.configure(m.Poses)
	if fenceKey != r.fence {
		f.release(r.fence)
		if fenceKey != "" {
			e := f.fences[fenceKey]
			if e == nil {
				e = &fenceEntry{json: fenceJSON}
				f.fences[fenceKey] = e
			}
			e.refs++
		}
		r.fence = fenceKey
	}
}

func (f *fleet) release(key string) {
	if e := f.fences[key]; e != nil {
		if e.refs--; e.refs <= 0 {
			delete(f.fences, key)
		}
	}
}

// boundLabels copies at most maxLabels labels, dropping over-long ones.
func boundLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(in))
	out := make(map[string]string, min(len(in), maxLabels))
	for _, k := range keys {
		v := in[k]
		if len(out) == maxLabels {
			break
		}
		if k == "" || len(k) > maxLabelKey || len(v) > maxLabelValue {
			continue
		}
		out[k] = v
	}
	return out
}

// encodeFence validates and bounds a fence; it returns nothing for a fence
// the map could not draw.
func encodeFence(g protocol.Geofence) ([]byte, string) {
	if g.Frame != "local" && g.Frame != "global" {
		return nil, ""
	}
	ff := fleetFence{Geofence: g}
	if len(g.Points) > maxFencePoints {
		ff.Points, ff.Truncated = g.Points[:maxFencePoints], true
	}
	for _, p := range ff.Points {
		if math.IsNaN(p[0]) || math.IsInf(p[0], 0) || math.IsNaN(p[1]) || math.IsInf(p[1], 0) {
			return nil, ""
		}
	}
	b, err := json.Marshal(ff)
	if err != nil {
		return nil, ""
	}
	h := fnv.New64a()
	h.Write(b)
	return b, fmt.Sprintf("%016x", h.Sum64())
}

// onBlackboard keeps the pose keys of a robot's blackboard message.
func (f *fleet) onBlackboard(robot string, m protocol.BlackboardMsg) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.get(robot)
	if r == nil {
		return
	}
	r.poses.update(m)
	r.addTrail()
}

func (r *fleetRobot) pose() *fleetPose { p, _ := r.poses.poses(); return p }

// addTrail appends the current pose to the trail when it moved far enough.
func (r *fleetRobot) addTrail() {
	p := r.pose()
	if p == nil {
		return
	}
	if p.Frame != r.frame {
		r.frame, r.trailN, r.trailI = p.Frame, 0, 0
	}
	step := trailStepLocal
	if p.Frame == "global" {
		step = trailStepGlobal
	}
	if r.trailN > 0 {
		last := r.trail[(r.trailI+trailLen-1)%trailLen]
		if math.Hypot(p.X-last[0], p.Y-last[1]) < step {
			return
		}
	}
	r.trail[r.trailI] = [2]float64{p.X, p.Y}
	r.trailI = (r.trailI + 1) % trailLen
	r.trailN = min(r.trailN+1, trailLen)
}

func (r *fleetRobot) trailPoints() [][2]float64 {
	out := make([][2]float64, 0, r.trailN)
	for i := range r.trailN {
		out = append(out, r.trail[(r.trailI-r.trailN+i+trailLen)%trailLen])
	}
	return out
}

// build makes the robot's row as of now.
func (r *fleetRobot) build(now time.Time) fleetRow {
	in := r.info
	row := fleetRow{ID: r.id, Link: linkOffline, Conn: in.Connection, Labels: r.labels, Fence: r.fence}
	row.Pose, row.Local = r.poses.poses()
	if in.Connection == protocol.ConnOnline {
		row.Link = linkOnline
		if !in.LastSeen.IsZero() && now.Sub(in.LastSeen) > silentAfter {
			row.Link = linkStale
		}
	}
	if st := in.State; st != nil {
		row.Mode, row.EStop, row.Failsafe, row.Errors = st.Mode, st.EStop, st.Failsafe.Active, len(st.Errors)
		if m := st.Mission; m != nil {
			row.Mission, row.MissionStatus = m.Name, m.Status
			if row.Mission == "" {
				row.Mission = m.ID
			}
		}
		if b := st.Battery; b != nil && !math.IsNaN(b.Percent) {
			p := round1(b.Percent)
			row.Battery = &p
		}
	}
	return row
}

// refresh rebuilds the rows, at most every f.every (force: now).
func (f *fleet) refresh(now time.Time, force bool) {
	f.mu.Lock()
	due := force || now.Sub(f.refreshed) >= f.every
	if due {
		f.refreshed = now
	}
	f.mu.Unlock()
	if !due {
		return
	}
	f.refreshMu.Lock()
	defer f.refreshMu.Unlock()
	infos := f.robots() // outside f.mu: the Ground takes its own lock
	type change struct {
		r   *fleetRobot
		row fleetRow
		b   []byte
	}
	var changed []change
	f.mu.Lock()
	for _, in := range infos {
		if r := f.get(in.ID); r != nil {
			r.info = in
		}
	}
	if !f.sorted {
		slices.SortFunc(f.order, func(a, b *fleetRobot) int { return strings.Compare(a.id, b.id) })
		f.sorted = true
	}
	for _, r := range f.order {
		row := r.build(now)
		if r.json == nil || !row.equal(&r.row) {
			changed = append(changed, change{r: r, row: row})
		}
	}
	f.mu.Unlock()
	// Encoded without f.mu, so the handlers are not held up; only this
	// refresh writes rows (refreshMu).
	for i := range changed {
		changed[i].b, _ = json.Marshal(changed[i].row)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range changed {
		if c.b == nil {
			continue
		}
		f.ver++
		c.r.row, c.r.json, c.r.ver = c.row, c.b, f.ver
	}
}

// fleetTab is what one tab was sent.
type fleetTab struct {
	ver    uint64
	fences map[string]bool
}

// frame returns the tab's next fleet frame: every row (with trails) the
// first time, then the rows changed since; nil when nothing changed.
func (f *fleet) frame(tab *fleetTab) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	first := tab.fences == nil
	if first {
		tab.fences = map[string]bool{}
	}
	if !first && f.ver == tab.ver {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("event: fleet\ndata: {\"full\":")
	b.WriteString(fmt.Sprint(first))
	fmt.Fprintf(&b, ",\"ver\":%d,\"total\":%d,\"over\":%d,\"rows\":[", f.ver, len(f.order), f.over)
	var newFences []string
	n := 0
	for _, r := range f.order {
		if r.json == nil || (!first && r.ver <= tab.ver) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		if first && r.trailN > 0 {
			row := r.row
			row.Trail = r.trailPoints()
			j, _ := json.Marshal(row)
			b.Write(j)
		} else {
			b.Write(r.json)
		}
		if k := r.row.Fence; k != "" && !tab.fences[k] && f.fences[k] != nil {
			tab.fences[k] = true
			newFences = append(newFences, k)
		}
	}
	b.WriteString("],\"fences\":{")
	for i, k := range newFences {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", k)
		b.Write(f.fences[k].json)
	}
	b.WriteString("}}\n\n")
	tab.ver = f.ver
	return b.Bytes()
}
