package bt

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

var exprType = NodeType{
	Name: "Expr", Kind: Leaf, Category: "condition",
	Doc: "A boolean expression over the blackboard (expr-lang syntax: `battery.percent < 20 && mode == \"auto\"`), " +
		"compiled when the mission is loaded. SUCCESS when true, FAILURE when false; a name missing at run time is ERROR. " +
		budgetDoc,
	Params: []Param{{Name: "expr", Aliases: []string{"code"}, Type: TExpr, Required: true, Doc: "the expression"}},
	New:    newExpr,
}

// exprEnv is the environment programs run against: blackboard names are
// rewritten at load time into BotdKey($env, slot) calls, so a run resolves
// no names, and the budget functions (budget_patch.go) find the agent in
// it.
type exprEnv struct{ a *Agent }

// botdKey reads a blackboard slot; a missing value stops the program.
func botdKey(p ...any) (any, error) {
	e, ok := arg(p, 0).(exprEnv)
	slot, isInt := arg(p, 1).(int)
	if !ok || e.a == nil || !isInt || slot < 0 || slot >= e.a.BB.Len() {
		return nil, fmt.Errorf("BotdKey is internal")
	}
	v := e.a.BB.Get(Slot(slot))
	if v.Kind() == KindNone {
		return nil, fmt.Errorf("%q is not set", e.a.BB.Key(Slot(slot)).Name)
	}
	return v.Interface(), nil
}

type exprNode struct {
	prog *vm.Program
}

func newExpr(b *Builder) Behavior {
	raw, _ := b.Raw("expr")
	src, _ := raw.(string)
	if src == "" {
		return &exprNode{}
	}
	prog, err := CompileExpr(src, b.Key)
	if err != nil {
		b.Errorf("expr", "%s", firstLine(err.Error()))
		return &exprNode{}
	}
	b.costWarnings("expr", "expression", prog)
	return &exprNode{prog: prog}
}

// CompileExpr compiles a boolean expression whose free names (dotted
// chains like battery.percent included) are blackboard keys resolved by
// key.
func CompileExpr(src string, key func(string) Slot) (*vm.Program, error) {
	return compileExpr(src, key, expr.AsBool())
}

// compileExpr compiles an expression over the blackboard (see
// CompileExpr) with the given options, rewritten to run on the agent's
// budget (budget_patch.go).
func compileExpr(src string, key func(string) Slot, opts ...expr.Option) (*vm.Program, error) {
	options := func(kp *keyPatcher) []expr.Option {
		calls := &callPatcher{}
		kp.lets = calls
		o := append([]expr.Option{expr.Env(exprEnv{})}, budgetOptions...)
		o = append(o, expr.Patch(calls), expr.Patch(kp))
		o = append(o, opts...)
		return append(o, expr.Patch(&stepPatcher{}))
	}
	// A first pass finds the names that survive folding ("a" inside "a.b"
	// does not), so only real keys get slots.
	probe := &keyPatcher{}
	if _, err := expr.Compile(src, options(probe)...); err != nil {
		return nil, err
	}
	final := map[string]bool{}
	for _, name := range probe.names {
		if !probe.folded[name] {
			final[name] = true
		}
	}
	resolve := func(name string) Slot {
		if final[name] {
			return key(name)
		}
		return NoSlot
	}
	return expr.Compile(src, options(&keyPatcher{key: resolve})...)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// keyPatcher rewrites free identifiers and member chains on them into
// BotdKey($env, slot). ast.Walk visits children first, so "a" becomes a key
// read and the enclosing "a.b" then folds it into the key "a.b".
type keyPatcher struct {
	key    func(string) Slot // nil while probing
	lets   *callPatcher      // the names let declares are not keys
	names  map[*ast.CallNode]string
	folded map[string]bool
}

func (p *keyPatcher) call(name string) *ast.CallNode {
	slot := NoSlot
	if p.key != nil {
		slot = p.key(name)
	}
	c := budgetCall("BotdKey", &ast.IntegerNode{Value: int(slot)})
	if p.names == nil {
		p.names = map[*ast.CallNode]string{}
	}
	p.names[c] = name
	return c
}

func (p *keyPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == "BotdKey" || n.Value == "$env" || budgetNames[n.Value] || p.lets != nil && p.lets.lets[n.Value] {
			return
		}
		ast.Patch(node, p.call(n.Value))
	case *ast.MemberNode:
		c, ok := n.Node.(*ast.CallNode)
		prop, isStr := n.Property.(*ast.StringNode)
		if !ok || !isStr || n.Method {
			return
		}
		base, known := p.names[c]
		if !known {
			return
		}
		if p.folded == nil {
			p.folded = map[string]bool{}
		}
		p.folded[base] = true
		ast.Patch(node, p.call(base+"."+prop.Value))
	}
}

func (e *exprNode) Tick(a *Agent, n *Node) Status {
	if e.prog == nil {
		a.Emit(n.Index, "error", "expr: no expression")
		return Error
	}
	out, err := a.evalExpr(e.prog)
	if err != nil {
		a.Emit(n.Index, "error", "expr: "+firstLine(err.Error()))
		return Error
	}
	if ok, _ := out.(bool); ok {
		return Success
	}
	return Failure
}
