// Package bttest is the test kit of the behavior-tree engine's node
// catalogs: the Scripted test leaf, a probe that counts lifecycle calls
// per node, a recording Observer that checks the lifecycle rules on every
// event, a harness that compiles a tree from a compact NodeDef literal and
// ticks one agent on virtual time (checking the fast path against the
// general path on every tick), table tests over it, and a fleet of agents.
// Imported by tests only.
package bttest

import (
	"slices"

	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/bt"
)

// This file holds what the node tests share: the Scripted test leaf, a
// Probe that Counts its lifecycle calls per node per agent, a recording
// Observer that also checks the lifecycle rules on every event, and a
// Harness that compiles a tree from a compact NodeDef literal and ticks
// one agent on virtual time.

// KV is a parameter map literal.
type KV = map[string]any

// ND builds a node definition.
func ND(typ, name string, params KV, children ...*bt.NodeDef) *bt.NodeDef {
	return &bt.NodeDef{Type: typ, Name: name, Params: params, Children: children}
}

// SC builds a Scripted leaf driven by its activations (see ScriptedType).
func SC(name, statuses string) *bt.NodeDef { return ND("Scripted", name, KV{"statuses": statuses}) }

// TL builds a Scripted leaf driven by the agent's tick number (see
// ScriptedType).
func TL(name, timeline string) *bt.NodeDef { return ND("Scripted", name, KV{"timeline": timeline}) }

// Counts is how often a node was opened, ticked, closed and halted. It is
// an alias of a struct literal type, so that a test's unkeyed literals
// ({1, 2, 1, 0}: open, tick, close, halt) are its own.
type Counts = struct{ Open, Tick, Close, Halt int }

// ScriptedType is the test leaf "Scripted" ("Script" is taken: it is an
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
var ScriptedType = bt.NodeType{
	Name: "Scripted", Kind: bt.Leaf,
	Params: []bt.Param{
		{Name: "statuses", Type: bt.TString},
		{Name: "timeline", Type: bt.TString},
	},
	New: newScripted,
}

type scripted struct {
	segments []string // per activation
	timeline string
	mem      bt.Mem[scriptedMem]
}

var (
	_ bt.Opener = scripted{}
	_ bt.Closer = scripted{}
	_ bt.Halter = scripted{}
)

// scriptedMem is a Scripted leaf's per-agent memory.
type scriptedMem struct {
	ticks       int // in this activation
	activations int // so far
}

func newScripted(b *bt.Builder) bt.Behavior {
	s := scripted{mem: bt.Reserve[scriptedMem](b)}
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

// Probe is an agent's Env in tests: the Scripted leaves count their
// lifecycle calls in it, per node. Child agents (DynamicSubTree) share
// their parent's Env, so the nodes of other trees are counted apart.
type Probe struct {
	tree  *bt.Tree
	calls []Counts
	other map[*bt.Tree][]Counts
}

func (s scripted) Calls(a *bt.Agent, n *bt.Node) *Counts {
	p, ok := a.Env.(*Probe)
	if !ok {
		return new(Counts)
	}
	if p.tree == nil || a.Tree() == p.tree {
		return &p.calls[n.Index]
	}
	if p.other == nil {
		p.other = map[*bt.Tree][]Counts{}
	}
	c := p.other[a.Tree()]
	if c == nil {
		c = make([]Counts, a.Tree().Len())
		p.other[a.Tree()] = c
	}
	return &c[n.Index]
}

// childCalls returns the lifecycle calls a Scripted node of another tree
// (a child tree) counted for this agent.
func (h *Harness) ChildCalls(t *bt.Tree, name string) Counts {
	h.TB.Helper()
	c := h.A.Env.(*Probe).other[t]
	if c == nil {
		return Counts{}
	}
	return c[NodeNamed(h.TB, t, name)]
}

func (s scripted) Open(a *bt.Agent, n *bt.Node) {
	m := s.mem.Of(a, n)
	m.ticks = 0
	m.activations++
	s.Calls(a, n).Open++
}

func (s scripted) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	s.Calls(a, n).Tick++
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
		return bt.Success
	case 'F':
		return bt.Failure
	case 'R':
		return bt.Running
	case 'P':
		panic("scripted panic")
	}
	return bt.Error
}

func (s scripted) Close(a *bt.Agent, n *bt.Node) { s.Calls(a, n).Close++ }
func (s scripted) Halt(a *bt.Agent, n *bt.Node)  { s.Calls(a, n).Halt++ }

