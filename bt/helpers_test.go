package bt

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// This file holds what the node tests share: the Scripted test leaf, a
// probe that counts its lifecycle calls per node per agent, a recording
// Observer that also checks the lifecycle rules on every event, and a
// harness that compiles a tree from a compact NodeDef literal and ticks
// one agent on virtual time.

// kv is a parameter map literal.
type kv = map[string]any

// nd builds a node definition.
func nd(typ, name string, params kv, children ...*NodeDef) *NodeDef {
	return &NodeDef{Type: typ, Name: name, Params: params, Children: children}
}

// sc builds a Scripted leaf driven by its activations (see scriptedType).
func sc(name, statuses string) *NodeDef { return nd("Scripted", name, kv{"statuses": statuses}) }

// tl builds a Scripted leaf driven by the agent's tick number (see
// scriptedType).
func tl(name, timeline string) *NodeDef { return nd("Scripted", name, kv{"timeline": timeline}) }

// counts is how often a node was opened, ticked, closed and halted.
type counts struct{ open, tick, close, halt int }

func (c counts) String() string {
	return fmt.Sprintf("open=%d tick=%d close=%d halt=%d", c.open, c.tick, c.close, c.halt)
}

// scriptedType is the test leaf "Scripted" ("Script" is taken: it is an
// alias of Expr). It takes exactly one of two parameters:
//
//   - statuses: a script per activation. Within an activation the k-th
//     tick after the node opened returns the k-th letter, the last letter
//     repeating. Segments separated by '|' are successive activations of
//     the node for one agent ("F|S": fail the first time, succeed from
//     the second activation on); the last segment repeats. Default "S".
//   - timeline: a script per agent tick. The agent's k-th tick
//     (Agent.Ticks() == k) returns the k-th letter, the last repeating,
//     whatever the activation: for conditions that change over time.
//
// Letters are S, F, R, E (the statuses) and P (panic in Tick).
var scriptedType = NodeType{
	Name: "Scripted", Kind: Leaf,
	Params: []Param{
		{Name: "statuses", Type: TString},
		{Name: "timeline", Type: TString},
	},
	New: newScripted,
}

type scripted struct {
	segments []string // per activation
	timeline string
	mem      Mem[scriptedMem]
}

var (
	_ Opener = scripted{}
	_ Closer = scripted{}
	_ Halter = scripted{}
)

// scriptedMem is a Scripted leaf's per-agent memory.
type scriptedMem struct {
	ticks       int // in this activation
	activations int // so far
}

func newScripted(b *Builder) Behavior {
	s := scripted{mem: Reserve[scriptedMem](b)}
	check := func(param, script string) {
		if script == "" {
			b.Errorf(param, "empty script")
		}
		for _, r := range strings.ReplaceAll(script, "|", "") {
			if !strings.ContainsRune("SFREP", r) {
				b.Errorf(param, "bad letter %q", r)
			}
		}
	}
	if raw, ok := b.Raw("timeline"); ok {
		s.timeline, _ = raw.(string)
		check("timeline", s.timeline)
		if b.Has("statuses") {
			b.Errorf("statuses", "give statuses or timeline, not both")
		}
		return s
	}
	st := "S"
	if raw, ok := b.Raw("statuses"); ok {
		st, _ = raw.(string)
	}
	check("statuses", st)
	for _, seg := range strings.Split(st, "|") {
		if seg == "" {
			b.Errorf("statuses", "empty segment")
			seg = "E"
		}
		s.segments = append(s.segments, seg)
	}
	return s
}

// probe is an agent's Env in tests: the Scripted leaves count their
// lifecycle calls in it, per node. Child agents (DynamicSubTree) share
// their parent's Env, so the nodes of other trees are counted apart.
type probe struct {
	tree  *Tree
	calls []counts
	other map[*Tree][]counts
}

func (s scripted) calls(a *Agent, n *Node) *counts {
	p, ok := a.Env.(*probe)
	if !ok {
		return new(counts)
	}
	if p.tree == nil || a.Tree() == p.tree {
		return &p.calls[n.Index]
	}
	if p.other == nil {
		p.other = map[*Tree][]counts{}
	}
	c := p.other[a.Tree()]
	if c == nil {
		c = make([]counts, a.Tree().Len())
		p.other[a.Tree()] = c
	}
	return &c[n.Index]
}

