package btcpp

import (
	"math"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// BehaviorTree.CPP 4's AsyncSequence and AsyncFallback, and BT.CPP 3's
// BlackboardCheckInt, BlackboardCheckDouble, BlackboardCheckString and
// BlackboardCheckBool.

// btcppExtraTypes are registered with the builtins.
var btcppExtraTypes = []bt.NodeType{asyncSequenceType, asyncFallbackType,
	blackboardCheckType("Int"), blackboardCheckType("Double"), blackboardCheckType("String"), blackboardCheckType("Bool")}

var asyncSequenceType = bt.NodeType{
	Name: "AsyncSequence", KeepsProgress: true, Kind: bt.Composite, SkipsPass: true,
	Doc: "As BehaviorTree.CPP 4's AsyncSequence: a Sequence (BT.CPP's, botd's MemSequence: a tick resumes at the child that was " +
		"RUNNING) that returns RUNNING after a child that started in this tick succeeded while more children follow, so the next " +
		"child starts at the next tick and a reactive parent can interrupt it in between. FAILURE when a child fails; SKIPPED " +
		"children are passed over.",
	New: func(b *bt.Builder) bt.Behavior { return asyncSeq{mem: bt.Reserve[memMem](b), pass: bt.Success} },
}

var asyncFallbackType = bt.NodeType{
	Name: "AsyncFallback", KeepsProgress: true, Kind: bt.Composite, SkipsPass: true,
	Doc: "As BehaviorTree.CPP 4's AsyncFallback: a Fallback (botd's MemPriority) that returns RUNNING after a child that started " +
		"in this tick failed while more children follow, so the next child starts at the next tick.",
	New: func(b *bt.Builder) bt.Behavior { return asyncSeq{mem: bt.Reserve[memMem](b), pass: bt.Failure} },
}

// asyncSeq is AsyncSequence (pass SUCCESS) and AsyncFallback (pass
// FAILURE).
type asyncSeq struct {
	mem  bt.Mem[memMem]
	pass bt.Status
}

var _ bt.Opener = asyncSeq{}

func (s asyncSeq) Open(a *bt.Agent, n *bt.Node) { *s.mem.Of(a, n) = memMem{} }

func (s asyncSeq) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := s.mem.Of(a, n)
	for i := m.resume; i < len(n.Children); i++ {
		c := n.Children[i]
		fresh := !a.IsOpen(c) // BT.CPP: the child was IDLE
		st := a.Exec(c)
		switch {
		case st == bt.Skipped:
			m.skipped++
		case st != s.pass:
			m.resume = i
			return st
		case fresh && i+1 < len(n.Children):
			// BT.CPP returns the execution flow (and wakes the tree up).
			m.resume = i + 1
			return bt.Running
		}
	}
	if m.skipped == len(n.Children) {
		return bt.Skipped
	}
	return s.pass
}

// blackboardCheckType is BT.CPP 3's BlackboardCheckT: a decorator that
// ticks its child while value_A equals value_B, read as T.
func blackboardCheckType(t string) bt.NodeType {
	return bt.NodeType{
		Name: "BlackboardCheck" + t, Kind: bt.Decorator, SkipsPass: true,
		Doc: "As BehaviorTree.CPP 3's BlackboardCheck" + t + " (BT.CPP 4 has it no more): on every tick, when `value_A` and `value_B` " +
			"(usually one of them \"{key}\") are both there and equal as " + blackboardCheckAs[t] + ", ticks the child and returns its " +
			"status; otherwise returns `return_on_mismatch` without ticking it (a running child is halted).",
		Params: []bt.Param{
			{Name: "value_A", Type: bt.TAny, Doc: "a value or \"{key}\""},
			{Name: "value_B", Type: bt.TAny, Doc: "a value or \"{key}\""},
			{Name: "return_on_mismatch", Type: bt.TEnum, Enum: bt.StatusEnum, Default: "FAILURE", Doc: "the status when they differ"},
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &blackboardCheck{a: anyString(b, "value_A"), b: anyString(b, "value_B"), as: t, mismatch: b.Status("return_on_mismatch")}
		},
	}
}

var blackboardCheckAs = map[string]string{
	"Int": "integers (a value that is not a whole number never matches)", "Double": "numbers",
	"String": "strings", "Bool": "booleans (true, false, 1 or 0, as BT.CPP spells them)",
}

type blackboardCheck struct {
	a, b     anyStr
	as       string
	mismatch bt.Status
}

func (c *blackboardCheck) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	va, okA := c.a.Get(a)
	vb, okB := c.b.Get(a)
	if okA && okB && c.a.given && c.b.given && blackboardEqual(c.as, va, vb) {
		return a.Exec(n.Children[0])
	}
	// A running child is halted at the end of the tick (botd's halt rule).
	return c.mismatch
}

// blackboardEqual compares two values as BT.CPP 3 converts them to T.
func blackboardEqual(as, x, y string) bool {
	switch as {
	case "Int", "Double":
		fx, okX := parseNumber(x)
		fy, okY := parseNumber(y)
		if !okX || !okY || as == "Int" && (fx != float64(int64(fx)) || fy != float64(int64(fy))) {
			return false
		}
		return fx == fy
	case "Bool":
		bx, okX := parseBTCPPBool(x)
		by, okY := parseBTCPPBool(y)
		return okX && okY && bx == by
	}
	return x == y
}

// parseNumber reads a finite number.
func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// parseBTCPPBool reads a boolean as BT.CPP's convertFromString<bool>.
func parseBTCPPBool(s string) (bool, bool) {
	switch s {
	case "true", "True", "TRUE", "1":
		return true, true
	case "false", "False", "FALSE", "0":
		return false, true
	}
	return false, false
}
