package btcpp

import "github.com/botd-project/botd/bt"

// elseEnum are the statuses Precondition's else may name.
var elseEnum = []string{"SUCCESS", "FAILURE", "RUNNING", "SKIPPED"}

var preconditionType = bt.NodeType{
	Name: "Precondition", Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: evaluates the script `if` (see Script); when true ticks the child, and keeps ticking it without " +
		"evaluating `if` again until it completes; when false returns `else` without ticking the child.",
	Params: []bt.Param{
		{Name: "if", Type: bt.TExpr, Required: true, Doc: "the condition (a script whose last statement is a boolean)"},
		{Name: "else", Type: bt.TEnum, Enum: elseEnum, Default: "FAILURE", Doc: "status when the condition is false"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		p := &precondition{cond: b.Script("if"), running: bt.Reserve[bool](b)}
		p.otherwise = b.Status("else")
		return p
	},
}

type precondition struct {
	cond      bt.Script
	otherwise bt.Status
	running   bt.Mem[bool] // the child was started and has not completed
}

var _ bt.Opener = (*precondition)(nil)

func (p *precondition) MaySkip() bool { return p.otherwise == bt.Skipped }

// Open forgets a child that was halted: the condition is evaluated again.
// (BT.CPP keeps the flag across a halt and would tick the child without
// asking; botd does not let a halt skip a guard.)
func (p *precondition) Open(a *bt.Agent, n *bt.Node) { *p.running.Of(a, n) = false }

func (p *precondition) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	running := p.running.Of(a, n)
	if !*running {
		if p.cond == nil {
			a.Emit(n.Index, "error", "Precondition: no condition (if)")
			return bt.Error
		}
		v, err := p.cond.Run(a)
		if err != nil {
			a.Emit(n.Index, "error", "precondition: "+err.Error())
			return bt.Error
		}
		switch bt.CondStatus(a, n, v) {
		case bt.Error:
			return bt.Error
		case bt.Failure:
			return p.otherwise
		}
		*running = true
	}
	st := a.Exec(n.Children[0])
	if st != bt.Running {
		*running = false
	}
	return st
}
