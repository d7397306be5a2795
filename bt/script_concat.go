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
		a, b, err := concatOperands(p[0], p[1])
		if err != nil {
			return nil, err
		}
		n := float64(len(a) + len(b))
		if err := m.alloc(n, func() string { return dotsWhat(n) }); err != nil {
			return nil, err
		}
		return a + b, nil
	}),
}

// concatOperands are the strings `x .. y` joins.
func concatOperands(x, y any) (a, b string, err error) {
	a, aStr := x.(string)
	b, bStr := y.(string)
	if !aStr && !bStr {
		return "", "", fmt.Errorf("..: operation not permitted on %T and %T (one side must be a string)", x, y)
	}
	if !aStr {
		if a = concatNumber(x); a == "" {
			return "", "", fmt.Errorf("..: operation not permitted on %T", x)
		}
	}
	if !bStr {
		if b = concatNumber(y); b == "" {
			return "", "", fmt.Errorf("..: operation not permitted on %T", y)
		}
	}
	return a, b, nil
}

// dotsWhat says what a `..` would make.
func dotsWhat(bytes float64) string { return fmt.Sprintf(".. would make a %s string", sizeText(bytes)) }

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
