package btcpp

import "github.com/botd-project/botd/bt"

var tryCatchType = bt.NodeType{
	Name: "TryCatch", Kind: bt.Composite, MinChildren: 2, MaxChildren: -1, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP 4: ticks the children but the last (the try block) in order, resuming at the running one, as a " +
		"Sequence; SUCCESS when they all succeed. When one fails, the last child (the catch block) runs at once, until it completes, " +
		"and the node returns FAILURE whatever the catch returned. With `catch_on_halt`, halting the node while the try block runs " +
		"ticks the catch block once (halted at once if it would run on). An ERROR is passed on, without running the catch.",
	Params: []bt.Param{{Name: "catch_on_halt", Type: bt.TBool, Default: false, Doc: "run the catch block once when halted in the try block"}},
	New: func(b *bt.Builder) bt.Behavior {
		t := &tryCatch{mem: bt.Reserve[tryMem](b)}
		if raw, ok := b.Raw("catch_on_halt"); ok {
			var isBool bool
			if t.onHalt, isBool = raw.(bool); !isBool {
				b.Errorf("catch_on_halt", "want true or false (a blackboard key is not read here)")
			}
		}
		return t
	},
}

type tryCatch struct {
	mem    bt.Mem[tryMem]
	onHalt bool
}

type tryMem struct {
	at, skipped int
	inCatch     bool
}

var (
	_ bt.Opener = (*tryCatch)(nil)
	_ bt.Halter = (*tryCatch)(nil)
)

func (t *tryCatch) Open(a *bt.Agent, n *bt.Node) { *t.mem.Of(a, n) = tryMem{} }

func (t *tryCatch) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	last := len(n.Children) - 1
	for !m.inCatch && m.at < last {
		switch st := a.Exec(n.Children[m.at]); st {
		case bt.Success:
			m.at++
		case bt.Skipped:
			m.at++
			m.skipped++
		case bt.Failure:
			m.inCatch = true
		default: // RUNNING, ERROR
			return st
		}
	}
	if !m.inCatch {
		if m.skipped == last {
			return bt.Skipped
		}
		return bt.Success
	}
	switch st := a.Exec(n.Children[last]); st {
	case bt.Running, bt.Error:
		return st
	}
	return bt.Failure
}

// Halt runs the catch block once when the node is halted in its try
// block with catch_on_halt (the try block is already halted: the engine
// halts the deepest nodes first).
func (t *tryCatch) Halt(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	if !t.onHalt || m.inCatch {
		return
	}
	c := n.Children[len(n.Children)-1]
	if a.Exec(c) == bt.Running {
		a.HaltSubtree(c)
	}
}
