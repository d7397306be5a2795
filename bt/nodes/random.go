package nodes

import (
	"math"

	"github.com/botd-project/botd/bt"
)

var randomSequenceType = bt.NodeType{
	Name: "RandomSequence", KeepsProgress: true, Kind: bt.Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) from the agent's random stream when opened, keeps it until closed, and behaves as MemSequence over that order.",
	Params: []bt.Param{{Name: "weights", Type: bt.TNumberList, Min: bt.Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *bt.Builder) bt.Behavior { return newRandom(b, bt.Success) },
}

var randomPriorityType = bt.NodeType{
	Name: "RandomPriority", KeepsProgress: true, Aliases: []string{"RandomSelector", "RandomFallback"}, Kind: bt.Composite,
	Doc:    "Draws an order of the children (weighted, without replacement) when opened and behaves as MemPriority over that order.",
	Params: []bt.Param{{Name: "weights", Type: bt.TNumberList, Min: bt.Float(0), Doc: "one positive weight per child; default: equal"}},
	New:    func(b *bt.Builder) bt.Behavior { return newRandom(b, bt.Failure) },
}

// maxRandomChildren bounds the children of a random composite so drawing
// an order needs no allocation.
const maxRandomChildren = 256

type random struct {
	weights []float64   // nil: equal weights
	cont    bt.Status   // the status that moves on to the next child
	pos     bt.Mem[int] // the position in the drawn order to resume at
	// order is the drawn order: the child at each position.
	order bt.MemSlice[uint8]
}

var _ bt.Opener = (*random)(nil)

func newRandom(b *bt.Builder, cont bt.Status) bt.Behavior {
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
			f, _ := bt.AsNumber(e)
			if f <= 0 {
				b.Errorf("weights", "weights must be positive, got %v", f)
			}
			r.weights = append(r.weights, f)
		}
	}
	r.pos = bt.Reserve[int](b)
	r.order = bt.ReserveSlice[uint8](b, n)
	return r
}

func (r *random) Open(a *bt.Agent, n *bt.Node) {
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

func (r *random) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	pos, order := r.pos.Of(a, n), r.order.Of(a, n)
	for i := *pos; i < len(n.Children); i++ {
		if st := a.Exec(n.Children[order[i]]); st != r.cont {
			*pos = i
			return st
		}
	}
	return r.cont
}
