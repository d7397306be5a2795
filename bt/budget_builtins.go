package bt

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm/runtime"
)

// The builtins that run on the budget (budget_patch.go sends their calls
// here) and what each would cost.
// budgetedBuiltin is a builtin whose cost depends on its arguments: cost
// returns the bytes its result would take (strings by their length, an
// array element as 16), the steps it would take besides, and what it
// makes ("string", "array").
type budgetedBuiltin struct {
	name string
	cost func(args []any) (bytes, steps float64, makes string)
}

const (
	elemBytes = 16 // an array element or map entry, as counted
	scanBytes = 16 // bytes scanned per step
	scanElems = 4  // elements scanned per step
	// regexpBytes are the bytes matches scans per step.
	regexpBytes = 2
	// patternSteps are the steps per byte of compiling a pattern.
	patternSteps = 8
	budgetPref   = "botd_"
)

var budgetedBuiltins = []budgetedBuiltin{
	{"repeat", func(a []any) (float64, float64, string) {
		return float64(strLen(arg(a, 0))) * float64(runtime.ToInt(arg(a, 1))), 0, "string"
	}},
	{"join", func(a []any) (float64, float64, string) {
		n, total := 0, 0
		eachElem(arg(a, 0), func(v any) { n++; total += strLen(v) })
		return float64(total + n*strLen(arg(a, 1))), 0, "string"
	}},
	{"replace", costReplace},
	{"string", func(a []any) (float64, float64, string) { return float64(textBound(arg(a, 0), 0, 1)), 0, "string" }},
	{"toJSON", func(a []any) (float64, float64, string) { return float64(textBound(arg(a, 0), 0, 6)), 0, "string" }},
	{"fromJSON", func(a []any) (float64, float64, string) { return float64(strLen(arg(a, 0))) * elemBytes, 0, "value" }},
	{"toBase64", func(a []any) (float64, float64, string) { return float64((strLen(arg(a, 0)) + 2) / 3 * 4), 0, "string" }},
	{"fromBase64", func(a []any) (float64, float64, string) { return float64(strLen(arg(a, 0))), 0, "string" }},
	// ToUpper and ToLower can make a rune's encoding longer.
	{"upper", func(a []any) (float64, float64, string) { return float64(2 * strLen(arg(a, 0))), 0, "string" }},
	{"lower", func(a []any) (float64, float64, string) { return float64(2 * strLen(arg(a, 0))), 0, "string" }},
	{"split", costSplit},
	{"splitAfter", costSplit},
	{"concat", func(a []any) (float64, float64, string) {
		n := 0
		for _, x := range a {
			n += lenOf(x)
		}
		return float64(n) * elemBytes, 0, "array"
	}},
	{"flatten", func(a []any) (float64, float64, string) {
		return float64(flatCount(arg(a, 0), 0)) * elemBytes, 0, "array"
	}},
	{"reverse", costElems},
	{"uniq", costElems},
	{"keys", costElems},
	{"values", costElems},
	{"toPairs", func(a []any) (float64, float64, string) { return float64(lenOf(arg(a, 0))) * 4 * elemBytes, 0, "array" }},
	{"fromPairs", costElems},
	{"sort", func(a []any) (float64, float64, string) {
		n := float64(lenOf(arg(a, 0)))
		return n * elemBytes, n * 4 / scanElems, "array"
	}},
	// Scans: no result to speak of, a step per few elements or bytes.
	{"indexOf", costScan}, {"lastIndexOf", costScan}, {"hasPrefix", costScan}, {"hasSuffix", costScan},
	{"max", costScan}, {"min", costScan}, {"mean", costScan}, {"median", costScan},
}

// safeCost is b's cost for args; false when the arguments are not what
// b takes (repeat("a") has no count): the call fails when it runs, and
// the estimate counts nothing for it.
func (b budgetedBuiltin) safeCost(args []any) (bytes, steps float64, makes string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	bytes, steps, makes = b.cost(args)
	return bytes, steps, makes, true
}

func arg(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

func strLen(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case sizedString:
		return int(x)
	}
	return 0
}

// sizedString and sizedList stand, in the estimate botd check makes
// (budget_static.go), for a string or an array too large to make while
// a mission loads: only its length is known. Programs never see them.
type (
	sizedString int
	sizedList   int
)

// lenOf is the length of a string, array, slice or map (0 for others).
func lenOf(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		return len(x)
	case nil:
		return 0
	case sizedString:
		return int(x)
	case sizedList:
		return int(x)
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return r.Len()
	}
	return 0
}

func eachElem(v any, f func(any)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			f(e)
		}
	case []string:
		for _, e := range x {
			f(e)
		}
	}
}

func costElems(a []any) (float64, float64, string) {
	return float64(lenOf(arg(a, 0))) * elemBytes, 0, "array"
}

func costScan(a []any) (float64, float64, string) {
	steps := 0.0
	for _, x := range a {
		switch x.(type) {
		case string, sizedString:
			steps += float64(lenOf(x)) / scanBytes
		default:
			steps += float64(lenOf(x)) / scanElems
		}
	}
	return 0, steps, ""
}

