package peerbench

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	gobt "github.com/joeycumines/go-behaviortree"
)

// GoBTAgent is one agent in go-behaviortree: its own tree of closures over
// its own values (the "pointer variant" of BENCH-TREE.md: every leaf holds
// a *float64 into Vals).
type GoBTAgent struct {
	Vals []float64
	Root gobt.Node
}

// NewGoBTAgent builds the reference tree in go-behaviortree for one agent.
// With visits non-nil every node's tick increments *visits (for the parity
// test only: the benchmarks build the tree without it).
//
// The composites map to the library's own: Priority is gobt.Selector and
// Sequence gobt.Sequence (both restart at the first child every tick), and
// MemSequence is gobt.Memorize(gobt.Sequence), which remembers the status of
// the children that completed until the sequence itself completes, so a
// tick resumes at the RUNNING child.
func (r *Reference) NewGoBTAgent(visits *int) (*GoBTAgent, error) {
	a := &GoBTAgent{Vals: append([]float64(nil), r.Init...)}
	root, err := r.goBTNode(r.Root, a.Vals, visits)
	if err != nil {
		return nil, err
	}
	a.Root = root
	return a, nil
}

func (r *Reference) goBTNode(d *bt.NodeDef, vals []float64, visits *int) (gobt.Node, error) {
	var tick gobt.Tick
	switch d.Type {
	case "Priority":
		tick = gobt.Selector
	case "Sequence":
		tick = gobt.Sequence
	case "MemSequence":
		tick = gobt.Memorize(gobt.Sequence)
	case "Check":
		c, err := checkOf(d)
		if err != nil {
			return nil, err
		}
		p, op, k := &vals[r.Slot[c.key]], c.op, c.value
		tick = func([]gobt.Node) (gobt.Status, error) {
			if compare(op, *p, k) {
				return gobt.Success, nil
			}
			return gobt.Failure, nil
		}
	case "Countdown":
		c, err := countdownOf(d)
		if err != nil {
			return nil, err
		}
		p, reset := &vals[r.Slot[c.key]], c.reset
		tick = func([]gobt.Node) (gobt.Status, error) {
			if v := *p - 1; v > 0 {
				*p = v
				return gobt.Running, nil
			}
			*p = reset
			return gobt.Success, nil
		}
	default:
		return nil, fmt.Errorf("go-behaviortree: node type %s is not mapped", d.Type)
	}
	if visits != nil {
		inner := tick
		tick = func(children []gobt.Node) (gobt.Status, error) {
			*visits++
			return inner(children)
		}
	}
	if len(d.Children) == 0 {
		return gobt.New(tick), nil
	}
	children := make([]gobt.Node, len(d.Children))
	for i, c := range d.Children {
		n, err := r.goBTNode(c, vals, visits)
		if err != nil {
			return nil, err
		}
		children[i] = n
	}
	return gobt.New(tick, children...), nil
}

// Tick ticks the agent once; an error from the tree is bt.Error (none of
// the reference tree's nodes returns one).
func (a *GoBTAgent) Tick() bt.Status {
	st, err := a.Root.Tick()
	if err != nil {
		return bt.Error
	}
	switch st {
	case gobt.Running:
		return bt.Running
	case gobt.Success:
		return bt.Success
	default:
		return bt.Failure
	}
}
