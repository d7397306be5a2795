package nav2

import "github.com/botd-project/botd/bt"

var singleTriggerType = bt.NodeType{
	Name: "SingleTrigger", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2: runs the child once, until it completes, and returns its status; after that returns FAILURE without ticking " +
		"it until it starts afresh (after a halt, or when its parent restarted).",
	New: func(b *bt.Builder) bt.Behavior { return &singleTrigger{mem: bt.Reserve[singleMem](b)} },
}

type singleTrigger struct{ mem bt.Mem[singleMem] }

type singleMem struct {
	held bt.HeldMem
	done bool
}

func (s *singleTrigger) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := s.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		m.done = false
	}
	if m.done {
		return bt.Failure
	}
	st := a.Exec(n.Children[0])
	if st != bt.Running {
		m.done = true
	}
	return st
}
