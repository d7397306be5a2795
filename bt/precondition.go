package bt

// statusEnum are the statuses a BT.CPP port may name.
var statusEnum = []string{"SUCCESS", "FAILURE", "RUNNING"}

// elseEnum are the statuses Precondition's else may name.
var elseEnum = []string{"SUCCESS", "FAILURE", "RUNNING", "SKIPPED"}

var preconditionType = NodeType{
	Name: "Precondition", Kind: Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: evaluates the script `if` (see Script); when true ticks the child, and keeps ticking it without " +
		"evaluating `if` again until it completes; when false returns `else` without ticking the child.",
	Params: []Param{
		{Name: "if", Type: TExpr, Required: true, Doc: "the condition (a script whose last statement is a boolean)"},
		{Name: "else", Type: TEnum, Enum: elseEnum, Default: "FAILURE", Doc: "status when the condition is false"},
	},
	New: func(b *Builder) Behavior {
		p := &precondition{cond: b.scriptParam("if"), running: Reserve[bool](b)}
		p.otherwise = enumStatus(b, "else")
		return p
	},
}

// enumStatus reads a status parameter declared with statusEnum.
func enumStatus(b *Builder, name string) Status {
	raw, _ := b.Raw(name)
	s, _ := raw.(string)
	if s == "SKIPPED" {
		return Skipped
	}
	st, err := ParseStatus(s)
	if err != nil || len(s) == 1 {
		return Failure
	}
	return st
}

type precondition struct {
	cond      script
	otherwise Status
	running   Mem[bool] // the child was started and has not completed
}

var _ Opener = (*precondition)(nil)

func (p *precondition) MaySkip() bool { return p.otherwise == Skipped }

// Open forgets a child that was halted: the condition is evaluated again.
// (BT.CPP keeps the flag across a halt and would tick the child without
// asking; botd does not let a halt skip a guard.)
func (p *precondition) Open(a *Agent, n *Node) { *p.running.Of(a, n) = false }

func (p *precondition) Tick(a *Agent, n *Node) Status {
	running := p.running.Of(a, n)
	if !*running {
		if p.cond == nil {
			a.Emit(n.Index, "error", "Precondition: no condition (if)")
			return Error
		}
		v, err := p.cond.run(a)
		if err != nil {
			a.Emit(n.Index, "error", "precondition: "+err.Error())
			return Error
		}
		switch condStatus(a, n, v) {
		case Error:
			return Error
		case Failure:
			return p.otherwise
		}
		*running = true
	}
	st := a.Exec(n.Children[0])
	if st != Running {
		*running = false
	}
	return st
}
