package missions

import (
	"regexp"
	"strings"
)

// BT.CPP's Script node runs statements in its own scripting language
// (`x := 1; y = x + 2`). botd has no statements, so a Script maps to
// botd's nodes only when that is exact:
//
//   - a single assignment of a literal (`mode := 'auto'`) becomes a Set;
//   - a single expression without assignments becomes an Expr (over the
//     same blackboard; expr-lang reads BT.CPP's operators and quotes);
//   - anything else stays a Script (which the registry treats as an Expr,
//     so its compiler says what it cannot read).

var scriptAssign = regexp.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_]*)\s*:?=([^=].*)$`)

func scriptNode(code string) (string, map[string]any) {
	c := strings.TrimSpace(code)
	c = strings.TrimSpace(strings.TrimSuffix(c, ";"))
	keep := map[string]any{"code": code}
	if c == "" || strings.ContainsRune(c, ';') {
		return "Script", keep
	}
	if m := scriptAssign.FindStringSubmatch(c); m != nil {
		if v, ok := scriptLiteral(strings.TrimSpace(m[2])); ok {
			return "Set", map[string]any{"key": m[1], "value": v}
		}
		return "Script", keep
	}
	if hasAssignment(c) {
		return "Script", keep
	}
	return "Expr", map[string]any{"expr": c}
}

// scriptLiteral reads a number, a boolean or a quoted string.
func scriptLiteral(s string) (any, bool) {
	switch {
	case s == "true":
		return true, true
	case s == "false":
		return false, true
	case decimal.MatchString(s):
		v, ok := attrValue(s).(float64)
		return v, ok
	case len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] &&
		!strings.ContainsRune(s[1:len(s)-1], rune(s[0])):
		return s[1 : len(s)-1], true
	}
	return nil, false
}

// hasAssignment reports an assignment operator (=, :=, +=, ...) outside
// string literals; ==, !=, <= and >= are comparisons.
func hasAssignment(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '=':
			if i+1 < len(s) && s[i+1] == '=' {
				i++
				continue
			}
			if i > 0 && strings.IndexByte("!<>", s[i-1]) >= 0 {
				continue
			}
			return true
		}
	}
	return false
}
