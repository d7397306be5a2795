package web

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// view is what the dashboard knows of one watched robot.
type view struct {
	h        *hub
	id       string
	ready    chan struct{} // closed once Watch returned
	stop     func() error  // set before ready closes
	watchErr error

	mu         sync.Mutex
	subs       map[*subscriber]struct{}
	linger     *time.Timer
	connection *protocol.ConnectionMsg
	factsheet  *factsheetFrame
	state      *protocol.StateMsg
	tree       *treeFrame // treebound.go
	st         ground.Tree
	bb         *protocol.BlackboardMsg // the merged picture, as of bbAt
	bbTable    protocol.BlackboardTable
	bbAt       time.Time
	events     []protocol.EventMsg
	hist       *ground.History // orders and dedupes events; calls addEvent
	history    *historyFrame
	histAsking atomic.Bool // an events.request is out
	metrics    []protocol.MetricsMsg
	problems   []problemFrame
	kfInflight bool
	kfAgain    bool // wanted again while a request was out
	kfRetrying bool // a timer asks again after the retry period
	stopped    bool // the hub no longer watches the robot
	kfLast     time.Time
	kfRequests uint64
	lastStats  telemetryFrame
}

func newView(h *hub, robot string) *view {
	v := &view{h: h, id: robot, ready: make(chan struct{}), subs: map[*subscriber]struct{}{}}
	v.hist = &ground.History{Emit: v.addEvent, Gap: v.eventGap}
	return v
}

