package bt

var runOnceType = NodeType{
	Name: "RunOnce", Kind: Decorator, SkipsPass: true,
	Doc: "Runs the child until it completes once with SUCCESS or FAILURE; afterwards returns that status for the rest of the mission " +
		"without ticking it (an ERROR is returned but not remembered), or SKIPPED with `then_skip` (BehaviorTree.CPP's default, " +
		"which its importer writes).",
	Params: []Param{{Name: "then_skip", Type: TBool, Default: false, Doc: "after the first completion return SKIPPED instead of its status"}},
	New: func(b *Builder) Behavior {
		r := runOnce{result: Reserve[Status](b)}
		if raw, ok := b.Raw("then_skip"); ok {
			var isBool bool
			if r.skip, isBool = raw.(bool); !isBool {
				b.Errorf("then_skip", "want true or false (a blackboard key is not read here)")
			}
		}
		return r
	},
}

// runOnce keeps the child's first SUCCESS or FAILURE (Idle until then).
type runOnce struct {
	result Mem[Status]
	skip   bool
}

func (r runOnce) MaySkip() bool { return r.skip }

func (r runOnce) Tick(a *Agent, n *Node) Status {
	result := r.result.Of(a, n)
	if *result != Idle {
		if r.skip {
			return Skipped
		}
		return *result
	}
	st := a.Exec(n.Children[0])
	if st == Success || st == Failure {
		*result = st
	}
	return st
}