// PanickyType is a composite whose Tick panics after ticking its children
// (a bug in a non-leaf node).
var PanickyType = bt.NodeType{
	Name: "Panicky", Kind: bt.Composite,
	New: func(*bt.Builder) bt.Behavior { return panicky{} },
}

type panicky struct{}

func (panicky) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	for _, c := range n.Children {
		a.Exec(c)
	}
	panic("composite bug")
}

// BadHaltType is a leaf that runs until halted and panics when it is (a
// driver that fails while stopping).
var BadHaltType = bt.NodeType{
	Name: "BadHalt", Kind: bt.Leaf,
	New: func(*bt.Builder) bt.Behavior { return badHalt{} },
}

type badHalt struct{}

func (badHalt) Open(*bt.Agent, *bt.Node)           {}
func (badHalt) Tick(*bt.Agent, *bt.Node) bt.Status { return bt.Running }
func (badHalt) Close(*bt.Agent, *bt.Node)          {}
func (badHalt) Halt(a *bt.Agent, n *bt.Node)       { panic("driver gone") }

// TurnType is a device-like leaf with a bounded parameter, as in the
// contract's validation example.
var TurnType = bt.NodeType{
	Name: "Turn", Kind: bt.Leaf,
	Params: []bt.Param{
		{Name: "angle_deg", Type: bt.TNumber, Required: true, Min: bt.Float(-180), Max: bt.Float(180), Unit: "deg"},
		{Name: "speed", Type: bt.TNumber, Min: bt.Float(0), Max: bt.Float(2)},
	},
	New: func(*bt.Builder) bt.Behavior { return running{} },
}

type running struct{}

func (running) Tick(*bt.Agent, *bt.Node) bt.Status { return bt.Running }

// NewRegistry makes the registry the kit compiles test trees with, before
// it adds its test node types (TestRegistry): a catalog's tests set it to
// one holding their catalog.
var NewRegistry = bt.NewRegistry

// TestRegistry is NewRegistry with the test node types added.
func TestRegistry() *bt.Registry {
	r := NewRegistry()
	r.Register(ScriptedType)
	r.Register(PanickyType)
	r.Register(TurnType)
	r.Register(BadHaltType)
	return r
}

// SpecOpt adjusts the spec a test tree is compiled from.
type SpecOpt func(*bt.Spec)

func WithBB(bb KV) SpecOpt { return func(s *bt.Spec) { s.Blackboard = bb } }

func WithSeed(seed uint64) SpecOpt { return func(s *bt.Spec) { s.Seed = seed } }

// WithKeys adds global keys that get a slot even when no node names them.
func WithKeys(keys ...string) SpecOpt { return func(s *bt.Spec) { s.Keys = append(s.Keys, keys...) } }

// WithTree adds a named tree (for SubTree).
func WithTree(name string, root *bt.NodeDef) SpecOpt {
	return func(s *bt.Spec) { s.Trees[name] = root }
}

func MainSpec(root *bt.NodeDef, opts ...SpecOpt) *bt.Spec {
	s := &bt.Spec{Trees: map[string]*bt.NodeDef{"main": root}, Main: "main"}
	for _, o := range opts {
		o(s)
	}
	return s
}

// CompileTree compiles root as the main tree; any problem fails the test.
func CompileTree(tb testing.TB, root *bt.NodeDef, opts ...SpecOpt) *bt.Tree {
	tb.Helper()
	t, err := TestRegistry().Compile(MainSpec(root, opts...))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	return t
}

// CompileProblems compiles a spec that must be refused and returns the
// problems.
func CompileProblems(tb testing.TB, spec *bt.Spec) bt.Problems {
	tb.Helper()
	t, err := TestRegistry().Compile(spec)
	if err == nil {
		tb.Fatalf("compile succeeded (%d nodes), want problems", t.Len())
	}
	ps, ok := err.(bt.Problems)
	if !ok {
		tb.Fatalf("compile error is %T, want Problems", err)
	}
	return ps
}

// NodeEvent is one lifecycle event seen by the Recorder.
type NodeEvent struct {
	Node   int32
	Event  bt.Event
	Status bt.Status
}

// Recorder is an Observer that collects every event in order, counts them
// per node and checks the lifecycle rules as they happen: a node opens
// only when closed, ticks only when open, closes only after a tick that
// did not return RUNNING, and neither closes nor is halted while a
// descendant is still open.
type Recorder struct {
	tb     testing.TB
	tree   *bt.Tree
	Events []NodeEvent
	Counts []Counts
	open   []bool
	last   []bt.Status
}

func NewRecorder(tb testing.TB, t *bt.Tree) *Recorder {
	return &Recorder{tb: tb, tree: t, Counts: make([]Counts, t.Len()), open: make([]bool, t.Len()), last: make([]bt.Status, t.Len())}
}

