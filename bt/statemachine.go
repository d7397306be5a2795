package bt

import (
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt/fsm"
)

var stateMachineType = NodeType{
	Name: "StateMachine", KeepsProgress: true, Kind: Composite,
	Doc: "A finite state machine whose states run trees of the mission. Each tick, the first transition from the " +
		"current state (or from `*`) whose condition succeeds fires: the state's tree is halted at once (deepest " +
		"first) and the next state entered; then the current state's tree is ticked and RUNNING or ERROR passes up. " +
		"A state's tree runs once per entry: when it completes, the machine stays in the state (RUNNING) until a " +
		"transition fires (a transition to the same state runs it again). Entering a final state completes the node " +
		"with that state's result. A condition that errs makes the node return ERROR. The machine restarts at " +
		"`initial` each time the node opens. State trees and conditions are children of this node in the compiled tree.",
	Params: []Param{
		{Name: "initial", Type: TString, Required: true, Doc: "the state entered when the node opens"},
		{Name: "states", Type: TAny, Required: true, Doc: "`{\"name\": {\"tree\": \"tree name\"}}`, or `{\"result\": \"SUCCESS\"}` (or FAILURE) for a final state"},
		{Name: "transitions", Type: TAny, Doc: "ordered `[{\"from\": \"state\" or \"*\", \"to\": \"state\", \"when\": condition}]`; a condition is a node definition or an expression string"},
		{Name: "state_key", Type: TKey, Doc: "blackboard key that receives the current state's name"},
	},
	Synthesize: func(b *Builder) []Synth { return parseMachine(b, true).synths },
	New:        newStateMachine,
}

// machineDef is a parsed StateMachine definition. Its synthesized
// children are the state trees (states in name order, final states have
// none), then the transition conditions in order.
type machineDef struct {
	initial string
	states  []stateDef
	trans   []transDef
	synths  []Synth
	ok      bool
}

type stateDef struct {
	name   string
	final  bool
	result Status
	child  int // index in synths; -1 for a final state
}

type transDef struct {
	from, to string
	child    int
}

