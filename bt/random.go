package bt

import "math"

var randomSequenceType = NodeType{
	Name: "RandomSequence", KeepsProgress: true, Kind: Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) from the agent's random stream when opened, keeps it until closed, and behaves as MemSequence over that order.",
	Params: []Param{{Name: "weights", Type: TNumberList, Min: Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *Builder) Behavior { return newRandom(b, Success) },
}

var randomPriorityType = NodeType{
	Name: "RandomPriority", KeepsProgress: true, Aliases: []string{"RandomSelector", "RandomFallback"}, Kind: Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) when opened and behaves as MemPriority over that order.",
	Params: []Param{{Name: "weights", Type: TNumberList, Min: Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *Builder) Behavior { return newRandom(b, Failure) },
}

// maxRandomChildren bounds the children of a random composite so drawing
// an order needs no allocation.
const maxRandomChildren = 256

type random struct {
	weights []float64 // nil: equal weights
	cont    Status    // the status that moves on to the next child
	pos     Mem[int]  // the position in the drawn order to resume at
	// order is the drawn order: the child at each position.
	order MemSlice[uint8]
}

var _ Opener = (*random)(nil)

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
	r.pos = Reserve[int](b)
	r.order = ReserveSlice[uint8](b, n)
	return r
}

func (r *random) Open(a *Agent, n *Node) {
	*r.pos.Of(a, n) = 0
	order := r.order.Of(a, n)
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
		order[pos] = uint8(pick)
	}
}

func (r *random) weight(i int) float64 {
	if r.weights == nil || i >= len(r.weights) {
		return 1
	}
	return math.Max(r.weights[i], 0)
}

func (r *random) Tick(a *Agent, n *Node) Status {
	pos, order := r.pos.Of(a, n), r.order.Of(a, n)
	for i := *pos; i < len(n.Children); i++ {
		if st := a.Exec(n.Children[order[i]]); st != r.cont {
			*pos = i
			return st
		}
	}
	return r.cont
}