func (r *Recorder) OnNode(a *bt.Agent, node int32, ev bt.Event, st bt.Status) {
	r.Events = append(r.Events, NodeEvent{node, ev, st})
	c := &r.Counts[node]
	name := r.Name(node)
	switch ev {
	case bt.EventOpen:
		if r.open[node] {
			r.tb.Errorf("agent %d: %s opened while open", a.ID, name)
		}
		r.open[node] = true
		c.Open++
	case bt.EventTick:
		if !r.open[node] {
			r.tb.Errorf("agent %d: %s ticked while not open", a.ID, name)
		}
		r.last[node] = st
		c.Tick++
	case bt.EventClose, bt.EventHalt:
		if !r.open[node] {
			r.tb.Errorf("agent %d: %s %v while not open", a.ID, name, ev)
		}
		if ev == bt.EventClose && r.last[node] == bt.Running {
			r.tb.Errorf("agent %d: %s closed after a RUNNING tick", a.ID, name)
		}
		n := r.tree.Node(int(node))
		for j := node + 1; j < n.End; j++ {
			if r.open[j] {
				r.tb.Errorf("agent %d: %s %v while its descendant %s is open", a.ID, name, ev, r.Name(j))
			}
		}
		r.open[node] = false
		if ev == bt.EventClose {
			c.Close++
		} else {
			c.Halt++
		}
	}
}

func (r *Recorder) Name(i int32) string {
	if n := r.tree.Node(int(i)); n.Name != "" {
		return n.Name
	}
	return fmt.Sprintf("#%d", i)
}

// lines renders the events as "name open", "name tick STATUS", "name
// close", "name halt".
func (r *Recorder) Lines() []string {
	out := make([]string, len(r.Events))
	for i, e := range r.Events {
		out[i] = r.Name(e.Node) + " " + e.Event.String()
		if e.Event == bt.EventTick {
			out[i] += " " + e.Status.String()
		}
	}
	return out
}

// take returns the events rendered by lines and forgets them.
func (r *Recorder) Take() []string {
	l := r.Lines()
	r.Events = r.Events[:0]
	return l
}

// Only keeps the lines of the given events ("open", "halt", ...).
func Only(lines []string, events ...string) []string {
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

// SinkRec is a Sink that keeps "level: message" lines.
type SinkRec struct {
	mu   sync.Mutex
	Msgs []string
}

func (s *SinkRec) Emit(a *bt.Agent, node int32, level, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Msgs = append(s.Msgs, level+": "+msg)
}

// Harness ticks one agent of a compiled tree on virtual time: tick k
// happens at k*step.
type Harness struct {
	TB   testing.TB
	Tree *bt.Tree
	A    *bt.Agent
	Rec  *Recorder
	Sink *SinkRec
	Step int64 // ns
	Now  int64
	// shadow ticks the fast path beside the agent (see shadow).
	shadow *shadow
}

const Ms = int64(1e6) // one millisecond in clock nanoseconds

func NewHarness(tb testing.TB, root *bt.NodeDef, opts ...SpecOpt) *Harness {
	tb.Helper()
	return HarnessFor(tb, CompileTree(tb, root, opts...), 0)
}

// HarnessFor makes agent id of t, with a Probe, a Recorder and a sink,
// ticking every 10ms.
func HarnessFor(tb testing.TB, t *bt.Tree, id int) *Harness {
	h := &Harness{TB: tb, Tree: t, Step: 10 * Ms, Sink: &SinkRec{}}
	h.A = bt.NewAgent(t, id, 0)
	h.A.Env = &Probe{tree: t, calls: make([]Counts, t.Len())}
	h.A.Sink = h.Sink
	h.Rec = NewRecorder(tb, t)
	h.A.SetObserver(h.Rec)
	h.shadow = newShadow(t)
	return h
}

// tick advances the clock one step, ticks the agent and checks that no
// node stays open under a closed parent.
func (h *Harness) Tick() bt.Status {
	h.TB.Helper()
	h.Now += h.Step
	if h.shadow != nil {
		h.shadow.before(h.A)
	}
	st := h.A.Tick(h.Now)
	if h.shadow != nil {
		h.shadow.after(h.TB, h.A, h.Now, st)
	}
	CheckOpenUnderOpen(h.TB, h.A, st)
	return st
}

// CheckOpenUnderOpen asserts the engine's invariant after a tick: every
// open node's parent is open, and nothing is open once the root completed.
func CheckOpenUnderOpen(tb testing.TB, a *bt.Agent, root bt.Status) {
	tb.Helper()
	t := a.Tree()
	for i := 0; i < t.Len(); i++ {
		n := t.Node(i)
		if !a.IsOpen(n.Index) {
			continue
		}
		if root != bt.Running {
			tb.Errorf("tick %d: root returned %v but node %d (%s) is still open", a.Ticks(), root, i, n.Name)
		}
		if n.Parent >= 0 && !a.IsOpen(n.Parent) {
			tb.Errorf("tick %d: node %d (%s) is open under closed parent %d", a.Ticks(), i, n.Name, n.Parent)
		}
	}
}

// run ticks n times and returns the root statuses as letters.
func (h *Harness) Run(n int) string {
	h.TB.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = h.Tick().Letter()
	}
	return string(b)
}