func costSplit(a []any) (float64, float64, string) {
	s, _ := arg(a, 0).(string)
	sep, _ := arg(a, 1).(string)
	n := len(s) + 1
	if sep != "" {
		n = strings.Count(s, sep) + 1
	}
	return float64(n) * elemBytes, float64(len(s)) / scanBytes, "array"
}

func costReplace(a []any) (float64, float64, string) {
	s, _ := arg(a, 0).(string)
	old, _ := arg(a, 1).(string)
	repl, _ := arg(a, 2).(string)
	n := len(s) + 1
	if old != "" {
		n = strings.Count(s, old)
	}
	if len(a) == 4 {
		if m := runtime.ToInt(a[3]); m >= 0 && m < n {
			n = m
		}
	}
	grow := float64(len(repl) - len(old))
	return float64(len(s)) + max(grow, 0)*float64(n), float64(len(s)) / scanBytes, "string"
}

// textBound bounds the length of v written out (fmt's %v, or JSON with
// indentation when esc is 6, the longest escape of a byte), giving up
// once the bound is past any budget.
func textBound(v any, depth, esc int) int {
	// Far past any budget, and small enough that the sums below cannot
	// overflow a 32-bit int (a Pi running armv6 or armv7).
	const giveUp = 1 << 28
	switch x := v.(type) {
	case string:
		return esc*len(x) + 2
	case nil, bool:
		return 5
	case []any:
		n := 2
		for _, e := range x {
			if n += textBound(e, depth+1, esc) + 2*depth + 4; n > giveUp {
				return n
			}
		}
		return n
	case map[string]any:
		n := 2
		for k, e := range x {
			if n += esc*len(k) + textBound(e, depth+1, esc) + 2*depth + 8; n > giveUp {
				return n
			}
		}
		return n
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if r.Len() > 0 {
			return r.Len() * (textBound(reflect.Zero(r.Type().Elem()).Interface(), depth+1, esc) + 2*depth + 64)
		}
	}
	return 64
}

// flatCount counts the elements flatten makes of v.
func flatCount(v any, depth int) int {
	if depth > 64 {
		return 0
	}
	x, ok := v.([]any)
	if !ok {
		return lenOf(v)
	}
	n := 0
	for _, e := range x {
		switch e.(type) {
		case []any:
			n += flatCount(e, depth+1)
		default:
			n++
		}
	}
	return n
}

// what says what b would make.
func (b budgetedBuiltin) what(bytes float64, makes string) string {
	return fmt.Sprintf("%s would make a %s %s", b.name, sizeText(bytes), makes)
}

// builtinSteps are the steps of a budgeted builtin's call besides those
// of what it makes.
func builtinSteps(steps float64) int { return 1 + int(min(steps, 1<<40)) }

// callBuiltin calls expr-lang's builtin orig.
func callBuiltin(orig *builtin.Function, name string, args []any) (any, error) {
	switch {
	case orig.Func != nil:
		return orig.Func(args...)
	case orig.Safe != nil:
		out, _, err := orig.Safe(args...)
		return out, err
	case orig.Fast != nil && len(args) == 1:
		return orig.Fast(args[0]), nil
	}
	return nil, fmt.Errorf("%s: invalid arguments", name)
}

// budgetedOption disables builtin b and declares botd_<b>, which takes
// the environment first and checks the cost before it calls the builtin.
func budgetedOption(b budgetedBuiltin) expr.Option {
	orig := builtin.Builtins[builtin.Index[b.name]]
	if orig.Name != b.name {
		panic("bt: no builtin " + b.name)
	}
	fn := &builtin.Function{Name: budgetPref + b.name}
	for _, t := range orig.Types {
		in := []reflect.Type{anyType}
		for i := 0; i < t.NumIn(); i++ {
			in = append(in, t.In(i))
		}
		out := []reflect.Type{}
		for i := 0; i < t.NumOut(); i++ {
			out = append(out, t.Out(i))
		}
		fn.Types = append(fn.Types, reflect.FuncOf(in, out, t.IsVariadic()))
	}
	if orig.Validate != nil {
		fn.Validate = func(args []reflect.Type) (reflect.Type, error) {
			if len(args) == 0 {
				return anyType, fmt.Errorf("%s: no environment", b.name)
			}
			return orig.Validate(args[1:])
		}
	}
	fn.Func = func(p ...any) (any, error) {
		s, err := budgetOf(p)
		if err != nil {
			return nil, err
		}
		args := p[1:]
		bytes, steps, makes := b.cost(args)
		if bytes > 0 {
			if err := s.alloc(bytes, func() string { return b.what(bytes, makes) }); err != nil {
				return nil, err
			}
		}
		if err := s.step(builtinSteps(steps)); err != nil {
			return nil, err
		}
		return callBuiltin(orig, b.name, args)
	}
	return func(c *conf.Config) {
		c.Disabled[b.name] = true
		delete(c.Builtins, b.name)
		c.Functions[fn.Name] = fn
	}
}
