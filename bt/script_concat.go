package bt

import (
	"fmt"
	"math"
	"strconv"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// BehaviorTree.CPP's scripts join strings with `..` (expr-lang's range
// operator). In a script, `a .. b` is rewritten to a call that joins a
// string with a string or a number, as BT.CPP does; any other pair is an
// error. A whole number is written without decimals, another with six
// (C++'s std::to_string). expr-lang binds `..` less tightly than + and -
// (BT.CPP binds them equally): `"n" .. 1 + 2` is "n3" here. The joined
// string counts against the evaluation's memory budget (budget.go).

const concatFunc = "botd_dots"

type concatPatcher struct{}

func (concatPatcher) Visit(node *ast.Node) {
	if b, ok := (*node).(*ast.BinaryNode); ok && b.Operator == ".." {
		ast.Patch(node, budgetCall(concatFunc, b.Left, b.Right))
	}
}

// scriptOptions are the expr-lang options scripts compile with.
var scriptOptions = []expr.Option{
	expr.Patch(concatPatcher{}),
	expr.Function(concatFunc, func(p ...any) (any, error) {
		m, err := budgetOf(p)
		if err != nil {
			return nil, err
		}
		if p = p[1:]; len(p) != 2 {
			return nil, fmt.Errorf("..: want two operands")
		}
		a, aStr := p[0].(string)
		b, bStr := p[1].(string)
		if !aStr && !bStr {
			return nil, fmt.Errorf("..: operation not permitted on %T and %T (one side must be a string)", p[0], p[1])
		}
		if !aStr {
			if a = concatNumber(p[0]); a == "" {
				return nil, fmt.Errorf("..: operation not permitted on %T", p[0])
			}
		}
		if !bStr {
			if b = concatNumber(p[1]); b == "" {
				return nil, fmt.Errorf("..: operation not permitted on %T", p[1])
			}
		}
		n := float64(len(a) + len(b))
		if err := m.alloc(n, func() string { return fmt.Sprintf(".. would make a %s string", sizeText(n)) }); err != nil {
			return nil, err
		}
		return a + b, nil
	}),
}

// concatNumber formats a number for `..` ("" when v is not a number).
func concatNumber(v any) string {
	f, ok := AsNumber(v)
	if !ok {
		return ""
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}