// parseMachine reads the parameters; problems are reported only when
// report is set (Synthesize reports, New parses again quietly).
func parseMachine(b *Builder, report bool) *machineDef {
	md := &machineDef{ok: true}
	errAt := func(path, format string, args ...any) {
		md.ok = false
		if report {
			b.ErrorAt(path, format, args...)
		}
	}
	pp := func(name string) string { return b.c.paramPath(b.path, name) }

	statesPath := pp("states")
	rawStates, _ := b.Raw("states")
	states, isMap := rawStates.(map[string]any)
	switch {
	case rawStates == nil:
		md.ok = false // reported as a missing required parameter
	case !isMap:
		errAt(statesPath, `want an object of states ({"name": {"tree": ...} or {"result": ...}}), got %s`, Describe(rawStates))
	case len(states) == 0:
		errAt(statesPath, "a state machine needs at least one state")
	}
	names := sortedKeys(states)
	byName := map[string]bool{}
	for _, name := range names {
		path := statesPath + "/" + pathEscape(name)
		if name == "" || name == fsm.Any {
			errAt(path, "invalid state name %q", name)
			continue
		}
		byName[name] = true
		sd := stateDef{name: name, child: -1}
		entry, isMap := states[name].(map[string]any)
		if !isMap {
			errAt(path, `want {"tree": "tree name"} or {"result": "SUCCESS" or "FAILURE"}, got %s`, Describe(states[name]))
			continue
		}
		for _, k := range sortedKeys(entry) {
			if k != "tree" && k != "result" {
				errAt(path+"/"+pathEscape(k), "unknown field %q in a state (known: tree, result)", k)
			}
		}
		tree, hasTree := entry["tree"]
		result, hasResult := entry["result"]
		switch {
		case hasTree && hasResult:
			errAt(path, "a state has a tree or a result, not both")
		case hasTree:
			tn, isStr := tree.(string)
			if !isStr || tn == "" {
				errAt(path+"/tree", "want a tree name, got %s", Describe(tree))
				break
			}
			sd.child = len(md.synths)
			md.synths = append(md.synths, Synth{
				Def:       &NodeDef{Type: "SubTree", Name: name, Params: map[string]any{"tree": tn}},
				Path:      path,
				ParamPath: func(p string) string { return path + "/" + pathEscape(p) },
			})
		case hasResult:
			rs, _ := result.(string)
			switch rs {
			case "SUCCESS":
				sd.result = Success
			case "FAILURE":
				sd.result = Failure
			default:
				errAt(path+"/result", "want SUCCESS or FAILURE, got %s", Describe(result))
			}
			sd.final = true
		default:
			errAt(path, `a state needs a tree ({"tree": "tree name"}) or a result ({"result": "SUCCESS"})`)
		}
		md.states = append(md.states, sd)
	}
	known := func() string { return strings.Join(names, ", ") }

	raw, _ := b.Raw("initial")
	md.initial, _ = raw.(string)
	switch _, ref := RefKey(md.initial); {
	case raw == nil:
		md.ok = false // reported as a missing required parameter
	case md.initial == "":
		errAt(pp("initial"), "missing initial state")
	case ref:
		errAt(pp("initial"), "the initial state must be a constant state name")
	case len(byName) > 0 && !byName[md.initial]:
		errAt(pp("initial"), "unknown state %q (states: %s)", md.initial, known())
	}

	transPath := pp("transitions")
	rawTrans, _ := b.Raw("transitions")
	list, isList := rawTrans.([]any)
	if rawTrans != nil && !isList {
		errAt(transPath, `want a list of transitions ([{"from": ..., "to": ..., "when": ...}]), got %s`, Describe(rawTrans))
	}
	for i, e := range list {
		path := transPath + "/" + strconv.Itoa(i)
		tr, isMap := e.(map[string]any)
		if !isMap {
			errAt(path, `want {"from": ..., "to": ..., "when": ...}, got %s`, Describe(e))
			continue
		}
		for _, k := range sortedKeys(tr) {
			if k != "from" && k != "to" && k != "when" {
				errAt(path+"/"+pathEscape(k), "unknown field %q in a transition (known: from, to, when)", k)
			}
		}
		td := transDef{child: -1}
		stateRef := func(field string, star bool) string {
			v, given := tr[field]
			s, isStr := v.(string)
			switch {
			case !given:
				errAt(path+"/"+field, "missing %q state", field)
			case !isStr:
				errAt(path+"/"+field, "want a state name, got %s", Describe(v))
			case star && s == fsm.Any:
			case !byName[s] && len(byName) > 0:
				hint := ""
				if s == fsm.Any {
					hint = ` ("*" is only allowed in from)`
				}
				errAt(path+"/"+field, "unknown state %q%s (states: %s)", s, hint, known())
			}
			return s
		}
		td.from, td.to = stateRef("from", true), stateRef("to", false)
		wp := path + "/when"
		switch w := tr["when"].(type) {
		case nil:
			errAt(wp, "missing condition (a node definition or an expression string)")
		case string:
			td.child = len(md.synths)
			md.synths = append(md.synths, Synth{
				Def:       &NodeDef{Type: "Expr", Name: "when " + td.from + " -> " + td.to, Params: map[string]any{"expr": w}},
				Path:      wp,
				ParamPath: func(string) string { return wp },
			})
		default:
			var def *NodeDef
			if report {
				def = b.NodeDefOf(w, wp)
			} else {
				def = quietNodeDef(w)
			}
			if def == nil {
				md.ok = false
				break
			}
			if def.Name == "" {
				cp := *def
				cp.Name = "when " + td.from + " -> " + td.to
				def = &cp
			}
			td.child = len(md.synths)
			md.synths = append(md.synths, Synth{Def: def, Path: wp})
		}
		md.trans = append(md.trans, td)
	}
	return md
}

// quietNodeDef converts a condition definition without reporting (the
// problems were reported when the children were synthesized).
func quietNodeDef(v any) *NodeDef {
	b := &Builder{c: &compiler{}}
	d := b.NodeDefOf(v, "")
	if len(b.c.problems) > 0 {
		return nil
	}
	return d
}

// smMem is a StateMachine's per-agent memory. fsm.Memory holds no
// pointers, so it can live in the agent's noscan block (Reserve checks).
type smMem struct {
	machine fsm.Memory
	state   int32 // the current state's index
	done    bool  // the current state's tree completed in this entry
	err     bool  // a condition returned ERROR in this tick
}

// smEnv is what the shared machine acts on.
type smEnv struct {
	a *Agent
	n *Node
}

