package bt

import (
	"strings"
	"testing"
)

type pairMem struct {
	a, b int64
	flag bool
}

// memProbe reserves a pairMem and three bytes, and records the handles.
type memProbe struct {
	pair  Mem[pairMem]
	bytes MemSlice[uint8]
}

func (memProbe) Tick(*Agent, *Node) Status { return Success }

func memProbeRegistry() *Registry {
	r := testRegistry()
	r.Register(NodeType{Name: "MemProbe", Kind: Leaf, New: func(b *Builder) Behavior {
		return memProbe{pair: Reserve[pairMem](b), bytes: ReserveSlice[uint8](b, 3)}
	}})
	return r
}

// Typed memory is each node's and each agent's own, zero at first and
// after Reset.
func TestTypedMemory(t *testing.T) {
	tree, err := memProbeRegistry().Compile(mainSpec(nd("Sequence", "", nil, nd("MemProbe", "p", nil), nd("MemProbe", "q", nil))))
	if err != nil {
		t.Fatal(err)
	}
	p, q := tree.Node(1), tree.Node(2)
	if w := int(p.memN); w != 3+1 {
		t.Errorf("a MemProbe reserves %d words, want 4 (3 for pairMem, 1 for 3 bytes)", w)
	}
	a1, a2 := NewAgent(tree, 1, 0), NewAgent(tree, 2, 0)
	mp := p.b.(memProbe)
	mq := q.b.(memProbe)
	mp.pair.Of(a1, p).a, mp.pair.Of(a1, p).flag = 7, true
	mp.bytes.Of(a1, p)[2] = 9
	mq.pair.Of(a1, q).b = 8
	if got := *mp.pair.Of(a1, p); got != (pairMem{a: 7, flag: true}) {
		t.Errorf("p of agent 1: %+v", got)
	}
	if got := *mq.pair.Of(a1, q); got != (pairMem{b: 8}) {
		t.Errorf("q of agent 1: %+v", got)
	}
	if got := mp.bytes.Of(a1, p); len(got) != 3 || got[2] != 9 || got[0] != 0 {
		t.Errorf("bytes of p: %v", got)
	}
	if got := *mp.pair.Of(a2, p); got != (pairMem{}) {
		t.Errorf("agent 2 sees agent 1's memory: %+v", got)
	}
	a1.Reset(0)
	if got := *mp.pair.Of(a1, p); got != (pairMem{}) || mp.bytes.Of(a1, p)[2] != 0 {
		t.Errorf("after Reset: %+v %v", got, mp.bytes.Of(a1, p))
	}
	if n := testing.AllocsPerRun(100, func() { mp.pair.Of(a1, p).a++; mp.bytes.Of(a1, p)[0]++ }); n != 0 {
		t.Errorf("Of allocates %v times", n)
	}
}

// Memory that could hold a pointer, or nothing, is refused when the node is
// built.
func TestTypedMemoryRefusesPointers(t *testing.T) {
	type withString struct {
		N    int
		Name string
	}
	for _, tc := range []struct {
		name    string
		reserve func(b *Builder)
		want    string
	}{
		{"pointer", func(b *Builder) { Reserve[*int](b) }, "ptr may hold a pointer"},
		{"string field", func(b *Builder) { Reserve[withString](b) }, "field Name: a string may hold a pointer"},
		{"slice", func(b *Builder) { ReserveSlice[[]int](b, 2) }, "slice may hold a pointer"},
		{"empty", func(b *Builder) { Reserve[struct{}](b) }, "it is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewEmptyRegistry()
			r.Register(NodeType{Name: "Bad", Kind: Leaf, New: func(b *Builder) Behavior { tc.reserve(b); return constant(Success) }})
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want ...%s...", msg, tc.want)
				}
			}()
			r.Compile(mainSpec(nd("Bad", "", nil)))
		})
	}
}
