package bt

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm/runtime"
)

// How programs are rewritten at load time so that they run on the budget
// (budget.go):
//
//   - a call of a budgeted builtin, repeat(s, n), becomes
//     botd_repeat($env, s, n): the same builtin behind a check of what it
//     would make (the builtin itself is disabled);
//   - a + whose operands may be strings becomes botd_add($env, a, b);
//   - a loop over a collection, all(coll, {body}) (and any, map, filter,
//     reduce, ...), becomes (let c = coll; botd_iter($env, c, w); all(c,
//     {body})): its steps, the collection's length times the weight w of
//     an iteration (1, and 1 more per 8 syntax nodes of the body), are
//     counted once before the loop runs, so an iteration calls nothing
//     (a loop that stops early, as any's, has counted all its steps);
//   - the scanned operand of contains, startsWith, endsWith and in
//     becomes botd_scan($env, x), which counts a step per 16 bytes or 4
//     elements; the subject of matches botd_regexp($env, x), a step per
//     2 bytes, and a pattern that is not a constant botd_pattern($env,
//     p), 8 steps per byte.
//
// $env is the agent's exprEnv, which carries the budget.

var anyType = reflect.TypeOf((*any)(nil)).Elem()

// budgetOptions are the options every expression compiles with: the
// budgeted builtins, the budget functions and the node limit.
var budgetOptions = func() []expr.Option {
	opts := []expr.Option{
		expr.MaxNodes(MaxExprNodes),
		expr.Function("BotdKey", botdKey, new(func(any, int) any)),
		expr.Function(budgetPref+"iter", budgetIter, new(func(any, any, int) any)),
		expr.Function(budgetPref+"scan", budgetScan, new(func(any, any) any)),
		expr.Function(budgetPref+"regexp", budgetRegexp, new(func(any, any) any)),
		expr.Function(budgetPref+"pattern", budgetPattern, new(func(any, any) any)),
		expr.Function(budgetPref+"add", budgetAdd, new(func(any, any, any) any)),
	}
	for _, b := range budgetedBuiltins {
		opts = append(opts, budgetedOption(b))
	}
	return opts
}()

// budgetNames are the functions the patchers write; keyPatcher leaves
// them alone.
var budgetNames = func() map[string]bool {
	m := map[string]bool{budgetPref + "iter": true, budgetPref + "scan": true, budgetPref + "add": true,
		budgetPref + "regexp": true, budgetPref + "pattern": true, concatFunc: true}
	for _, b := range budgetedBuiltins {
		m[budgetPref+b.name] = true
	}
	return m
}()

var budgetedByName = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range budgetedBuiltins {
		m[b.name] = true
	}
	return m
}()

// budgetOf finds the budget of the evaluation from the $env argument.
func budgetOf(p []any) (*exprState, error) {
	if len(p) > 0 {
		if e, ok := p[0].(exprEnv); ok && e.a != nil {
			return e.a.exprMachine(), nil
		}
	}
	return nil, fmt.Errorf("internal function called without its environment")
}

func budgetScan(p ...any) (any, error) {
	s, err := budgetOf(p)
	if err != nil {
		return nil, err
	}
	x := arg(p, 1)
	return x, s.step(scanSteps(x))
}

// budgetRegexp counts a match: a step per 2 bytes of the subject (a
// regular expression costs more per byte than a plain scan).
func budgetRegexp(p ...any) (any, error) {
	s, err := budgetOf(p)
	if err != nil {
		return nil, err
	}
	x := arg(p, 1)
	return x, s.step(regexpSteps(x))
}

// budgetPattern counts the compiling of a pattern that is not a
// constant: 8 steps a byte (compiling costs some 30 times more per byte
// than matching).
func budgetPattern(p ...any) (any, error) {
	s, err := budgetOf(p)
	if err != nil {
		return nil, err
	}
	x := arg(p, 1)
	return x, s.step(patternCost(x))
}

func budgetAdd(p ...any) (any, error) {
	s, err := budgetOf(p)
	if err != nil {
		return nil, err
	}
	l, r := arg(p, 1), arg(p, 2)
	if ls, ok := l.(string); ok {
		if rs, ok := r.(string); ok {
			n := float64(len(ls) + len(rs))
			if err := s.alloc(n, func() string { return addWhat(n) }); err != nil {
				return nil, err
			}
			return ls + rs, nil
		}
	}
	return runtime.Add(l, r), nil
}

// addWhat says what a + of strings would make.
func addWhat(bytes float64) string { return fmt.Sprintf("+ would make a %s string", sizeText(bytes)) }

func envArg() ast.Node { return &ast.IdentifierNode{Value: "$env"} }

func budgetCall(name string, args ...ast.Node) *ast.CallNode {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: append([]ast.Node{envArg()}, args...)}
}

