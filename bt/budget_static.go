package bt

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
)

// Where constants fix an expression's cost (a range with constant
// bounds, loops over it, repeat of a constant string a constant number
// of times), the mission's loader can tell that it is over its budget
// before it runs: the node would return ERROR every time. Such a
// parameter gets a warning (Tree.Warnings), which botd check prints; the
// mission still loads.
//
// The estimate walks the compiled program (the budget calls the patches
// of budget_patch.go wrote included) and adds up what those calls will
// count, with the same formulas (budget.go, budget_builtins.go), on the
// values that are constant: a lower bound. It counts only what runs on
// every evaluation: not the branches of ?:, nor the right of && and ||;
// a loop's body as many times as it surely runs (once for all, any, find
// and the others that may stop early; every element for map, filter,
// count, ...); nothing whose input comes from the blackboard.

// staticMax bounds the strings (bytes) and arrays (elements) the estimate
// makes while a mission loads, and staticTotal what it makes for one
// program; a larger one is known by its length only (sizedString,
// sizedList).
const (
	staticMax   = 1 << 14
	staticTotal = 1 << 18
)

// costEstimate is the least one evaluation costs.
type costEstimate struct {
	steps, bytes float64
	// elems is the most elements (ranges, arrays, maps) one program
	// makes: expr-lang's own budget is per program.
	elems float64
	// biggest is the operation that makes the most bytes.
	biggest      string
	biggestBytes float64
}

// estimateCost estimates an evaluation that runs progs in order (the
// statements of a script).
func estimateCost(progs []*vm.Program) costEstimate {
	var c costEstimate
	for _, p := range progs {
		if p == nil {
			continue
		}
		e := &estimator{lets: map[string]sval{}, made: new(int)}
		if !e.run(p.Node()) {
			continue
		}
		c.steps += e.steps
		c.bytes += e.bytes
		c.elems = max(c.elems, e.elems)
		if e.biggestBytes > c.biggestBytes {
			c.biggest, c.biggestBytes = e.biggest, e.biggestBytes
		}
	}
	return c
}

// run estimates node; false when the estimate failed on something it
// did not foresee (it counts nothing then: the estimate is a least cost,
// and a mission's expression must never stop the daemon that checks it).
func (e *estimator) run(node ast.Node) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e.eval(node, 1)
	return true
}

// overBudget says how c is over the default budgets, in a sentence (the
// first of memory, elements and steps that it is over: an evaluation
// over several stops at whichever it reaches first, which the estimate
// cannot tell); what is "expression" or "script".
func (c costEstimate) overBudget(what string) []string {
	const always = ": it will fail with ERROR every time it runs"
	var out []string
	if c.bytes > DefaultExprMemory {
		out = append(out, fmt.Sprintf("this %s makes at least %s (%s), over the budget of %s per evaluation%s",
			what, sizeText(c.bytes), c.biggest, sizeText(DefaultExprMemory), always))
	}
	if limit := float64(vmElements(DefaultExprMemory)); c.elems >= limit && len(out) == 0 {
		out = append(out, fmt.Sprintf("this %s makes at least %s elements in ranges, arrays and maps, over the budget of %s (%s at %d bytes each)%s",
			what, countText(c.elems), countText(limit), sizeText(DefaultExprMemory), elemBytes, always))
	}
	if c.steps > DefaultExprSteps && len(out) == 0 {
		out = append(out, fmt.Sprintf("this %s needs at least %s steps, over the budget of %s per evaluation%s",
			what, countText(c.steps), countText(DefaultExprSteps), always))
	}
	return out
}

