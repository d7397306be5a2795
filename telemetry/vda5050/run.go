package vda5050

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/bt"
)

// orderRun is the order botd is executing (or executed last): every base
// node, edge and action of it and of its updates, stitched in sequence
// order, and how far the robot got.
type orderRun struct {
	orderID  string
	updateID int64
	zoneSet  string
	nodes    []Node // base nodes of every update, then the latest horizon
	edges    []Edge
	base     int // nodes[:base] are released
	actions  []actionRef
	status   []ActionState // by action index
	steps    []step
	done     int // steps completed
	// from is the first step of the mission now loaded: its progress key
	// counts from there.
	from      int
	missionID string
	// missionRev is the revision of the mission loaded (the orderUpdateId
	// it was loaded at: an update injected into it keeps it); slots, how
	// many of its update slots hold an update.
	missionRev int64
	slots      int
	// upTo is how many of steps the loaded mission (with its injected
	// updates) holds: an update that found the slots used up waits past
	// it until the mission ends.
	upTo int
	// lastNode is the index of the last node reached.
	lastNode int
	// ended: the mission finished (SUCCESS), failed or was cancelled.
	ended, failed, cancelled bool
	// last is the latest plan, to recognise a resend.
	last *plan
	// token tells this run's mission's progress keys from an earlier
	// mission's (the runner's blackboard snapshot may lag a load).
	token int
	// loaded is when its mission was loaded; seen, whether the runner's
	// state has shown it since.
	loaded time.Time
	seen   bool
}

// clone copies the run, so an update is built aside and dropped when
// the runner refuses it.
func (r *orderRun) clone() *orderRun {
	c := *r
	c.nodes = slices.Clone(r.nodes)
	c.edges = slices.Clone(r.edges)
	c.actions = slices.Clone(r.actions)
	c.status = slices.Clone(r.status)
	c.steps = slices.Clone(r.steps)
	return &c
}

// cancel ends the run by cancelOrder: what has not run fails.
func (r *orderRun) cancel() {
	r.fail("the order was cancelled")
	r.failed, r.cancelled = false, true
}

func newRun(p *plan) *orderRun {
	r := &orderRun{orderID: p.orderID, updateID: p.updateID, zoneSet: p.zoneSet,
		nodes: p.nodes, edges: p.edges, base: p.base, actions: p.actions, steps: p.steps, last: p,
		missionID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("botd:vda5050:order:"+p.orderID)).String()}
	r.status = make([]ActionState, len(p.actions))
	for i, a := range p.actions {
		r.status[i] = ActionState{ActionID: a.ActionID, ActionType: a.Type(), ActionDescription: a.ActionDescription, ActionStatus: ActionWaiting}
	}
	return r
}

// stitch appends an update's base at the last base node (its first node,
// the same node and sequenceId, whose new actions run after the old ones)
// and takes its horizon.
func (r *orderRun) stitch(p *plan) {
	off := len(r.actions)
	r.nodes = append(r.nodes[:r.base], p.nodes[1:]...)
	r.edges = append(r.edges[:r.base-1], p.edges...)
	for _, s := range p.steps {
		if s.node >= 0 {
			s.node += r.base - 1
		} else {
			s.action += off
		}
		with := make([]int, len(s.with))
		for i, a := range s.with {
			with[i] = a + off
		}
		s.with = with
		r.steps = append(r.steps, s)
	}
	r.base += p.base - 1
	r.actions = append(r.actions, p.actions...)
	for _, a := range p.actions {
		r.status = append(r.status, ActionState{ActionID: a.ActionID, ActionType: a.Type(), ActionDescription: a.ActionDescription, ActionStatus: ActionWaiting})
	}
	r.updateID, r.zoneSet, r.last = p.updateID, p.zoneSet, p
	r.ended, r.failed = false, false
}

// maxKeptActions bounds the finished and failed actions an order keeps
// reporting in actionStates once the robot has left them behind.
const maxKeptActions = 32