// callPatcher runs before keyPatcher: it sends the calls of budgeted
// builtins to their budgeted versions and notes the names `let`
// declares, which are not blackboard keys.
type callPatcher struct {
	lets map[string]bool
}

func (p *callPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && budgetedByName[id.Value] {
			ast.Patch(node, budgetCall(budgetPref+id.Value, n.Arguments...))
		}
	case *ast.BuiltinNode:
		if budgetedByName[n.Name] {
			ast.Patch(node, budgetCall(budgetPref+n.Name, n.Arguments...))
		}
	case *ast.VariableDeclaratorNode:
		if p.lets == nil {
			p.lets = map[string]bool{}
		}
		p.lets[n.Name] = true
	}
}

// stepPatcher runs after keyPatcher (it needs the types the checker
// found): predicates count their steps, + on strings and the scanning
// operators go through the budget.
type stepPatcher struct {
	lets int // the collections named so far
}

func (p *stepPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		if !iterating[n.Name] || len(n.Arguments) == 0 {
			return
		}
		if id, ok := n.Arguments[0].(*ast.IdentifierNode); ok && strings.HasPrefix(id.Value, collPrefix) {
			return
		}
		// (let c = coll; botd_iter($env, c, weight); all(c, {...})): the
		// collection's length, times the weight of the body, is counted
		// once before the loop.
		weight := 1
		for _, a := range n.Arguments[1:] {
			if pr, ok := a.(*ast.PredicateNode); ok {
				weight += nodeCount(pr.Node) / iterNodes
			}
		}
		name := fmt.Sprintf("%s%d", collPrefix, p.lets)
		p.lets++
		coll := n.Arguments[0]
		n.Arguments[0] = &ast.IdentifierNode{Value: name}
		ast.Patch(node, &ast.VariableDeclaratorNode{Name: name, Value: coll, Expr: &ast.SequenceNode{Nodes: []ast.Node{
			budgetCall(budgetPref+"iter", &ast.IdentifierNode{Value: name}, &ast.IntegerNode{Value: weight}), n}}})
	case *ast.BinaryNode:
		switch n.Operator {
		case "+":
			if mayBeString(n.Left) && mayBeString(n.Right) {
				ast.Patch(node, budgetCall(budgetPref+"add", n.Left, n.Right))
			}
		case "matches":
			if !isBudgetCall(n.Left, "regexp") {
				n.Left = budgetCall(budgetPref+"regexp", n.Left)
			}
			// A pattern that is not a constant is compiled at every match.
			if _, constant := n.Right.(*ast.StringNode); !constant && !isBudgetCall(n.Right, "pattern") {
				n.Right = budgetCall(budgetPref+"pattern", n.Right)
			}
		case "contains", "startsWith", "endsWith":
			if !isBudgetCall(n.Left, "scan") {
				n.Left = budgetCall(budgetPref+"scan", n.Left)
			}
		case "in", "not in":
			if !isBudgetCall(n.Right, "scan") && !boundedOperand(n.Right) {
				n.Right = budgetCall(budgetPref+"scan", n.Right)
			}
		}
	}
}

// boundedOperand: an array literal or a range, which `in` does not scan
// (expr-lang's optimizer tests a range's ends; a literal's size is the
// source's).
func boundedOperand(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.ArrayNode, *ast.ConstantNode:
		return true
	case *ast.BinaryNode:
		return x.Operator == ".."
	}
	return false
}

// iterating are the builtins that loop over a collection.
var iterating = map[string]bool{"all": true, "none": true, "any": true, "one": true, "filter": true, "map": true, "count": true,
	"sum": true, "find": true, "findIndex": true, "findLast": true, "findLastIndex": true, "groupBy": true, "sortBy": true, "reduce": true}

// collPrefix names the collections stepPatcher declares.
const collPrefix = "botd_coll_"

// iterNodes: a predicate's body costs a step more per iteration for
// every iterNodes syntax nodes.
const iterNodes = 8

func nodeCount(n ast.Node) int {
	c := &counter{}
	ast.Walk(&n, c)
	return c.n
}

type counter struct{ n int }

func (c *counter) Visit(*ast.Node) { c.n++ }

// budgetIter counts the steps of a loop before it starts: the length of
// the collection times the weight of an iteration.
func budgetIter(p ...any) (any, error) {
	s, err := budgetOf(p)
	if err != nil {
		return nil, err
	}
	w, _ := arg(p, 2).(int)
	return nil, s.step(iterSteps(lenOf(arg(p, 1)), w))
}

func isBudgetCall(n ast.Node, name string) bool {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == budgetPref+name
}

// mayBeString: the checker found a string, or could not tell.
func mayBeString(n ast.Node) bool {
	t := n.Type()
	return t == nil || t.Kind() == reflect.String || t.Kind() == reflect.Interface
}