// countText writes a count with thousands separators (1,000,000).
func countText(f float64) string {
	if f >= 1e18 || math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', 3, 64)
	}
	s := strconv.FormatInt(int64(f), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sval is what the estimate knows of a value.
type sval struct {
	v     any // a string or array too large to make is a sizedString or sizedList
	known bool
}

var unknown sval

func known(v any) sval { return sval{v: v, known: true} }

type estimator struct {
	made                *int // bytes (elements as 16) made, shared with sub-estimates
	lets                map[string]sval
	steps, bytes, elems float64
	biggest             string
	biggestBytes        float64
}

func (e *estimator) alloc(bytes, mult float64, what string) {
	if bytes <= 0 {
		return
	}
	e.bytes += bytes * mult
	e.steps += float64(allocSteps(bytes)) * mult
	if bytes*mult > e.biggestBytes {
		if mult > 1 {
			what += fmt.Sprintf(", %s times", countText(mult))
		}
		e.biggest, e.biggestBytes = what, bytes*mult
	}
}

// eval estimates node, run mult times per evaluation (0: maybe never),
// and returns its value when constant.
func (e *estimator) eval(node ast.Node, mult float64) sval {
	if mult <= 0 || node == nil {
		return unknown
	}
	switch n := node.(type) {
	case *ast.NilNode:
		return known(nil)
	case *ast.IntegerNode:
		return known(n.Value)
	case *ast.FloatNode:
		return known(n.Value)
	case *ast.BoolNode:
		return known(n.Value)
	case *ast.StringNode:
		return known(n.Value)
	case *ast.ConstantNode:
		return known(n.Value)
	case *ast.IdentifierNode:
		return e.lets[n.Value]
	case *ast.ArrayNode:
		e.elems += float64(len(n.Nodes)) * mult
		vals := make([]any, len(n.Nodes))
		all := true
		for i, x := range n.Nodes {
			v := e.eval(x, mult)
			vals[i], all = v.v, all && v.known
		}
		if all {
			return known(vals)
		}
		return unknown
	case *ast.MapNode:
		e.elems += float64(len(n.Pairs)) * mult
		for _, p := range n.Pairs {
			e.eval(p, mult)
		}
		return unknown
	case *ast.PairNode:
		e.eval(n.Key, mult)
		e.eval(n.Value, mult)
		return unknown
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "||", "and", "or", "??":
			e.eval(n.Left, mult)
			return unknown
		case "..":
			return e.rangeOf(e.eval(n.Left, mult), e.eval(n.Right, mult), mult)
		}
		e.eval(n.Left, mult)
		e.eval(n.Right, mult)
		return unknown
	case *ast.UnaryNode:
		e.eval(n.Node, mult)
		return unknown
	case *ast.ConditionalNode:
		e.eval(n.Cond, mult)
		return unknown
	case *ast.VariableDeclaratorNode:
		v := e.eval(n.Value, mult)
		old, had := e.lets[n.Name]
		e.lets[n.Name] = v
		out := e.eval(n.Expr, mult)
		if had {
			e.lets[n.Name] = old
		} else {
			delete(e.lets, n.Name)
		}
		return out
	case *ast.SequenceNode:
		last := unknown
		for _, x := range n.Nodes {
			last = e.eval(x, mult)
		}
		return last
	case *ast.MemberNode:
		e.eval(n.Node, mult)
		e.eval(n.Property, mult)
		return unknown
	case *ast.SliceNode:
		e.eval(n.Node, mult)
		e.eval(n.From, mult)
		e.eval(n.To, mult)
		return unknown
	case *ast.ChainNode:
		e.eval(n.Node, mult)
		return unknown
	case *ast.PredicateNode:
		e.eval(n.Node, mult)
		return unknown
	case *ast.CallNode:
		return e.call(n, mult)
	case *ast.BuiltinNode:
		return e.builtin(n, mult)
	}
	return unknown
}

// make reports whether the estimate may make n more bytes.
func (e *estimator) make(n int) bool {
	if *e.made+n > staticTotal {
		return false
	}
	*e.made += n
	return true
}

// rangeOf is lo..hi: its elements count against expr-lang's budget.
func (e *estimator) rangeOf(lo, hi sval, mult float64) sval {
	l, ok1 := lo.v.(int)
	h, ok2 := hi.v.(int)
	if !lo.known || !hi.known || !ok1 || !ok2 {
		return unknown
	}
	size := max(h-l+1, 0)
	e.elems += float64(size) * mult
	if size > staticMax || !e.make(size*elemBytes) {
		return known(sizedList(size))
	}
	return known(runtime.MakeRange(l, h)) // the value the program makes
}

// call estimates a call of a budget function (budget_patch.go) with the
// formulas the function counts with.
func (e *estimator) call(n *ast.CallNode, mult float64) sval {
	args := make([]sval, len(n.Arguments))
	for i, a := range n.Arguments {
		args[i] = e.eval(a, mult)
	}
	id, ok := n.Callee.(*ast.IdentifierNode)
	if !ok || !strings.HasPrefix(id.Value, budgetPref) || len(args) < 2 {
		return unknown
	}
	x := args[1]
	switch name := id.Value[len(budgetPref):]; name {
	case "iter":
		w, _ := arg(values(args), 2).(int)
		if x.known {
			e.steps += float64(iterSteps(lenOf(x.v), w)) * mult
		}
		return unknown
	case "scan":
		if x.known {
			e.steps += float64(scanSteps(x.v)) * mult
		}
		return x
	case "regexp":
		if x.known {
			e.steps += float64(regexpSteps(x.v)) * mult
		}
		return x
	case "pattern":
		if x.known {
			e.steps += float64(patternCost(x.v)) * mult
		}
		return x
	case "add", "dots":
		if len(args) < 3 || !x.known || !args[2].known {
			return unknown
		}
		y := args[2]
		l, r := x.v, y.v
		what := addWhat
		if name == "dots" {
			// BT.CPP's `..` writes a number as text.
			what = dotsWhat
			if !isText(l) && !isText(r) {
				return unknown
			}
			if !isText(l) {
				l = concatNumber(l)
			}
			if !isText(r) {
				r = concatNumber(r)
			}
		}
		if !isText(l) || !isText(r) {
			return unknown
		}
		bytes := float64(strLen(l) + strLen(r))
		e.alloc(bytes, mult, what(bytes))
		ls, ok1 := l.(string)
		rs, ok2 := r.(string)
		if ok1 && ok2 && bytes <= staticMax && e.make(int(bytes)) {
			return known(ls + rs)
		}
		return known(sizedString(min(bytes, 1<<50)))
	default:
		b, ok := budgetedNamed(name)
		if !ok {
			return unknown
		}
		vals := values(args[1:])
		for _, a := range args[1:] {
			if !a.known {
				return unknown
			}
		}
		bytes, steps, makes, ok := b.safeCost(vals)
		if !ok {
			return unknown
		}
		e.alloc(bytes, mult, b.what(bytes, makes))
		e.steps += float64(builtinSteps(steps)) * mult
		if bytes <= staticMax && !sized(vals, 0) && e.make(int(bytes)) {
			return constCall(b, vals)
		}
		if !exactCost[b.name] {
			// What it counts may be more than it makes (upper of ASCII
			// text): a later operation would be over-estimated.
			return unknown
		}
		switch makes {
		case "string":
			return known(sizedString(min(bytes, 1<<50)))
		case "array":
			return known(sizedList(min(bytes/elemBytes, 1<<50)))
		}
		return unknown
	}
}