// compact drops what the robot has left behind, so that an order updated
// without end stays bounded: the nodes and edges before the last node
// reached, the steps done (the loaded mission's progress count moves with
// them: from goes down by as many), and, over maxKeptActions, the oldest
// actions finished or failed that no step still to run has.
func (r *orderRun) compact() {
	d, dn := r.done, r.lastNode
	r.nodes = slices.Clone(r.nodes[dn:])
	r.edges = slices.Clone(r.edges[dn:])
	r.base -= dn
	r.lastNode = 0
	r.steps = slices.Clone(r.steps[d:])
	r.done = 0
	r.from -= d
	r.upTo -= d
	pending := map[int]bool{}
	for i := range r.steps {
		if r.steps[i].node >= 0 {
			r.steps[i].node -= dn
		}
		for _, a := range append([]int{r.steps[i].action}, r.steps[i].with...) {
			pending[a] = true
		}
	}
	over := -maxKeptActions
	for i, st := range r.status {
		if !pending[i] && (st.ActionStatus == ActionFinished || st.ActionStatus == ActionFailed) {
			over++
		}
	}
	if over <= 0 {
		return
	}
	moved := make([]int, len(r.actions))
	var actions []actionRef
	var status []ActionState
	for i, st := range r.status {
		if over > 0 && !pending[i] && (st.ActionStatus == ActionFinished || st.ActionStatus == ActionFailed) {
			over--
			moved[i] = -1
			continue
		}
		moved[i] = len(actions)
		actions, status = append(actions, r.actions[i]), append(status, st)
	}
	r.actions, r.status = actions, status
	for i := range r.steps {
		s := &r.steps[i]
		if s.action >= 0 {
			s.action = moved[s.action]
		}
		with := make([]int, len(s.with))
		for j, a := range s.with {
			with[j] = moved[a]
		}
		s.with = with
	}
}

// rearm sets the actions of the steps still to run back to WAITING: an
// update of an order that stopped (failed, or interrupted by a restart)
// runs them after all.
func (r *orderRun) rearm() {
	for _, s := range r.steps[r.done:] {
		for _, i := range append([]int{s.action}, s.with...) {
			if i >= 0 {
				r.status[i].ActionStatus, r.status[i].ResultDescription = ActionWaiting, ""
			}
		}
	}
}

// active reports whether the order still has base work to do.
func (r *orderRun) active() bool {
	return r != nil && !r.ended && !r.cancelled && r.done < len(r.steps)
}

// progress moves the run to done steps (never back), marking the nodes
// reached and the actions finished; running is the step being run (0:
// none), as the mission's progress keys say.
//
// opened(j) is the step in which the running step's j-th action opened
// its node after its prepare node; prepared(i) tells whether action i
// has one (it is INITIALIZING until then).
func (r *orderRun) progress(done, running int, opened func(j int) int, prepared func(i int) bool) bool {
	changed := false
	for r.done < done && r.done < len(r.steps) {
		s := r.steps[r.done]
		if s.node >= 0 {
			r.lastNode = s.node
		} else {
			r.status[s.action].ActionStatus = ActionFinished
		}
		for _, a := range s.with {
			r.status[a].ActionStatus = ActionFinished
		}
		r.done++
		changed = true
	}
	if running > r.done && running <= len(r.steps) {
		s := r.steps[running-1]
		for j, a := range append([]int{s.action}, s.with...) {
			if a < 0 {
				continue
			}
			want := ActionRunning
			if prepared != nil && prepared(a) && (opened == nil || opened(j) < running-r.from) {
				want = ActionInitializing
			}
			if st := r.status[a].ActionStatus; st == ActionWaiting || (st == ActionInitializing && want == ActionRunning) {
				r.status[a].ActionStatus = want
				changed = true
			}
		}
	}
	return changed
}

// fail ends the run: the action being run failed (with why), and every
// action not yet run fails as well, so a master control does not wait
// for them.
func (r *orderRun) fail(why string) {
	r.ended, r.failed = true, true
	for i := range r.status {
		switch r.status[i].ActionStatus {
		case ActionRunning, ActionInitializing:
			r.status[i].ActionStatus, r.status[i].ResultDescription = ActionFailed, why
		case ActionWaiting:
			r.status[i].ActionStatus, r.status[i].ResultDescription = ActionFailed, "not run: "+why
		}
	}
}

// Progress keys of a generated mission: the count of its steps done, and
// the step it is running (both from 1).
const (
	keyDone    = "vda5050.step"
	keyRunning = "vda5050.running"
	keyToken   = "vda5050.load"
)

// updateSlots is how many updates a loaded mission takes without
// being reloaded: it ends in as many DynamicSubTree slots, run in order,
// each empty until an update is injected into it.
const updateSlots = 32

