package bt

var tryCatchType = NodeType{
	Name: "TryCatch", Kind: Composite, MinChildren: 2, MaxChildren: -1, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP 4: ticks the children but the last (the try block) in order, resuming at the running one, as a " +
		"Sequence; SUCCESS when they all succeed. When one fails, the last child (the catch block) runs at once, until it completes, " +
		"and the node returns FAILURE whatever the catch returned. With `catch_on_halt`, halting the node while the try block runs " +
		"ticks the catch block once (halted at once if it would run on). An ERROR is passed on, without running the catch.",
	Params: []Param{{Name: "catch_on_halt", Type: TBool, Default: false, Doc: "run the catch block once when halted in the try block"}},
	New: func(b *Builder) Behavior {
		t := &tryCatch{mem: Reserve[tryMem](b)}
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
	mem    Mem[tryMem]
	onHalt bool
}

type tryMem struct {
	at, skipped int
	inCatch     bool
}

var (
	_ Opener = (*tryCatch)(nil)
	_ Halter = (*tryCatch)(nil)
)

func (t *tryCatch) Open(a *Agent, n *Node) { *t.mem.Of(a, n) = tryMem{} }

func (t *tryCatch) Tick(a *Agent, n *Node) Status {
	m := t.mem.Of(a, n)
	last := len(n.Children) - 1
	for !m.inCatch && m.at < last {
		switch st := a.Exec(n.Children[m.at]); st {
		case Success:
			m.at++
		case Skipped:
			m.at++
			m.skipped++
		case Failure:
			m.inCatch = true
		default: // RUNNING, ERROR
			return st
		}
	}
	if !m.inCatch {
		if m.skipped == last {
			return Skipped
		}
		return Success
	}
	switch st := a.Exec(n.Children[last]); st {
	case Running, Error:
		return st
	}
	return Failure
}

// Halt runs the catch block once when the node is halted in its try
// block with catch_on_halt (the try block is already halted: the engine
// halts the deepest nodes first).
func (t *tryCatch) Halt(a *Agent, n *Node) {
	m := t.mem.Of(a, n)
	if !t.onHalt || m.inCatch {
		return
	}
	c := n.Children[len(n.Children)-1]
	if a.Exec(c) == Running {
		a.haltRange(c, a.nodes[c].End)
	}
}