// historyFrame says what the robot answered to events.request: how many
// of its kept events it sends again, or why there is no history.
type historyFrame struct {
	Count    uint64 `json:"count"`
	FirstSeq uint64 `json:"first_seq,omitempty"`
	ToSeq    uint64 `json:"to_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	Boot     uint64 `json:"boot,omitempty"`
	Error    string `json:"error,omitempty"`
}

// gapFrame is a run of events the robot no longer keeps.
type gapFrame struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// factsheetFrame is the part of the factsheet the page uses.
type factsheetFrame struct {
	Robot   string            `json:"robot"`
	Version string            `json:"version"`
	Devices []protocol.Device `json:"devices"`
	Limits  protocol.Limits   `json:"limits"`
	// Types maps node type names (and aliases) to their category
	// (composite, decorator, condition, action).
	Types map[string]string `json:"types"`
	// World is the yard the map draws under a simulated rover; GoalsNED:
	// the mission's local goals are north/east of home (a MAVLink
	// vehicle), drawn turned (world.go).
	World    *worldFrame `json:"world,omitempty"`
	GoalsNED bool        `json:"goals_ned,omitempty"`
	// VehicleModes name the numbers of a vehicle's <key>.mode: the
	// robot's, else protocol.DefaultVehicleModes (the page keeps no copy).
	VehicleModes []string `json:"vehicle_modes"`
}

// problemFrame is a payload that could not be decoded.
type problemFrame struct {
	Time  time.Time `json:"time"`
	Topic string    `json:"topic"`
	Error string    `json:"error"`
}

// telemetryFrame is the dashboard's own view of the link quality.
type telemetryFrame struct {
	StatusGaps       uint64 `json:"status_gaps"`
	KeyframeRequests uint64 `json:"keyframe_requests"`
	AwaitingKeyframe bool   `json:"awaiting_keyframe"`
	Dropped          uint64 `json:"dropped"` // by the Ground: callbacks fell behind
	Problems         int    `json:"problems"`
}

// robotSnapshot is GET /api/robots/{robot}.
type robotSnapshot struct {
	Robot      string                  `json:"robot"`
	Connection *protocol.ConnectionMsg `json:"connection"`
	Factsheet  *factsheetFrame         `json:"factsheet"`
	State      *protocol.StateMsg      `json:"state"`
	Tree       *treeFrame              `json:"tree"`
	Status     *statusFrame            `json:"status"`
	Blackboard *protocol.BlackboardMsg `json:"blackboard"`
	Events     []protocol.EventMsg     `json:"events"`
	History    *historyFrame           `json:"history,omitempty"`
	Metrics    []protocol.MetricsMsg   `json:"metrics"`
	Problems   []problemFrame          `json:"problems"`
	Telemetry  telemetryFrame          `json:"telemetry"`
	Tabs       int                     `json:"tabs"`
}

func (v *view) handlers() ground.RobotHandlers {
	return ground.RobotHandlers{
		Connection: v.onConnection,
		Factsheet:  v.onFactsheet,
		State:      v.onState,
		Tree:       v.onTree,
		Status:     v.onStatus,
		Blackboard: v.onBlackboard,
		Event:      v.onEvent,
		Metrics:    v.onMetrics,
		Reply:      v.onReply,
		Error:      v.onError,
	}
}

// The handlers run on the Ground's goroutine, one at a time.

func (v *view) onConnection(m protocol.ConnectionMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.connection = &m
	v.broadcast("connection", m)
	// Watched before the broker or the robot was there: the history
	// request got no answer; the robot is here now.
	if m.State == protocol.ConnOnline && !v.histAsking.Load() && (v.history == nil || v.history.Error != "") {
		v.requestHistory()
	}
}

// maxVehicleModes bounds the mode names a factsheet gives the page.
const maxVehicleModes = 256

func (v *view) onFactsheet(m protocol.FactsheetMsg) {
	f := &factsheetFrame{Robot: m.Robot, Version: m.Version, Devices: m.Devices, Limits: m.Limits,
		Types: make(map[string]string, len(m.NodeTypes))}
	f.World, f.GoalsNED = mapFacts(m.Devices)
	f.VehicleModes = m.VehicleModes[:min(len(m.VehicleModes), maxVehicleModes)]
	if len(f.VehicleModes) == 0 {
		f.VehicleModes = protocol.DefaultVehicleModes
	}
	for _, t := range m.NodeTypes {
		cat := t.Category
		if cat == "" {
			cat = t.Kind
		}
		f.Types[t.Name] = cat
		for _, a := range t.Aliases {
			f.Types[a] = cat
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.factsheet = f
	v.broadcast("factsheet", f)
}

func (v *view) onState(m protocol.StateMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.state = &m
	v.broadcast("state", m)
}

func (v *view) onStatus(m protocol.StatusMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	u, err := v.st.ApplyStatus(m, v.h.now())
	if err != nil {
		v.h.log.Debug("status not applied", "robot", v.id, "err", err)
	}
	switch {
	case u.Keyframe:
		kf, _ := statusKeyframe(&v.st)
		v.broadcast("status", kf)
	case len(u.Changes) > 0 || len(u.Reasons) > 0:
		v.broadcast("status", statusFrame{Mission: m.Mission, Tick: m.Tick, Seq: m.Seq, Changes: u.Changes, Reasons: u.Reasons, Known: v.st.Keyed})
	}
	v.afterStatus()
}

// afterStatus asks for a keyframe when one is missing and tells the tabs
// when the link figures changed.
func (v *view) afterStatus() {
	if v.st.WantsKeyframe() {
		v.requestKeyframe()
	}
	v.updateStats()
}

// requestKeyframe sends state.request (the robot republishes its
// retained topics and a status keyframe), at most one at a time and one
// per retry period. A keyframe found missing while a request is out, or
// within the retry period, is asked for when that request ends or the
// period is over: a robot whose tree stops changing sends no further
// status that would ask for it.
// Called with v.mu held.
func (v *view) requestKeyframe() {
	now := v.h.now()
	if v.stopped {
		return
	}
	if v.kfInflight {
		v.kfAgain = true // asked again when this one ends
		return
	}
	if wait := time.Duration(v.h.retry.Load()) - now.Sub(v.kfLast); !v.kfLast.IsZero() && wait > 0 {
		if !v.kfRetrying {
			v.kfRetrying = true
			time.AfterFunc(wait, func() {
				v.mu.Lock()
				defer v.mu.Unlock()
				v.kfRetrying = false
				if v.st.WantsKeyframe() {
					v.requestKeyframe()
				}
			})
		}
		return
	}
	v.kfInflight, v.kfLast = true, now
	v.kfRequests++
	started := v.h.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, keyframeTimeout)
		defer cancel()
		rep, err := v.h.g.Send(ctx, v.id, protocol.Command{Op: protocol.OpStateRequest})
		switch {
		case err != nil:
			v.h.log.Debug("state.request", "robot", v.id, "err", err)
		case !rep.OK && rep.Error != nil:
			v.h.log.Debug("state.request refused", "robot", v.id, "code", rep.Error.Code, "msg", rep.Error.Message)
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		v.kfInflight = false
		if v.kfAgain && v.st.WantsKeyframe() { // a gap while this one was out
			v.kfAgain = false
			v.requestKeyframe()
		}
	})
	if !started {
		v.kfInflight = false
	}
}

func (v *view) stats() telemetryFrame {
	return telemetryFrame{StatusGaps: uint64(v.st.Gaps), KeyframeRequests: v.kfRequests, AwaitingKeyframe: v.st.WantsKeyframe(),
		Dropped: v.h.g.Dropped(), Problems: len(v.problems)}
}

func (v *view) updateStats() {
	s := v.stats()
	if s != v.lastStats {
		v.lastStats = s
		v.broadcast("telemetry", s)
	}
}

// onBlackboard merges a message (the robot sends values by exception)
// and passes the whole picture on, so a tab always has every value.
func (v *view) onBlackboard(m protocol.BlackboardMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.h.now()
	v.bbTable.Apply(m, now)
	full := m
	full.Full, full.Values = true, v.bbTable.Values(now)
	v.bb, v.bbAt = &full, now
	v.broadcast("blackboard", full)
}

// onEvent hands the event to the history, which passes it on to addEvent
// in seq order, once (v.mu is not held: the history calls addEvent).
func (v *view) onEvent(m protocol.EventMsg) {
	if v.hist.Add(m) {
		v.requestHistory() // a gap: ask for what is missing
	}
}

func (v *view) addEvent(m protocol.EventMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.events = appendRing(v.events, m, keepEvents)
	v.broadcast("event", m)
}

func (v *view) eventGap(from, to uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.broadcast("events_gap", gapFrame{From: from, To: to})
}

// requestHistory sends events.request for what follows the last event
// shown: at the start of the watch, the robot's kept events; after a
// gap, the missing ones. The tabs learn the answer (history frame).
// With v.mu held or not: the flag is best effort (a second request only
// repeats the first).
func (v *view) requestHistory() {
	v.histAsking.Store(true)
	v.h.goBackground(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, historyTimeout)
		defer cancel()
		v.hist.Begin()
		rep, err := v.h.g.Send(ctx, v.id, protocol.Command{Op: protocol.OpEventsRequest, SinceSeq: v.hist.Since()})
		v.hist.Replied(rep, err)
		f := historyFrame{Count: num(rep.Result["count"]), FirstSeq: num(rep.Result["first_seq"]), ToSeq: num(rep.Result["to_seq"]),
			LastSeq: num(rep.Result["last_seq"]), Boot: num(rep.Result["boot"])}
		switch {
		case err != nil:
			f.Error = err.Error()
		case !rep.OK && rep.Error != nil:
			f.Error = rep.Error.Code + ": " + rep.Error.Message
		}
		if err != nil {
			v.h.log.Debug("events.request", "robot", v.id, "err", err)
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		v.histAsking.Store(false)
		if v.history == nil || f.Error == "" {
			v.history = &f
			v.broadcast("history", f)
		}
	})
}

func num(v any) uint64 {
	if f, ok := v.(float64); ok && f > 0 {
		return uint64(f)
	}
	return 0
}

func (v *view) onMetrics(m protocol.MetricsMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.metrics = appendRing(v.metrics, m, keepMetrics)
	v.broadcast("metrics", m)
	v.updateStats() // carries the Ground's dropped count once a second
}

func (v *view) onReply(m protocol.ReplyMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.broadcast("reply", m)
}

func (v *view) onError(topic string, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p := problemFrame{Time: v.h.now().UTC(), Topic: topic, Error: err.Error()}
	v.problems = appendRing(v.problems, p, keepProblems)
	v.broadcast("problem", p)
	v.updateStats()
}

func appendRing[T any](s []T, x T, max int) []T {
	if len(s) >= max {
		s = append(s[:0:0], s[len(s)-max+1:]...)
	}
	return append(s, x)
}

// broadcast sends a frame to every tab without waiting: a tab whose
// buffer is full is dropped (its page reconnects and gets a snapshot).
func (v *view) broadcast(event string, data any) {
	if len(v.subs) == 0 {
		return
	}
	f, err := frame(event, data)
	if err != nil {
		v.h.log.Warn("encoding a frame", "event", event, "err", err)
		return
	}
	for s := range v.subs {
		v.send(s, f)
	}
}

// send queues f for s (v.mu held); a tab that has too many frames, or
// too many bytes, waiting is dropped (it reconnects).
func (v *view) send(s *subscriber, f []byte) {
	if s.queued.Load()+int64(len(f)) <= maxTabQueued {
		select {
		case s.ch <- f:
			s.queued.Add(int64(len(f)))
			return
		default:
		}
	}
	delete(v.subs, s)
	s.drop()
	v.h.log.Info("dropped a slow dashboard tab", "robot", v.id)
}

// snapshotFrames bring a new tab up to date, oldest knowledge first.
func (v *view) snapshotFrames() [][]byte {
	snap := v.snapshot()
	var out [][]byte
	add := func(event string, data any) {
		if f, err := frame(event, data); err == nil {
			out = append(out, f)
		} else {
			v.h.log.Warn("encoding a frame", "event", event, "err", err)
		}
	}
	if snap.Connection != nil {
		add("connection", snap.Connection)
	}
	if snap.Factsheet != nil {
		add("factsheet", snap.Factsheet)
	}
	if snap.State != nil {
		add("state", snap.State)
	}
	if snap.Tree != nil {
		add("tree", snap.Tree)
	}
	if snap.Status != nil {
		add("status", snap.Status)
	}
	if snap.Blackboard != nil {
		add("blackboard", snap.Blackboard)
	}
	add("events", snap.Events)
	if snap.History != nil {
		add("history", snap.History)
	}
	add("metrics_history", snap.Metrics)
	add("problems", snap.Problems)
	add("telemetry", snap.Telemetry)
	return out
}

// snapshot copies the view (v.mu held). Blackboard ages are brought
// forward to now, so a tab that connects later sees true ages.
func (v *view) snapshot() robotSnapshot {
	s := robotSnapshot{
		Robot: v.id, Connection: v.connection, Factsheet: v.factsheet, State: v.state, Tree: v.tree,
		Events:    append([]protocol.EventMsg{}, v.events...),
		History:   v.history,
		Metrics:   append([]protocol.MetricsMsg{}, v.metrics...),
		Problems:  append([]problemFrame{}, v.problems...),
		Telemetry: v.stats(),
		Tabs:      len(v.subs),
	}
	if kf, ok := statusKeyframe(&v.st); ok {
		s.Status = &kf
	}
	if v.bb != nil {
		bb := *v.bb
		since := float64(v.h.now().Sub(v.bbAt)) / float64(time.Millisecond)
		bb.Values = make([]protocol.BlackboardValue, len(v.bb.Values))
		for i, x := range v.bb.Values {
			x.AgeMs += max(since, 0)
			bb.Values[i] = x
		}
		s.Blackboard = &bb
	}
	return s
}

// frame encodes one server-sent event. JSON has no raw newlines, so the
// data fits on one line.
func frame(event string, data any) ([]byte, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(event)+len(b)+16)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, '\n', '\n'), nil
}