// childCalls returns the lifecycle calls a Scripted node of another tree
// (a child tree) counted for this agent.
func (h *harness) childCalls(t *Tree, name string) counts {
	h.tb.Helper()
	c := h.a.Env.(*probe).other[t]
	if c == nil {
		return counts{}
	}
	return c[nodeNamed(h.tb, t, name)]
}

func (s scripted) Open(a *Agent, n *Node) {
	m := s.mem.Of(a, n)
	m.ticks = 0
	m.activations++
	s.calls(a, n).open++
}

func (s scripted) Tick(a *Agent, n *Node) Status {
	s.calls(a, n).tick++
	var script string
	var k int
	if s.timeline != "" {
		script, k = s.timeline, int(a.Ticks())-1
	} else {
		m := s.mem.Of(a, n)
		script = s.segments[min(m.activations-1, len(s.segments)-1)]
		k = m.ticks
		m.ticks++
	}
	switch script[min(k, len(script)-1)] {
	case 'S':
		return Success
	case 'F':
		return Failure
	case 'R':
		return Running
	case 'P':
		panic("scripted panic")
	}
	return Error
}

func (s scripted) Close(a *Agent, n *Node) { s.calls(a, n).close++ }
func (s scripted) Halt(a *Agent, n *Node)  { s.calls(a, n).halt++ }

// panickyType is a composite whose Tick panics after ticking its children
// (a bug in a non-leaf node).
var panickyType = NodeType{
	Name: "Panicky", Kind: Composite,
	New: func(*Builder) Behavior { return panicky{} },
}

type panicky struct{}

func (panicky) Tick(a *Agent, n *Node) Status {
	for _, c := range n.Children {
		a.Exec(c)
	}
	panic("composite bug")
}

// badHaltType is a leaf that runs until halted and panics when it is (a
// driver that fails while stopping).
var badHaltType = NodeType{
	Name: "BadHalt", Kind: Leaf,
	New: func(*Builder) Behavior { return badHalt{} },
}

type badHalt struct{}

func (badHalt) Open(*Agent, *Node)        {}
func (badHalt) Tick(*Agent, *Node) Status { return Running }
func (badHalt) Close(*Agent, *Node)       {}
func (badHalt) Halt(a *Agent, n *Node)    { panic("driver gone") }

// turnType is a device-like leaf with a bounded parameter, as in the
// contract's validation example.
var turnType = NodeType{
	Name: "Turn", Kind: Leaf,
	Params: []Param{
		{Name: "angle_deg", Type: TNumber, Required: true, Min: Float(-180), Max: Float(180), Unit: "deg"},
		{Name: "speed", Type: TNumber, Min: Float(0), Max: Float(2)},
	},
	New: func(*Builder) Behavior { return constant(Running) },
}

// testRegistry is NewRegistry with the test node types added.
func testRegistry() *Registry {
	r := NewRegistry()
	r.Register(scriptedType)
	r.Register(panickyType)
	r.Register(turnType)
	r.Register(badHaltType)
	r.Register(skipperType)
	for _, t := range standInTypes {
		r.Register(t)
	}
	return r
}

// specOpt adjusts the spec a test tree is compiled from.
type specOpt func(*Spec)

func withBB(bb kv) specOpt { return func(s *Spec) { s.Blackboard = bb } }

// withKeys adds global keys that get a slot even when no node names them.
func withKeys(keys ...string) specOpt { return func(s *Spec) { s.Keys = append(s.Keys, keys...) } }

// withTree adds a named tree (for SubTree).
func withTree(name string, root *NodeDef) specOpt {
	return func(s *Spec) { s.Trees[name] = root }
}

func mainSpec(root *NodeDef, opts ...specOpt) *Spec {
	s := &Spec{Trees: map[string]*NodeDef{"main": root}, Main: "main"}
	for _, o := range opts {
		o(s)
	}
	return s
}

// compileTree compiles root as the main tree; any problem fails the test.
func compileTree(tb testing.TB, root *NodeDef, opts ...specOpt) *Tree {
	tb.Helper()
	t, err := testRegistry().Compile(mainSpec(root, opts...))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	return t
}

// compileProblems compiles a spec that must be refused and returns the
// problems.
func compileProblems(tb testing.TB, spec *Spec) Problems {
	tb.Helper()
	t, err := testRegistry().Compile(spec)
	if err == nil {
		tb.Fatalf("compile succeeded (%d nodes), want problems", t.Len())
	}
	ps, ok := err.(Problems)
	if !ok {
		tb.Fatalf("compile error is %T, want Problems", err)
	}
	return ps
}