// idx returns the index of the node with the given name; the name must be
// unique.
func (h *Harness) Idx(name string) int32 {
	h.TB.Helper()
	return NodeNamed(h.TB, h.Tree, name)
}

func NodeNamed(tb testing.TB, t *bt.Tree, name string) int32 {
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

// Counts returns the events the Recorder saw for a node.
func (h *Harness) Counts(name string) Counts { return h.Rec.Counts[h.Idx(name)] }

// calls returns the lifecycle calls a Scripted node counted.
func (h *Harness) Calls(name string) Counts { return h.A.Env.(*Probe).calls[h.Idx(name)] }

// checkProbe asserts that every Scripted node's own Counts of Open, Tick,
// Close and Halt calls match the events the observer saw.
func (h *Harness) CheckProbe() {
	h.TB.Helper()
	p := h.A.Env.(*Probe)
	for i := 0; i < h.Tree.Len(); i++ {
		n := h.Tree.Node(i)
		if n.Type == nil || n.Type.Name != "Scripted" {
			continue
		}
		if got, seen := p.calls[i], h.Rec.Counts[i]; got != seen {
			h.TB.Errorf("%s: behavior calls %v, observer saw %v", h.Rec.Name(int32(i)), got, seen)
		}
	}
}

// TickCase is one row of a node type's table test: a tree, the root
// statuses expected on successive ticks and the lifecycle Counts of named
// nodes after the last tick.
type TickCase struct {
	Name   string
	Tree   *bt.NodeDef
	BB     KV
	StepMs int64 // between ticks; default 10
	Want   string
	Counts map[string]Counts
}

func RunTickCases(t *testing.T, cases []TickCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			h := NewHarness(t, tc.Tree, WithBB(tc.BB))
			if tc.StepMs > 0 {
				h.Step = tc.StepMs * Ms
			}
			if got := h.Run(len(tc.Want)); got != tc.Want {
				t.Errorf("root statuses %s, want %s\nevents:\n  %s", got, tc.Want, strings.Join(h.Rec.Lines(), "\n  "))
			}
			for name, want := range tc.Counts {
				if got := h.Counts(name); got != want {
					t.Errorf("%s: %v, want %v", name, got, want)
				}
			}
			h.CheckProbe()
		})
	}
}