func slotName(i int) string { return fmt.Sprintf("vda5050.update%d", i) }

// mission generates the botd mission that runs steps[from:], as a
// botd/mission@1 document. Each step is guarded by the progress key, so
// a mission resumed from its root (after a pause) skips what it did.
// After the steps come the update slots: an order update is injected
// into the next free one (see extension), so the mission goes on into it
// without stopping, and nothing it is doing is halted.
func (r *orderRun) mission(cfg *Config, token int) (json.RawMessage, error) {
	bb := map[string]any{keyDone: 0, keyRunning: 0, keyToken: token}
	var children []any
	for k := r.from; k < len(r.steps); k++ {
		children = append(children, r.stepNode(k, cfg, bb))
	}
	for i := 1; i <= updateSlots; i++ {
		children = append(children, map[string]any{"type": "DynamicSubTree", "name": fmt.Sprintf("update slot %d", i),
			"params": map[string]any{"slot": slotName(i), "default": "idle"}})
	}
	doc := map[string]any{
		"format": "botd/mission@1", "id": r.missionID, "name": "vda5050 order " + r.orderID,
		"revision": r.updateID, "blackboard": bb, "main": "main",
		"trees": map[string]any{"main": map[string]any{"type": "Sequence", "name": "order " + r.orderID, "children": children},
			"idle": map[string]any{"type": "Succeed", "name": "no update"}},
	}
	return json.Marshal(doc)
}

// extension is the tree injected into the loaded mission's next update
// slot: the steps from steps[from:], counted on from the mission's own.
func (r *orderRun) extension(from int, cfg *Config) (json.RawMessage, error) {
	children := []any{}
	for k := from; k < len(r.steps); k++ {
		children = append(children, r.stepNode(k, cfg, nil))
	}
	if len(children) == 0 {
		children = append(children, map[string]any{"type": "Succeed"})
	}
	return json.Marshal(map[string]any{"type": "Sequence", "name": fmt.Sprintf("update %d of order %s", r.updateID, r.orderID), "children": children})
}

// stepNode is steps[k]: a Priority of a Check of the progress key and a
// MemSequence that runs the step and counts it. bb is the mission's
// initial blackboard (nil in an injected extension).
func (r *orderRun) stepNode(k int, cfg *Config, bb map[string]any) any {
	s := r.steps[k]
	n := k - r.from + 1
	var body any
	var name string
	if s.node >= 0 {
		body, name = r.driveTo(s.node, cfg), fmt.Sprintf("node %s (sequence %d)", r.nodes[s.node].NodeID, *r.nodes[s.node].SequenceID)
		if len(s.with) > 0 {
			// NONE actions alongside the drive: the step is done when
			// the drive and they are.
			branches := []any{body}
			for j, a := range s.with {
				branches = append(branches, r.actionNode(a, cfg, bb, n, j+1))
			}
			body = map[string]any{"type": "Parallel", "name": "drive with actions", "children": branches}
		}
	} else {
		a := r.actions[s.action]
		body, name = r.actionNode(s.action, cfg, bb, n, 0), fmt.Sprintf("action %s (%s)", a.ActionID, a.Type())
		if len(s.with) > 0 {
			// Actions that may run at the same time (SOFT, NONE): the
			// step is done when all of them are.
			branches := []any{body}
			for j, w := range s.with {
				branches = append(branches, r.actionNode(w, cfg, bb, n, j+1))
				name += fmt.Sprintf(" with %s (%s)", r.actions[w].ActionID, r.actions[w].Type())
			}
			body = map[string]any{"type": "Parallel", "name": "actions together", "children": branches}
		}
	}
	return map[string]any{"type": "Priority", "name": name, "children": []any{
		map[string]any{"type": "Check", "params": map[string]any{"key": keyDone, "op": ">=", "value": n}},
		map[string]any{"type": "MemSequence", "children": []any{
			set(keyRunning, n), body, set(keyDone, n)}},
	}}
}

func set(key string, v any) map[string]any {
	return map[string]any{"type": "Set", "params": map[string]any{"key": key, "value": v}}
}