// nodeEvent is one lifecycle event seen by the recorder.
type nodeEvent struct {
	Node   int32
	Event  Event
	Status Status
}

// recorder is an Observer that collects every event in order, counts them
// per node and checks the lifecycle rules as they happen: a node opens
// only when closed, ticks only when open, closes only after a tick that
// did not return RUNNING, and neither closes nor is halted while a
// descendant is still open.
type recorder struct {
	tb     testing.TB
	tree   *Tree
	events []nodeEvent
	counts []counts
	open   []bool
	last   []Status
}

func newRecorder(tb testing.TB, t *Tree) *recorder {
	return &recorder{tb: tb, tree: t, counts: make([]counts, t.Len()), open: make([]bool, t.Len()), last: make([]Status, t.Len())}
}

func (r *recorder) OnNode(a *Agent, node int32, ev Event, st Status) {
	r.events = append(r.events, nodeEvent{node, ev, st})
	c := &r.counts[node]
	name := r.name(node)
	switch ev {
	case EventOpen:
		if r.open[node] {
			r.tb.Errorf("agent %d: %s opened while open", a.ID, name)
		}
		r.open[node] = true
		c.open++
	case EventTick:
		if !r.open[node] {
			r.tb.Errorf("agent %d: %s ticked while not open", a.ID, name)
		}
		r.last[node] = st
		c.tick++
	case EventClose, EventHalt:
		if !r.open[node] {
			r.tb.Errorf("agent %d: %s %v while not open", a.ID, name, ev)
		}
		if ev == EventClose && r.last[node] == Running {
			r.tb.Errorf("agent %d: %s closed after a RUNNING tick", a.ID, name)
		}
		n := r.tree.Node(int(node))
		for j := node + 1; j < n.End; j++ {
			if r.open[j] {
				r.tb.Errorf("agent %d: %s %v while its descendant %s is open", a.ID, name, ev, r.name(j))
			}
		}
		r.open[node] = false
		if ev == EventClose {
			c.close++
		} else {
			c.halt++
		}
	}
}

func (r *recorder) name(i int32) string {
	if n := r.tree.Node(int(i)); n.Name != "" {
		return n.Name
	}
	return fmt.Sprintf("#%d", i)
}

// lines renders the events as "name open", "name tick STATUS", "name
// close", "name halt".
func (r *recorder) lines() []string {
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = r.name(e.Node) + " " + e.Event.String()
		if e.Event == EventTick {
			out[i] += " " + e.Status.String()
		}
	}
	return out
}

// take returns the events rendered by lines and forgets them.
func (r *recorder) take() []string {
	l := r.lines()
	r.events = r.events[:0]
	return l
}

