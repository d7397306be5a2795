package bt

var recoveryType = NodeType{
	Name: "RecoveryNode", Aliases: []string{"Recovery"}, Kind: Composite, MinChildren: 2, MaxChildren: 2,
	Doc: "As in Nav2: ticks the first child; when it fails, ticks the second (the recovery) and, if that succeeds, the first again, " +
		"up to `retries` times. SUCCESS when the first child succeeds; FAILURE when the recovery fails or the retries run out.",
	Params: []Param{{Name: "retries", Aliases: []string{"number_of_retries"}, Type: TInt, Default: 1.0, Min: Float(0), Doc: "recoveries allowed per activation"}},
	New: func(b *Builder) Behavior {
		b.Words(2)
		return &recovery{retries: uint64(b.Int("retries"))}
	},
}

// recovery keeps the current child (0 or 1) and the retry count.
type recovery struct {
	retries uint64
}

func (*recovery) Open(a *Agent, n *Node) { m := a.Mem(n); m[0], m[1] = 0, 0 }

func (r *recovery) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	for m[0] < 2 && m[1] <= r.retries {
		st := a.Exec(n.Children[m[0]])
		if m[0] == 0 {
			switch st {
			case Success, Running, Error:
				return st
			}
			if m[1] >= r.retries {
				return Failure
			}
			m[0] = 1
			continue
		}
		switch st {
		case Success:
			m[1]++
			m[0] = 0
		default: // RUNNING, FAILURE, ERROR
			return st
		}
	}
	return Failure
}
