package bt

import (
	"fmt"
	"time"
)

// registerBuiltins adds the engine's own node types: the kernel nodes
// its fast path knows and the nodes that are engine features. botd's
// catalog is bt/nodes; device leaves are registered by the drivers.
func registerBuiltins(r *Registry) {
	for _, t := range []NodeType{
		// composites
		sequenceType, priorityType, memSequenceType, memPriorityType,
		// decorators
		monitorType,
		// stand-ins for nodes a mission's file names but botd cannot run
		standInType, faultType,
		// BehaviorTree.CPP's scripting language (bt/btcpp has its other nodes)
		scriptType, scriptConditionType,
		// leaves
		stubType, passThroughType,
		waitType, checkType, exprType, setType, subTreeType,
		// child trees, state machines
		dynamicSubTreeType, stateMachineType,
	} {
		register(r, t)
	}
}

// register adds a built-in; the engine trusts its own leaves not to panic,
// except those that run expressions.
func register(r *Registry, t NodeType) {
	switch t.Name {
	case "Expr", "Script", "ScriptCondition", "TestNode":
	default:
		t.Trusted = true
	}
	r.Register(t)
}

// msParam declares a duration parameter in milliseconds.
func msParam(name, doc string, required bool) Param {
	return Param{Name: name, Type: TNumber, Required: required, Min: Float(0), Unit: "ms", Doc: doc,
		Aliases: msAliases(name)}
}

func msAliases(name string) []string {
	if name == "ms" {
		return []string{"msec", "milliseconds", "maxTime"}
	}
	return nil
}

// MaxDuration is the longest duration a mission may give a timer (Wait,
// Delay, Timeout, Cooldown, a check's age, Nav2's timers...): longer ones
// are refused when the mission loads, or when read from the blackboard,
// instead of wrapping around the clock's int64 nanoseconds.
const MaxDuration = 30 * 24 * time.Hour

const maxDurationText = "30 days"

// durationUnits are the units of duration parameters, in ns.
var durationUnits = map[string]float64{"ms": 1e6, "s": 1e9}

// readMs reads node's millisecond parameter p as nanoseconds; when a
// referenced key is missing or not a number from 0 to MaxDuration, ok is
// false and the node emits why.
func readMs(a *Agent, node int32, p Num) (int64, bool) { return ReadDuration(a, node, p, "ms") }

// ReadDuration reads node's duration parameter p, in unit ("ms" or "s"),
// as clock nanoseconds. When a referenced key is missing or not a number
// from 0 to MaxDuration, ok is false and the node emits why: the node
// should return ERROR. Device leaves read their durations with it, so
// that none wraps around.
func ReadDuration(a *Agent, node int32, p Num, unit string) (int64, bool) {
	per, known := durationUnits[unit]
	if !known {
		panic("bt: ReadDuration: unknown unit " + unit)
	}
	v, ok := p.Get(a)
	ns := v * per
	if ok && ns >= 0 && ns <= float64(MaxDuration) {
		return int64(ns), true
	}
	what := fmt.Sprintf("%v %s", v, unit)
	if p.Slot != NoSlot {
		what = fmt.Sprintf("%q", a.BB.Key(p.Slot).Name)
		if !ok {
			what += " is not set or not a number"
		} else {
			what += fmt.Sprintf(" holds %v %s", v, unit)
		}
	}
	if ok {
		what += ", not a duration from 0 to " + maxDurationText
	}
	a.Emit(node, "error", "duration: "+what)
	return 0, false
}
