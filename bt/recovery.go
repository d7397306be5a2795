package bt

var recoveryType = NodeType{
	Name: "RecoveryNode", KeepsProgress: true, Aliases: []string{"Recovery"}, Kind: Composite, MinChildren: 2, MaxChildren: 2, ChildReset: ChildResetAlways,
	Doc: "As in Nav2: ticks the first child; when it fails, ticks the second (the recovery) and, if that succeeds, the first again, " +
		"up to `retries` times. SUCCESS when the first child succeeds; FAILURE when the recovery fails or the retries run out.",
	Params: []Param{{Name: "retries", Aliases: []string{"number_of_retries"}, Type: TInt, Default: 1.0, Min: Float(0), Doc: "recoveries allowed per activation"}},
	New: func(b *Builder) Behavior {
		return &recovery{retries: uint64(b.Int("retries")), mem: Reserve[recoveryMem](b)}
	},
}

type recovery struct {
	retries uint64
	mem     Mem[recoveryMem]
}

var _ Opener = (*recovery)(nil)

// recoveryMem is a RecoveryNode's per-agent memory.
type recoveryMem struct {
	recovering bool   // ticking the second child (the recovery) rather than the first
	retries    uint64 // recoveries that succeeded in this activation
}

func (r *recovery) Open(a *Agent, n *Node) { *r.mem.Of(a, n) = recoveryMem{} }

func (r *recovery) Tick(a *Agent, n *Node) Status {
	m := r.mem.Of(a, n)
	for m.retries <= r.retries {
		if !m.recovering {
			switch st := a.Exec(n.Children[0]); st {
			case Success, Running, Error:
				return st
			}
			if m.retries >= r.retries {
				return Failure
			}
			m.recovering = true
			continue
		}
		switch st := a.Exec(n.Children[1]); st {
		case Success:
			m.retries++
			m.recovering = false
		default: // RUNNING, FAILURE, ERROR
			return st
		}
	}
	return Failure
}
