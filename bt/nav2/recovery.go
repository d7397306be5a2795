package nav2

import "github.com/botd-project/botd/bt"

var recoveryType = bt.NodeType{
	Name: "RecoveryNode", KeepsProgress: true, Aliases: []string{"Recovery"}, Kind: bt.Composite, MinChildren: 2, MaxChildren: 2, ChildReset: bt.ChildResetAlways,
	Doc: "As in Nav2: ticks the first child; when it fails, ticks the second (the recovery) and, if that succeeds, the first again, " +
		"up to `retries` times. SUCCESS when the first child succeeds; FAILURE when the recovery fails or the retries run out.",
	Params: []bt.Param{{Name: "retries", Aliases: []string{"number_of_retries"}, Type: bt.TInt, Default: 1.0, Min: bt.Float(0), Doc: "recoveries allowed per activation"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &recovery{retries: uint64(b.Int("retries")), mem: bt.Reserve[recoveryMem](b)}
	},
}

type recovery struct {
	retries uint64
	mem     bt.Mem[recoveryMem]
}

var _ bt.Opener = (*recovery)(nil)

// recoveryMem is a RecoveryNode's per-agent memory.
type recoveryMem struct {
	recovering bool   // ticking the second child (the recovery) rather than the first
	retries    uint64 // recoveries that succeeded in this activation
}

func (r *recovery) Open(a *bt.Agent, n *bt.Node) { *r.mem.Of(a, n) = recoveryMem{} }

func (r *recovery) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := r.mem.Of(a, n)
	for m.retries <= r.retries {
		if !m.recovering {
			switch st := a.Exec(n.Children[0]); st {
			case bt.Success, bt.Running, bt.Error:
				return st
			}
			if m.retries >= r.retries {
				return bt.Failure
			}
			m.recovering = true
			continue
		}
		switch st := a.Exec(n.Children[1]); st {
		case bt.Success:
			m.retries++
			m.recovering = false
		default: // RUNNING, FAILURE, ERROR
			return st
		}
	}
	return bt.Failure
}