// builtin estimates a builtin that is not budgeted itself: a loop's body
// runs as many times as it surely does.
func (e *estimator) builtin(n *ast.BuiltinNode, mult float64) sval {
	if !iterating[n.Name] || len(n.Arguments) == 0 {
		for _, a := range n.Arguments {
			e.eval(a, mult)
		}
		return unknown
	}
	coll := e.eval(n.Arguments[0], mult)
	if !coll.known {
		for _, a := range n.Arguments[1:] {
			if _, body := a.(*ast.PredicateNode); !body {
				e.eval(a, mult)
			}
		}
		return unknown // the body may never run
	}
	l := float64(lenOf(coll.v))
	out := unknown
	for _, a := range n.Arguments[1:] {
		p, body := a.(*ast.PredicateNode)
		if !body {
			e.eval(a, mult)
			continue
		}
		// The body's cost once, and its value when it is constant,
		// which tells whether a loop that may stop early runs to the end.
		once := &estimator{lets: e.lets, made: e.made}
		v := once.eval(p.Node, 1)
		b, isBool := v.v.(bool)
		runs := l
		switch n.Name {
		case "all":
			out = whole(v.known && isBool && b, true)
			if !out.known {
				runs = min(l, 1) // may stop at the first element
			}
		case "any", "none":
			out = whole(v.known && isBool && !b, n.Name == "none")
			if !out.known {
				runs = min(l, 1)
			}
		case "one", "find", "findIndex", "findLast", "findLastIndex":
			runs = min(l, 1)
		case "count":
			if n.Threshold != nil {
				// expr-lang's optimizer stops count(c, p) > N early.
				runs = min(l, float64(max(*n.Threshold, 0)))
			}
		case "reduce":
			if len(n.Arguments) < 3 {
				runs = max(l-1, 0) // the first element is the accumulator
			}
		}
		e.add(once, mult*runs)
	}
	return out
}

// whole is the value of all (any, none) that ran to the end, when it
// surely does.
func whole(toEnd bool, v bool) sval {
	if toEnd {
		return known(v)
	}
	return unknown
}

// add adds what o estimated, times k.
func (e *estimator) add(o *estimator, k float64) {
	if k <= 0 {
		return
	}
	e.steps += o.steps * k
	e.bytes += o.bytes * k
	e.elems += o.elems * k
	if o.biggestBytes*k > e.biggestBytes {
		e.biggest, e.biggestBytes = o.biggest, o.biggestBytes*k
		if k > 1 {
			e.biggest += fmt.Sprintf(", %s times", countText(k))
		}
	}
}

// exactCost are the budgeted builtins whose cost is the size of what
// they make, so that a result too large to make can stand as its size.
var exactCost = map[string]bool{"repeat": true, "concat": true, "flatten": true, "reverse": true, "keys": true, "values": true, "sort": true}

func values(args []sval) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a.v
	}
	return out
}

func isText(v any) bool {
	switch v.(type) {
	case string, sizedString:
		return true
	}
	return false
}

// sized reports whether a value stands for one too large to make, or
// holds one.
func sized(vals []any, depth int) bool {
	for _, v := range vals {
		switch x := v.(type) {
		case sizedString, sizedList:
			return true
		case []any:
			if depth > 8 || sized(x, depth+1) {
				return true
			}
		}
	}
	return false
}

// constCall calls b on constant arguments, as the program would: small
// ones only (see staticMax).
func constCall(b budgetedBuiltin, vals []any) (out sval) {
	defer func() {
		if recover() != nil {
			out = unknown
		}
	}()
	v, err := callBuiltin(builtin.Builtins[builtin.Index[b.name]], b.name, vals)
	if err != nil {
		return unknown
	}
	return known(v)
}

func budgetedNamed(name string) (budgetedBuiltin, bool) {
	for _, b := range budgetedBuiltins {
		if b.name == name {
			return b, true
		}
	}
	return budgetedBuiltin{}, false
}
