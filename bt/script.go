package bt

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/expr-lang/expr/vm"
)

// BehaviorTree.CPP's scripts: statements separated by ';', each an
// assignment (`x := 1`, `x = y + 1`, `x += 2`, also -=, *=, /=) or an
// expression. Expressions are expr-lang's, which reads BT.CPP's
// arithmetic, comparisons, &&, ||, !, ?: and quoted strings the same way.
// `:=` writes a key; `=` writes one that exists, as BT.CPP's entries do:
// a key with a value, or one that a node's port names ("{key}", whose
// entry BT.CPP creates with the tree), else the statement is ERROR. The
// compound forms read the key first, so a key without a value is ERROR
// there. An '@' before a key names the mission's global key (BT.CPP's
// root blackboard).

// scriptStmt is one compiled statement.
type scriptStmt struct {
	key  Slot // NoSlot: an expression statement
	must bool // the key must already hold a value (+=, -=, ...)
	// assign: an `=` statement, which needs an existing entry; entry:
	// a port names the key, so its entry exists from the start.
	assign, entry bool
	prog          *vm.Program
}

// script is a compiled sequence of statements.
type Script []scriptStmt

var scriptAssign = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(@?[A-Za-z_][A-Za-z0-9_.]*)\s*(:=|\+=|-=|\*=|/=|=)([^=][\s\S]*)?$`)
})

// rootPrefix stands for '@' in the names expr-lang sees.
const rootPrefix = "botd_root__"

// rootRefs rewrites @name outside quoted strings for expr-lang, which has
// no '@' in its names.
func rootRefs(src string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '@':
			b.WriteString(rootPrefix)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// compileScript compiles src; key resolves blackboard names.
func compileScript(src string, resolve func(string) Slot) (Script, error) {
	key := func(name string) Slot {
		if strings.HasPrefix(name, rootPrefix) {
			name = "@" + name[len(rootPrefix):]
		}
		return resolve(name)
	}
	var out Script
	for _, stmt := range splitStatements(src) {
		st := scriptStmt{key: NoSlot}
		body := stmt
		if m := scriptAssign().FindStringSubmatch(stmt); m != nil {
			name, op, rhs := m[1], m[2], strings.TrimSpace(m[3])
			if rhs == "" {
				return nil, fmt.Errorf("%q: nothing to assign", stmt)
			}
			st.key, st.must, st.assign, body = key(name), op != ":=" && op != "=", op == "=", rhs
			if op != ":=" && op != "=" {
				body = name + " " + op[:1] + " (" + rhs + ")"
			}
		}
		prog, err := compileExpr(rootRefs(body), key, scriptOptions...)
		if err != nil {
			return nil, fmt.Errorf("%q: %s", stmt, firstLine(err.Error()))
		}
		st.prog = prog
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty script")
	}
	return out, nil
}

// splitStatements splits on ';' outside quoted strings and drops empty
// statements.
func splitStatements(src string) []string {
	var out []string
	var quote byte
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(src[start:end]); s != "" {
			out = append(out, s)
		}
		start = end + 1
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			flush(i)
		}
	}
	flush(len(src))
	return out
}

// Run executes the statements in order and returns the value of the last
// one; an error says why one failed.
func (s Script) Run(a *Agent) (any, error) {
	m := a.beginEval()
	defer m.endEval()
	var last any
	for _, st := range s {
		if st.key != NoSlot && st.must && a.BB.Get(st.key).Kind() == KindNone {
			return nil, fmt.Errorf("%q is not set", a.BB.Key(st.key).Name)
		}
		if st.assign && !st.entry && a.BB.Get(st.key).Kind() == KindNone {
			return nil, fmt.Errorf("the blackboard entry %q does not exist yet: use := to create it", a.BB.Key(st.key).Name)
		}
		v, err := m.run(a, st.prog)
		if err != nil {
			return nil, fmt.Errorf("%s", firstLine(err.Error()))
		}
		if st.key != NoSlot {
			if n := valueBytes(v, 0); n > MaxValueBytes {
				return nil, fmt.Errorf("%q: a value of %d bytes exceeds the limit of %d for values a mission writes", a.BB.Key(st.key).Name, n, MaxValueBytes)
			}
			a.BB.Set(st.key, ValueOf(v))
		}
		last = v
	}
	return last, nil
}

// Script compiles a script parameter (BehaviorTree.CPP's scripting
// language), reporting problems with it; nil when it is empty.
func (b *Builder) Script(name string) Script {
	raw, _ := b.Raw(name)
	src, _ := raw.(string)
	if strings.TrimSpace(src) == "" {
		return nil
	}
	s, err := compileScript(src, b.Key)
	if err != nil {
		b.Errorf(name, "%s", err)
		return nil
	}
	progs := make([]*vm.Program, len(s))
	for i := range s {
		if s[i].assign {
			b.c.assigns = append(b.c.assigns, &s[i])
		}
		progs[i] = s[i].prog
	}
	b.costWarnings(name, "script", progs...)
	return s
}

// costWarnings warns of a parameter whose evaluation constants put over
// its budget (budget_static.go).
func (b *Builder) costWarnings(param, what string, progs ...*vm.Program) {
	for _, w := range estimateCost(progs).overBudget(what) {
		b.Warnf(param, "%s", w)
	}
}

var scriptType = NodeType{
	Name: "Script", Kind: Leaf, Category: "action",
	Doc: "As in BehaviorTree.CPP: runs the statements of `code` (assignments `key := expr`, `key = expr`, `key += expr`, ..., " +
		"separated by ';') over the blackboard; SUCCESS. An expression that fails (a key that is not set) is ERROR, and so is a value " +
		"over 1 KiB. " + budgetDoc,
	Params: []Param{{Name: "code", Type: TExpr, Required: true, Doc: "the statements"}},
	New:    func(b *Builder) Behavior { return &scriptNode{code: b.Script("code")} },
}

var scriptConditionType = NodeType{
	Name: "ScriptCondition", Kind: Leaf, Category: "condition",
	Doc: "As in BehaviorTree.CPP: runs the statements of `code` and returns SUCCESS when the last one is true, FAILURE when false; " +
		"ERROR when it is not a boolean or an expression fails. " + budgetDoc,
	Params: []Param{{Name: "code", Type: TExpr, Required: true, Doc: "the statements; the last one is the condition"}},
	New:    func(b *Builder) Behavior { return &scriptNode{code: b.Script("code"), cond: true} },
}

type scriptNode struct {
	code Script
	cond bool
}

func (s *scriptNode) Tick(a *Agent, n *Node) Status {
	if s.code == nil {
		if !s.cond {
			return Success // as BehaviorTree.CPP's Script with empty code
		}
		a.Emit(n.Index, "error", "ScriptCondition: no code (want a condition)")
		return Error
	}
	v, err := s.code.Run(a)
	if err != nil {
		a.Emit(n.Index, "error", "script: "+err.Error())
		return Error
	}
	if !s.cond {
		return Success
	}
	return CondStatus(a, n, v)
}

// CondStatus turns a condition's value into SUCCESS or FAILURE (ERROR
// when it is not a boolean).
func CondStatus(a *Agent, n *Node, v any) Status {
	b, ok := v.(bool)
	switch {
	case !ok:
		a.Emit(n.Index, "error", fmt.Sprintf("script: the condition is %v, not a boolean", v))
		return Error
	case b:
		return Success
	}
	return Failure
}