type stateMachine struct {
	machine *fsm.Machine[smEnv]
	states  []smState
	key     Slot
	mem     Mem[smMem]
}

var _ Opener = (*stateMachine)(nil)

type smState struct {
	child  int32 // the state's SubTree node; -1 for a final state
	end    int32
	final  bool
	result Status
	name   Value // for state_key, made once
}

func newStateMachine(b *Builder) Behavior {
	md := parseMachine(b, false)
	children := b.Children()
	if !md.ok || len(children) != len(md.synths) {
		return errorBehavior{}
	}
	for _, ci := range children {
		if int(ci) >= len(b.c.t.nodes) {
			return errorBehavior{} // over the size limit (reported)
		}
	}
	sm := &stateMachine{key: b.KeyParam("state_key"), mem: Reserve[smMem](b)}
	var states []fsm.State[smEnv]
	for i, sd := range md.states {
		st := smState{child: -1, final: sd.final, result: sd.result, name: StringValue(sd.name)}
		if sd.child >= 0 {
			st.child = children[sd.child]
			st.end = b.c.t.nodes[st.child].End
		}
		sm.states = append(sm.states, st)
		i := int32(i)
		states = append(states, fsm.State[smEnv]{
			Name:  sd.name,
			Final: sd.final,
			Enter: func(e smEnv, _ *fsm.Memory) { sm.enter(e, i) },
			Exit:  func(e smEnv, _ *fsm.Memory) { sm.exit(e) },
		})
	}
	var trans []fsm.Transition[smEnv]
	for _, td := range md.trans {
		ci := children[td.child]
		trans = append(trans, fsm.Transition[smEnv]{
			From: td.from, To: td.to,
			When: func(e smEnv, _ *fsm.Memory) bool { return sm.when(e, ci) },
		})
	}
	m, err := fsm.New(md.initial, states, trans)
	if err != nil {
		b.Errorf("", "%v", err)
		return errorBehavior{}
	}
	sm.machine = m
	return sm
}

// Open restarts the machine: the initial state is entered on the first
// tick.
func (sm *stateMachine) Open(a *Agent, n *Node) {
	*sm.mem.Of(a, n) = smMem{}
}

func (sm *stateMachine) Tick(a *Agent, n *Node) Status {
	m := sm.mem.Of(a, n)
	m.err = false
	sm.machine.Step(smEnv{a, n}, &m.machine, a.now)
	if m.err {
		return Error
	}
	st := &sm.states[m.state]
	if st.final {
		return st.result
	}
	if m.done {
		return Running
	}
	switch s := a.Exec(st.child); s {
	case Running, Error:
		return s
	}
	m.done = true
	return Running
}

// when evaluates a transition's condition: a guard evaluated afresh every
// tick (stored-state evaluation does not keep its status).
func (sm *stateMachine) when(e smEnv, ci int32) bool {
	m := sm.mem.Of(e.a, e.n)
	if m.err {
		return false // an earlier condition erred: fire nothing
	}
	if e.a.stored {
		e.a.unstore(ci, e.a.nodes[ci].End)
	}
	switch e.a.Exec(ci) {
	case Success:
		return true
	case Error:
		m.err = true
	}
	return false
}

// exit halts the state's tree at once, deepest first: the documented
// exception to engine-made halts.
func (sm *stateMachine) exit(e smEnv) {
	if st := &sm.states[sm.mem.Of(e.a, e.n).state]; st.child >= 0 {
		if e.a.anyOpen(st.child, st.end) {
			e.a.haltRange(st.child, st.end)
		}
	}
}

func (sm *stateMachine) enter(e smEnv, i int32) {
	m := sm.mem.Of(e.a, e.n)
	m.done = false
	m.state = i
	st := &sm.states[i]
	if st.child >= 0 && e.a.stored {
		e.a.unstore(st.child, st.end)
	}
	if sm.key != NoSlot {
		e.a.BB.Set(sm.key, st.name)
	}
}

// MachineState returns the name of the current state of the StateMachine node i
// for agent a ("" when the node is not open).
func (a *Agent) MachineState(i int32) string {
	n := &a.nodes[i]
	sm, ok := n.b.(*stateMachine)
	if !ok || !a.IsOpen(i) {
		return ""
	}
	return sm.machine.Current(&sm.mem.Of(a, n).machine)
}