// EqLines compares event lines and prints both in full on a mismatch.
func EqLines(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		tb.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// WantProblems asserts that ps holds exactly the given problems, each
// given as its path and a part of its message, in any order.
func WantProblems(tb testing.TB, ps bt.Problems, pathMsg ...string) {
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

// Fleet ticks several agents of one tree on a shared virtual clock, in a
// fixed order (agent 0 first unless told otherwise), each with its own
// Probe, Recorder and sink. An agent whose root completed is not ticked
// again (as botd sim does).
type Fleet struct {
	TB   testing.TB
	Tree *bt.Tree
	HS   []*Harness
	Done []bool
	Got  []string // root statuses per agent, '.' for ticks it sat out
	Now  int64
	Step int64
}

func NewFleet(tb testing.TB, t *bt.Tree, n int) *Fleet {
	f := &Fleet{TB: tb, Tree: t, Step: 10 * Ms, Done: make([]bool, n), Got: make([]string, n)}
	for i := 0; i < n; i++ {
		f.HS = append(f.HS, HarnessFor(tb, t, i))
	}
	return f
}

// tick advances the clock and ticks the agents in the given order (all,
// by id, when none is given).
func (f *Fleet) Tick(order ...int) {
	f.TB.Helper()
	f.Now += f.Step
	if len(order) == 0 {
		for i := range f.HS {
			order = append(order, i)
		}
	}
	ticked := make([]bool, len(f.HS))
	for _, i := range order {
		h := f.HS[i]
		if f.Done[i] {
			continue
		}
		h.Now = f.Now
		st := h.A.Tick(f.Now)
		CheckOpenUnderOpen(f.TB, h.A, st)
		f.Got[i] += string(st.Letter())
		ticked[i] = true
		if st != bt.Running {
			f.Done[i] = true
		}
	}
	for i, t := range ticked {
		if !t {
			f.Got[i] += "."
		}
	}
}

// run ticks n times in id order.
func (f *Fleet) Run(n int) {
	f.TB.Helper()
	for k := 0; k < n; k++ {
		f.Tick()
	}
}

// want asserts every agent's root statuses so far.
func (f *Fleet) Want(statuses ...string) {
	f.TB.Helper()
	for i, w := range statuses {
		if f.Got[i] != w {
			f.TB.Errorf("agent %d: root statuses %s, want %s", i, f.Got[i], w)
		}
	}
}

// set writes a number (or a boolean) to agent i's blackboard.
func (f *Fleet) Set(i int, key string, v any) {
	f.TB.Helper()
	s, ok := f.Tree.Slot(key)
	if !ok {
		f.TB.Fatalf("no key %q", key)
	}
	f.HS[i].A.BB.Set(s, bt.ValueOf(v))
}

// number reads a number from agent i's blackboard (NaN when unset).
func (f *Fleet) Number(i int, key string) float64 {
	f.TB.Helper()
	s, ok := f.Tree.Slot(key)
	if !ok {
		f.TB.Fatalf("no key %q", key)
	}
	v, ok := f.HS[i].A.BB.Number(s)
	if !ok {
		return math.NaN()
	}
	return v
}

// shadow checks the fast path against the general path in every harness
// test. The harness's agent has an observer, so it takes the general path
// (the one the traces record); before each of its ticks the shadow copies
// its state, and after it ticks a second agent of the same tree, which has
// no observer, on the fast path from that state at the same time. The two
// must end in the same state: the same root status, memory block (node
// states, open bits, node memory, blackboard), string values, lifecycle
// calls of the Scripted leaves and messages. Trees the engine keeps
// apart (Tree.Shadowable) have no shadow.
type shadow struct {
	a     *bt.Agent
	saved *bt.Agent // the harness's agent before the tick
	probe *Probe
	sink  *SinkRec
	calls []Counts
	msgs  int
}

func newShadow(t *bt.Tree) *shadow {
	if !t.Shadowable() {
		return nil
	}
	s := &shadow{a: bt.NewAgent(t, 0, 0), saved: bt.NewAgent(t, 0, 0), probe: &Probe{tree: t, calls: make([]Counts, t.Len())}, sink: &SinkRec{}}
	s.a.Env, s.a.Sink = s.probe, s.sink
	return s
}

// before records the state of a, about to be ticked.
func (s *shadow) before(a *bt.Agent) {
	s.saved.CopyStateFrom(a)
	p, _ := a.Env.(*Probe)
	s.calls = nil
	if p != nil {
		s.calls = append([]Counts(nil), p.calls...)
	}
	s.msgs = -1
	if rs, ok := a.Sink.(*SinkRec); ok {
		rs.mu.Lock()
		s.msgs = len(rs.Msgs)
		rs.mu.Unlock()
	}
}

// after ticks the shadow agent from the recorded state at now and compares
// it with a, which returned st.
func (s *shadow) after(tb testing.TB, a *bt.Agent, now int64, st bt.Status) {
	tb.Helper()
	if a.HasChildAgents() || s.calls == nil {
		return
	}
	f := s.a
	f.CopyStateFrom(s.saved)
	copy(s.probe.calls, s.calls)
	s.sink.Msgs = s.sink.Msgs[:0]
	if !f.FastPath() {
		tb.Fatal("the shadow agent is on the general path")
	}
	got := f.Tick(now)
	where := fmt.Sprintf("tick %d, fast path against general path", a.Ticks())
	if got != st {
		tb.Errorf("%s: root %v, want %v", where, got, st)
	}
	if d := f.StateDiff(a); d != "" {
		tb.Errorf("%s: %s", where, d)
	}
	if p, _ := a.Env.(*Probe); p != nil && !slices.Equal(s.probe.calls, p.calls) {
		tb.Errorf("%s: lifecycle calls %v, want %v", where, s.probe.calls, p.calls)
	}
	if rs, ok := a.Sink.(*SinkRec); ok && s.msgs >= 0 {
		rs.mu.Lock()
		want := slices.Clone(rs.Msgs[s.msgs:])
		rs.mu.Unlock()
		if !slices.Equal(s.sink.Msgs, want) {
			tb.Errorf("%s: messages %q, want %q", where, s.sink.Msgs, want)
		}
	}
}