// only keeps the lines of the given events ("open", "halt", ...).
func only(lines []string, events ...string) []string {
	var out []string
	for _, l := range lines {
		for _, e := range events {
			if strings.Contains(l, " "+e) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// sinkRec is a Sink that keeps "level: message" lines.
type sinkRec struct {
	mu   sync.Mutex
	msgs []string
}

func (s *sinkRec) Emit(a *Agent, node int32, level, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, level+": "+msg)
}

// harness ticks one agent of a compiled tree on virtual time: tick k
// happens at k*step.
type harness struct {
	tb   testing.TB
	tree *Tree
	a    *Agent
	rec  *recorder
	sink *sinkRec
	step int64 // ns
	now  int64
	// shadow ticks the fast path beside the agent (fastshadow_test.go).
	shadow *shadow
}

const ms = int64(1e6) // one millisecond in clock nanoseconds

func newHarness(tb testing.TB, root *NodeDef, opts ...specOpt) *harness {
	tb.Helper()
	return harnessFor(tb, compileTree(tb, root, opts...), 0)
}

// harnessFor makes agent id of t, with a probe, a recorder and a sink,
// ticking every 10ms.
func harnessFor(tb testing.TB, t *Tree, id int) *harness {
	h := &harness{tb: tb, tree: t, step: 10 * ms, sink: &sinkRec{}}
	h.a = NewAgent(t, id, 0)
	h.a.Env = &probe{tree: t, calls: make([]counts, t.Len())}
	h.a.Sink = h.sink
	h.rec = newRecorder(tb, t)
	h.a.SetObserver(h.rec)
	h.shadow = newShadow(t)
	return h
}

// tick advances the clock one step, ticks the agent and checks that no
// node stays open under a closed parent.
func (h *harness) tick() Status {
	h.tb.Helper()
	h.now += h.step
	if h.shadow != nil {
		h.shadow.before(h.a)
	}
	st := h.a.Tick(h.now)
	if h.shadow != nil {
		h.shadow.after(h.tb, h.a, h.now, st)
	}
	checkOpenUnderOpen(h.tb, h.a, st)
	return st
}

// checkOpenUnderOpen asserts the engine's invariant after a tick: every
// open node's parent is open, and nothing is open once the root completed.
func checkOpenUnderOpen(tb testing.TB, a *Agent, root Status) {
	tb.Helper()
	t := a.Tree()
	for i := 0; i < t.Len(); i++ {
		n := t.Node(i)
		if !a.IsOpen(n.Index) {
			continue
		}
		if root != Running {
			tb.Errorf("tick %d: root returned %v but node %d (%s) is still open", a.Ticks(), root, i, n.Name)
		}
		if n.Parent >= 0 && !a.IsOpen(n.Parent) {
			tb.Errorf("tick %d: node %d (%s) is open under closed parent %d", a.Ticks(), i, n.Name, n.Parent)
		}
	}
}

// run ticks n times and returns the root statuses as letters.
func (h *harness) run(n int) string {
	h.tb.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = h.tick().Letter()
	}
	return string(b)
}

// idx returns the index of the node with the given name; the name must be
// unique.
func (h *harness) idx(name string) int32 {
	h.tb.Helper()
	return nodeNamed(h.tb, h.tree, name)
}

func nodeNamed(tb testing.TB, t *Tree, name string) int32 {
	tb.Helper()
	found := int32(-1)
	for i := 0; i < t.Len(); i++ {
		if t.Node(i).Name == name {
			if found >= 0 {
				tb.Fatalf("node name %q is not unique", name)
			}
			found = int32(i)
		}
	}
	if found < 0 {
		tb.Fatalf("no node named %q", name)
	}
	return found
}

// counts returns the events the recorder saw for a node.
func (h *harness) counts(name string) counts { return h.rec.counts[h.idx(name)] }

// calls returns the lifecycle calls a Scripted node counted.
func (h *harness) calls(name string) counts { return h.a.Env.(*probe).calls[h.idx(name)] }

// checkProbe asserts that every Scripted node's own counts of Open, Tick,
// Close and Halt calls match the events the observer saw.
func (h *harness) checkProbe() {
	h.tb.Helper()
	p := h.a.Env.(*probe)
	for i := 0; i < h.tree.Len(); i++ {
		n := h.tree.Node(i)
		if n.Type == nil || n.Type.Name != "Scripted" {
			continue
		}
		if got, seen := p.calls[i], h.rec.counts[i]; got != seen {
			h.tb.Errorf("%s: behavior calls %v, observer saw %v", h.rec.name(int32(i)), got, seen)
		}
	}
}

// tickCase is one row of a node type's table test: a tree, the root
// statuses expected on successive ticks and the lifecycle counts of named
// nodes after the last tick.
type tickCase struct {
	name   string
	tree   *NodeDef
	bb     kv
	stepMs int64 // between ticks; default 10
	want   string
	counts map[string]counts
}

func runTickCases(t *testing.T, cases []tickCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.tree, withBB(tc.bb))
			if tc.stepMs > 0 {
				h.step = tc.stepMs * ms
			}
			if got := h.run(len(tc.want)); got != tc.want {
				t.Errorf("root statuses %s, want %s\nevents:\n  %s", got, tc.want, strings.Join(h.rec.lines(), "\n  "))
			}
			for name, want := range tc.counts {
				if got := h.counts(name); got != want {
					t.Errorf("%s: %v, want %v", name, got, want)
				}
			}
			h.checkProbe()
		})
	}
}

