package vda5050

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// seenWithin is how long a loaded mission may take to show in the
// runner's state before the run is judged lost.
const seenWithin = 5 * time.Second

// observe reads the runner and moves the order on: nodes reached,
// actions run, the mission's end.
func (a *Adapter) observe() {
	a.pose.sample(a)
	r := a.run
	if r == nil || r.ended || r.cancelled {
		return
	}
	st := a.o.Runner.State()
	ours := st.Mission != nil && st.Mission.ID == r.missionID && st.Mission.Revision == r.missionRev
	if !ours {
		if r.seen || a.o.Now().Sub(r.loaded) > seenWithin {
			other := "no mission"
			if st.Mission != nil {
				other = fmt.Sprintf("mission %q (%s)", st.Mission.Name, st.Mission.Status)
			}
			a.endRun(fmt.Sprintf("the order's mission is no longer botd's current one (now: %s)", other))
		}
		return
	}
	r.seen = true
	done, running, ok := a.progressKeys(r.token)
	if ok {
		r.progress(r.from+done, r.from+running, func(j int) int { return a.opened[j] }, func(i int) bool {
			return a.cfg.Actions[r.actions[i].Type()].Prepare != nil
		})
	}
	switch st.Mission.Status {
	case protocol.RunSucceeded:
		r.progress(r.upTo, 0, nil, nil)
		if r.upTo < len(r.steps) {
			a.goOn()
			return
		}
		r.ended = true
	case protocol.RunFailed, protocol.RunErrored, protocol.RunAborted:
		why := "the mission ended " + st.Mission.Status
		if f := st.LastFailure; f != nil && f.Mission == r.missionID {
			why += ": " + f.Message
		}
		a.endRun(why)
	}
}

// goOn loads a new revision of the mission for the steps of the updates
// that came after its slots were used up, once it has ended.
func (a *Adapter) goOn() {
	r := a.run
	next := r.clone()
	next.from = next.done
	up := r.updateID
	if e := a.load(a.ctx, &Order{OrderID: r.orderID, OrderUpdateID: &up}, next, false); e != nil {
		a.endRun("going on with the order's updates: " + e.ErrorDescription)
		return
	}
	a.run = next
}

// endRun fails the run with an orderExecutionError naming the order.
func (a *Adapter) endRun(why string) {
	r := a.run
	r.fail(why)
	up := r.updateID
	a.addError(*orderErr(&Order{OrderID: r.orderID, OrderUpdateID: &up}, ErrOrderExecution, trim(why)))
}

// progressKeys reads the generated mission's progress from the runner's
// blackboard snapshot, if it is this load's.
func (a *Adapter) progressKeys(token int) (done, running int, ok bool) {
	var tok = -1
	clear(a.opened)
	for _, v := range a.o.Runner.Blackboard() {
		f, isNum := v.Value.(float64)
		if !isNum {
			if i, isInt := v.Value.(int64); isInt {
				f, isNum = float64(i), true
			}
		}
		if !isNum {
			continue
		}
		switch v.Key {
		case keyToken:
			tok = int(f)
		case keyDone:
			done = int(f)
		case keyRunning:
			running = int(f)
		default:
			if j, err := strconv.Atoi(strings.TrimPrefix(v.Key, keyOpenedPrefix)); err == nil && j >= 0 && strings.HasPrefix(v.Key, keyOpenedPrefix) {
				if a.opened == nil {
					a.opened = map[int]int{}
				}
				a.opened[j] = int(f)
			}
		}
	}
	return done, running, tok == token
}

