package bt

import "math"

var randomSequenceType = NodeType{
	Name: "RandomSequence", Kind: Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) from the agent's random stream when opened, keeps it until closed, and behaves as MemSequence over that order.",
	Params: []Param{{Name: "weights", Type: TNumberList, Min: Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *Builder) Behavior { return newRandom(b, Success) },
}

var randomPriorityType = NodeType{
	Name: "RandomPriority", Aliases: []string{"RandomSelector", "RandomFallback"}, Kind: Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) when opened and behaves as MemPriority over that order.",
	Params: []Param{{Name: "weights", Type: TNumberList, Min: Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *Builder) Behavior { return newRandom(b, Failure) },
}

// maxRandomChildren bounds the children of a random composite so drawing
// an order needs no allocation.
const maxRandomChildren = 256

// random keeps the position in word 0 and the drawn order, one byte per
// child, in the following words.
type random struct {
	weights []float64 // nil: equal weights
	cont    Status    // the status that moves on to the next child
}

func newRandom(b *Builder, cont Status) Behavior {
	n := len(b.Children())
	r := &random{cont: cont}
	if n > maxRandomChildren {
		b.Errorf("", "a random composite takes at most %d children, got %d", maxRandomChildren, n)
	}
	if raw, ok := b.Raw("weights"); ok {
		l, _ := raw.([]any)
		if len(l) != n {
			b.Errorf("weights", "has %d weights for %d children", len(l), n)
		}
		for _, e := range l {
			f, _ := AsNumber(e)
			if f <= 0 {
				b.Errorf("weights", "weights must be positive, got %v", f)
			}
			r.weights = append(r.weights, f)
		}
	}
	b.Words(1 + (n+7)/8)
	return r
}

func (r *random) Open(a *Agent, n *Node) {
	m := a.Mem(n)
	m[0] = 0
	clear(m[1:])
	count := len(n.Children)
	var used [maxRandomChildren / 64]uint64
	for pos := 0; pos < count; pos++ {
		total := 0.0
		for i := 0; i < count; i++ {
			if used[i>>6]&(1<<(i&63)) == 0 {
				total += r.weight(i)
			}
		}
		x := float64(a.Rand()>>11) * (1.0 / (1 << 53)) * total
		pick := -1
		for i := 0; i < count; i++ {
			if used[i>>6]&(1<<(i&63)) != 0 {
				continue
			}
			pick = i
			if x -= r.weight(i); x < 0 {
				break
			}
		}
		used[pick>>6] |= 1 << (pick & 63)
		m[1+pos/8] |= uint64(pick) << (uint(pos%8) * 8)
	}
}

func (r *random) weight(i int) float64 {
	if r.weights == nil || i >= len(r.weights) {
		return 1
	}
	return math.Max(r.weights[i], 0)
}

func (r *random) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	for pos := int(m[0]); pos < len(n.Children); pos++ {
		child := int(m[1+pos/8] >> (uint(pos%8) * 8) & 0xff)
		if st := a.Exec(n.Children[child]); st != r.cont {
			m[0] = uint64(pos)
			return st
		}
	}
	return r.cont
}