// eqLines compares event lines and prints both in full on a mismatch.
func eqLines(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		tb.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// wantProblems asserts that ps holds exactly the given problems, each
// given as its path and a part of its message, in any order.
func wantProblems(tb testing.TB, ps Problems, pathMsg ...string) {
	tb.Helper()
	used := make([]bool, len(ps))
	for i := 0; i+1 < len(pathMsg); i += 2 {
		found := false
		for j, p := range ps {
			if !used[j] && p.Path == pathMsg[i] && strings.Contains(p.Message, pathMsg[i+1]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			tb.Errorf("missing problem %s: ...%s...", pathMsg[i], pathMsg[i+1])
		}
	}
	for j, p := range ps {
		if !used[j] {
			tb.Errorf("unexpected problem %s (code %s)", p, p.Code)
		}
	}
}

// fleet ticks several agents of one tree on a shared virtual clock, in a
// fixed order (agent 0 first unless told otherwise), each with its own
// probe, recorder and sink. An agent whose root completed is not ticked
// again (as botd sim does).
type fleet struct {
	tb   testing.TB
	tree *Tree
	hs   []*harness
	done []bool
	got  []string // root statuses per agent, '.' for ticks it sat out
	now  int64
	step int64
}

func newFleet(tb testing.TB, t *Tree, n int) *fleet {
	f := &fleet{tb: tb, tree: t, step: 10 * ms, done: make([]bool, n), got: make([]string, n)}
	for i := 0; i < n; i++ {
		f.hs = append(f.hs, harnessFor(tb, t, i))
	}
	return f
}

// tick advances the clock and ticks the agents in the given order (all,
// by id, when none is given).
func (f *fleet) tick(order ...int) {
	f.tb.Helper()
	f.now += f.step
	if len(order) == 0 {
		for i := range f.hs {
			order = append(order, i)
		}
	}
	ticked := make([]bool, len(f.hs))
	for _, i := range order {
		h := f.hs[i]
		if f.done[i] {
			continue
		}
		h.now = f.now
		st := h.a.Tick(f.now)
		checkOpenUnderOpen(f.tb, h.a, st)
		f.got[i] += string(st.Letter())
		ticked[i] = true
		if st != Running {
			f.done[i] = true
		}
	}
	for i, t := range ticked {
		if !t {
			f.got[i] += "."
		}
	}
}

// run ticks n times in id order.
func (f *fleet) run(n int) {
	f.tb.Helper()
	for k := 0; k < n; k++ {
		f.tick()
	}
}

// want asserts every agent's root statuses so far.
func (f *fleet) want(statuses ...string) {
	f.tb.Helper()
	for i, w := range statuses {
		if f.got[i] != w {
			f.tb.Errorf("agent %d: root statuses %s, want %s", i, f.got[i], w)
		}
	}
}

// set writes a number (or a boolean) to agent i's blackboard.
func (f *fleet) set(i int, key string, v any) {
	f.tb.Helper()
	s, ok := f.tree.Slot(key)
	if !ok {
		f.tb.Fatalf("no key %q", key)
	}
	f.hs[i].a.BB.Set(s, ValueOf(v))
}

// errSink records the error events by node.
type errSink struct {
	mu   sync.Mutex
	msgs map[int32][]string
}

func (s *errSink) Emit(a *Agent, node int32, level, msg string) {
	if level != "error" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.msgs == nil {
		s.msgs = map[int32][]string{}
	}
	s.msgs[node] = append(s.msgs[node], msg)
}

// loopRecord is an Observer-free way to see what a loop wrote: a leaf
// that appends the value of "val" to the agent's probe.
var recordType = NodeType{
	Name: "Record", Kind: Leaf,
	Params: []Param{{Name: "key", Type: TKey, Required: true}, {Name: "status", Type: TString}},
	New: func(b *Builder) Behavior {
		st := Success
		if v, ok := b.Raw("status"); ok && v == "F" {
			st = Failure
		}
		return record{key: b.KeyParam("key"), st: st}
	},
}

type record struct {
	key Slot
	st  Status
}

type recorded struct{ values []any }

func (r record) Tick(a *Agent, n *Node) Status {
	if rec, ok := a.Env.(*recorded); ok {
		rec.values = append(rec.values, a.BB.Get(r.key).Interface())
	}
	return r.st
}

// skipperType is a leaf that returns SKIPPED (as BT.CPP's nodes with a
// skip_if may: bt/btcpp has them).
var skipperType = NodeType{
	Name: "Skipper", Kind: Leaf,
	New: func(*Builder) Behavior { return skipper{} },
}

type skipper struct{}

func (skipper) Tick(*Agent, *Node) Status { return Skipped }
func (skipper) MaySkip() bool             { return true }