// driveTo is the drive along the edge before node i to it: within the
// node's allowedDeviationXY, at most the edge's maxSpeed.
func (r *orderRun) driveTo(i int, cfg *Config) any {
	pos := r.nodes[i].NodePosition
	tol := cfg.Tolerance
	if pos.AllowedDeviationXY > 0 {
		tol = math.Max(pos.AllowedDeviationXY, 0.01)
	}
	speed := cfg.Speed
	if e := r.edges[i-1]; e.MaxSpeed != nil {
		speed = math.Max(math.Min(speed, *e.MaxSpeed), 0.01)
	}
	move := map[string]any{"type": "MoveTo", "name": "edge " + r.edges[i-1].EdgeID,
		"params": map[string]any{"x": *pos.X, "y": *pos.Y, "tolerance": tol, "speed": speed}}
	if pos.Theta == nil {
		return move
	}
	// The node's orientation: Turn is relative, so the heading
	// difference is computed when the node is reached (wrapped into
	// [-180, 180) degrees: the shorter way round).
	turn := map[string]any{"angle_deg": "{" + keyTurn + "}"}
	if dev := pos.AllowedDeviationTheta; dev > 0 {
		turn["tolerance_deg"] = math.Min(math.Max(dev*180/math.Pi, 0.1), 45)
	}
	return map[string]any{"type": "MemSequence", "name": fmt.Sprintf("to node %s, heading %.3f rad", r.nodes[i].NodeID, *pos.Theta),
		"children": []any{move,
			map[string]any{"type": "Script", "name": "heading difference", "params": map[string]any{"code": turnCode(*pos.Theta, cfg.PoseKey)}},
			map[string]any{"type": "Turn", "name": "node " + r.nodes[i].NodeID + " theta", "params": turn}}}
}

// keyTurn holds the turn (degrees, counterclockwise) from the heading the
// robot has at a node to the node's theta.
const keyTurn = "vda5050.turn"

// turnCode is the Script that computes keyTurn from the pose's heading:
// theta - heading, wrapped into [-180, 180) degrees.
func turnCode(theta float64, poseKey string) string {
	d := fmt.Sprintf("(%s - %s.heading)", ftoa(theta), poseKey)
	return fmt.Sprintf("%s := (%s - %s * floor((%s + %s) / %s)) * %s", keyTurn, d,
		ftoa(2*math.Pi), d, ftoa(math.Pi), ftoa(2*math.Pi), ftoa(180/math.Pi))
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// actionNode is the configured node of an action, after copying its
// parameters to vda5050.param.KEY: in a loaded mission through its
// initial blackboard bb (so any JSON value goes, and no string is read as
// a "{key}" reference); in an injected extension (bb nil) by Set nodes
// with the values themselves (a string shaped as a reference was refused
// when the update came: see literalParams).
//
// An action with a prepare node runs it first and then marks, in
// keyOpened(j) (j: the action's place in step n), that its node opens:
// the action is INITIALIZING until then.
func (r *orderRun) actionNode(i int, cfg *Config, bb map[string]any, n, j int) any {
	a := r.actions[i]
	seq := []any{}
	for _, kv := range a.ActionParameters {
		var v any
		_ = json.Unmarshal(kv.Value, &v) // checked when the order came
		if bb == nil {
			seq = append(seq, set("vda5050.param."+kv.Key, v))
			continue
		}
		hold := fmt.Sprintf("vda5050.a%d.%s", i, kv.Key)
		bb[hold] = v
		seq = append(seq, set("vda5050.param."+kv.Key, "{"+hold+"}"))
	}
	ac := cfg.Actions[a.Type()]
	if ac.Prepare != nil {
		seq = append(seq, ac.Prepare, set(keyOpened(j), n))
	}
	return map[string]any{"type": "MemSequence", "name": a.Type(), "children": append(seq, ac.Node)}
}

// keyOpened(j) is the step in which the j-th action of a step (0: the
// step's own, then those run with it) last opened its node after its
// prepare node.
func keyOpened(j int) string { return keyOpenedPrefix + strconv.Itoa(j) }

const keyOpenedPrefix = "vda5050.opened"

// literalParams finds an action parameter an injected extension cannot
// carry: a string value shaped as a blackboard reference ("{key}"), which
// a Set node would read as one.
func literalParams(as []actionRef) (actionID, key string, ok bool) {
	for _, a := range as {
		for _, kv := range a.ActionParameters {
			var s string
			if json.Unmarshal(kv.Value, &s) == nil {
				if _, ref := bt.RefKey(s); ref {
					return a.ActionID, kv.Key, false
				}
			}
		}
	}
	return "", "", true
}
