package nodes

import "github.com/botd-project/botd/bt"

var runOnceType = bt.NodeType{
	Name: "RunOnce", Kind: bt.Decorator, SkipsPass: true,
	Doc: "Runs the child until it completes once with SUCCESS or FAILURE; afterwards returns that status for the rest of the mission " +
		"without ticking it (an ERROR is returned but not remembered), or SKIPPED with `then_skip` (BehaviorTree.CPP's default, " +
		"which its importer writes).",
	Params: []bt.Param{{Name: "then_skip", Type: bt.TBool, Default: false, Doc: "after the first completion return SKIPPED instead of its status"}},
	New: func(b *bt.Builder) bt.Behavior {
		r := runOnce{result: bt.Reserve[bt.Status](b)}
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
	result bt.Mem[bt.Status]
	skip   bool
}

func (r runOnce) MaySkip() bool { return r.skip }

func (r runOnce) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	result := r.result.Of(a, n)
	if *result != bt.Idle {
		if r.skip {
			return bt.Skipped
		}
		return *result
	}
	st := a.Exec(n.Children[0])
	if st == bt.Success || st == bt.Failure {
		*result = st
	}
	return st
}