// buildState is the state message's content.
func (a *Adapter) buildState() State {
	st := a.o.Runner.State()
	s := State{OperatingMode: "AUTOMATIC", NodeStates: []NodeState{}, EdgeStates: []EdgeState{}, ActionStates: []ActionState{},
		Errors: []Error{}, SafetyState: SafetyState{EStop: "NONE", FieldViolation: st.Failsafe.Active},
		Paused: st.Mode == protocol.ModePaused}
	if st.EStop {
		s.SafetyState.EStop = "REMOTE"
	}
	if r := a.run; r != nil {
		s.OrderID, s.OrderUpdateID, s.ZoneSetID = r.orderID, r.updateID, r.zoneSet
		last := r.nodes[r.lastNode]
		s.LastNodeID, s.LastNodeSequenceID = last.NodeID, *last.SequenceID
		if !r.cancelled {
			for _, n := range r.nodes[r.lastNode+1:] {
				ns := NodeState{NodeID: n.NodeID, SequenceID: *n.SequenceID, NodeDescription: n.NodeDescription, Released: *n.Released}
				if p := n.NodePosition; p != nil && p.X != nil && p.Y != nil {
					theta := 0.0 // the state schema requires it; an order may leave it out
					if p.Theta != nil {
						theta = *p.Theta
					}
					ns.NodePosition = &StatePosition{X: *p.X, Y: *p.Y, Theta: theta, MapID: p.MapID}
				}
				s.NodeStates = append(s.NodeStates, ns)
			}
			for _, e := range r.edges[r.lastNode:] {
				s.EdgeStates = append(s.EdgeStates, EdgeState{EdgeID: e.EdgeID, SequenceID: *e.SequenceID, EdgeDescription: e.EdgeDescription, Released: *e.Released})
			}
		}
		s.ActionStates = append(s.ActionStates, r.status...)
	}
	s.ActionStates = append(s.ActionStates, a.instant...)
	s.AgvPosition, s.Velocity = a.position()
	s.Driving = s.Velocity != nil && (math.Hypot(s.Velocity.Vx, s.Velocity.Vy) > 0.02 || math.Abs(s.Velocity.Omega) > 0.05)
	if b := st.Battery; b != nil {
		v := b.Voltage
		s.BatteryState = BatteryState{BatteryCharge: math.Max(0, math.Min(100, b.Percent)), BatteryVoltage: &v}
	}
	s.Errors = append(s.Errors, a.errs...)
	for _, e := range st.Errors {
		ve := Error{ErrorType: e.Code, ErrorLevel: "WARNING", ErrorDescription: e.Message}
		if e.Ref != "" {
			ve.ErrorReferences = []Reference{{"botdRef", e.Ref}}
		}
		s.Errors = append(s.Errors, ve)
	}
	if st.Failsafe.Active {
		s.Errors = append(s.Errors, Error{ErrorType: "failsafe", ErrorLevel: "FATAL",
			ErrorDescription: fmt.Sprintf("botd failsafe: %s (%s)", st.Failsafe.Reason, st.Failsafe.Action)})
	}
	s.Information = []Information{{InfoType: "botdMode", InfoLevel: "INFO", InfoDescription: st.Mode}}
	if m := st.Mission; m != nil {
		s.Information = append(s.Information, Information{InfoType: "botdMission", InfoLevel: "INFO",
			InfoDescription: fmt.Sprintf("%s %s", m.Name, m.Status),
			InfoReferences:  []Reference{{"missionId", m.ID}, {"revision", strconv.FormatInt(m.Revision, 10)}}})
	}
	return s
}

// publishState sends the state when it changed (position and battery
// aside: visualization carries the position) or when the heartbeat is
// due; force sends it now.
func (a *Adapter) publishState(force bool) {
	s := a.buildState()
	key := s
	key.AgvPosition, key.Velocity, key.BatteryState = nil, nil, BatteryState{}
	b, _ := json.Marshal(key)
	now := a.o.Now()
	if !force && string(b) == a.lastState && now.Sub(a.lastSent) < a.cfg.StateEvery {
		return
	}
	if a.conn == nil || !a.conn.IsUp() {
		return
	}
	a.lastState, a.lastSent = string(b), now
	s.Header = a.header(hState)
	a.publish(a.topics.state, false, s)
}

func (a *Adapter) publishVisualization() {
	if a.conn == nil || !a.conn.IsUp() {
		return
	}
	p, v := a.position()
	a.publish(a.topics.visualization, false, Visualization{Header: a.header(hVisualization), AgvPosition: p, Velocity: v})
}

// poseTracker derives the velocity from successive poses.
type poseTracker struct {
	x, y, th float64
	at       time.Time
	vel      Velocity
	has      bool
}

// poseNow reads the pose; ok is false when there is none or it is stale.
// hasTh is false when the pose source gives no heading (a GPS before the
// robot first moved): th is 0 then.
func (a *Adapter) poseNow() (x, y, th float64, hasTh, ok bool) {
	k := a.cfg.PoseKey
	x, at, okx := a.o.Reading(k + ".x")
	y, _, oky := a.o.Reading(k + ".y")
	th, _, hasTh = a.o.Reading(k + ".heading")
	if !hasTh || math.IsNaN(th) || math.IsInf(th, 0) {
		th, hasTh = 0, false
	}
	finite := !math.IsNaN(x+y) && !math.IsInf(x+y, 0)
	return x, y, th, hasTh, okx && oky && finite && a.o.Now().Sub(at) < 2*time.Second
}

func (t *poseTracker) sample(a *Adapter) {
	x, y, th, _, ok := a.poseNow()
	now := a.o.Now()
	if !ok {
		t.has = false
		return
	}
	if t.has {
		if dt := now.Sub(t.at).Seconds(); dt >= 0.05 {
			dx, dy := (x-t.x)/dt, (y-t.y)/dt
			c, s := math.Cos(th), math.Sin(th)
			dth := math.Remainder(th-t.th, 2*math.Pi)
			t.vel = Velocity{Vx: c*dx + s*dy, Vy: -s*dx + c*dy, Omega: dth / dt}
		} else {
			return
		}
	}
	t.x, t.y, t.th, t.at, t.has = x, y, th, now, true
}

// position is agvPosition and velocity (nil when no pose is known).
// theta is the pose's heading (counterclockwise from the map's x axis, in
// [-pi, pi]); without a heading the position is not initialized (theta
// 0), as the robot does not know where it faces.
func (a *Adapter) position() (*AgvPosition, *Velocity) {
	x, y, th, hasTh, ok := a.poseNow()
	if !ok {
		return nil, nil
	}
	p := &AgvPosition{X: x, Y: y, Theta: math.Remainder(th, 2*math.Pi), MapID: a.cfg.MapID, PositionInitialized: hasTh}
	if q, _, has := a.o.Reading(a.cfg.PoseKey + ".quality"); has && !math.IsNaN(q) {
		q = math.Max(0, math.Min(1, q))
		p.LocalizationScore = &q
	}
	v := a.pose.vel
	return p, &v
}
