package bt

import (
	"fmt"
	"reflect"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Expressions and scripts come from missions, that is from outside: each
// evaluation (an Expr's expression, all the statements of a Script or of
// a script parameter) runs on a budget, and a node whose evaluation
// overruns it returns ERROR with the reason, like any failed expression.
//
//   - Memory: the operations that can make a value grow (string +, the
//     script ..; repeat, join, replace, toJSON, string, split, concat,
//     flatten and the other builtins listed in budgetedBuiltins) count
//     the bytes they would allocate before they allocate, against
//     ExprLimits.Memory. expr-lang's own budget (ranges, array and map
//     literals, sort) is set to Memory/16 elements.
//   - Steps: every iteration of a loop (all, any, map, filter, count,
//     reduce, ...) is a step, or more for a long body, counted before the
//     loop starts; a budgeted builtin costs a step per 64 bytes it makes,
//     `matches` a step per 2 bytes it scans, and so on (budget_patch.go);
//     at most ExprLimits.Steps per evaluation and TickSteps per tick.
//     Steps are deterministic: the same mission stops at the same place
//     on any machine.
//   - Time: a backstop for work the steps do not see. When it counts
//     steps an evaluation reads the clock, every 256 steps, and stops
//     once it has run ExprLimits.Time, or once the evaluations of the tick
//     have run TickTime together.

// budgetDoc is what the docs of the nodes that run expressions say of the
// budget.
const budgetDoc = "Each evaluation runs on a budget (by default 1 MiB made, 100,000 steps, 25 ms; see MISSIONS.md, Expressions): " +
	"over it, ERROR with the reason."

// Default expression budgets (see ExprLimits).
const (
	DefaultExprMemory    = 1 << 20
	DefaultExprSteps     = 100_000
	DefaultExprTickSteps = 1_000_000
	DefaultExprTime      = 25 * time.Millisecond
	DefaultExprTickTime  = 100 * time.Millisecond
	// MaxExprNodes bounds the syntax tree of one expression or script
	// statement.
	MaxExprNodes = 1000
)

// MaxValueBytes bounds a value an expression writes to the blackboard (a
// script assignment): a string of at most this many bytes, or an array or
// map whose strings and numbers (8 bytes each) add up to at most this. It
// is the limit the blackboard.set command puts on operator strings: the
// blackboard is published at telemetry's rate.
const MaxValueBytes = 1 << 10

// ExprLimits are an agent's expression budgets; a zero field takes its
// default.
type ExprLimits struct {
	// Memory bounds the bytes one evaluation may make [1 MiB].
	Memory int
	// Steps bounds the steps of one evaluation [100,000]; TickSteps the
	// steps of all the evaluations of one tick [1,000,000].
	Steps, TickSteps int
	// Time bounds one evaluation [25ms]; TickTime all the evaluations of
	// one tick [100ms]. A runner may derive them from its tick period.
	Time, TickTime time.Duration
	// Clock reads a monotonic clock in ns for the time budget; nil: the
	// process's monotonic clock. It is the one clock bt reads itself.
	Clock func() int64
}

func (l ExprLimits) withDefaults() ExprLimits {
	if l.Memory <= 0 {
		l.Memory = DefaultExprMemory
	}
	if l.Steps <= 0 {
		l.Steps = DefaultExprSteps
	}
	if l.TickSteps <= 0 {
		l.TickSteps = DefaultExprTickSteps
	}
	if l.Time <= 0 {
		l.Time = DefaultExprTime
	}
	if l.TickTime <= 0 {
		l.TickTime = DefaultExprTickTime
	}
	if l.Clock == nil {
		l.Clock = monotonic
	}
	return l
}

var clockBase = time.Now()

func monotonic() int64 { return int64(time.Since(clockBase)) }

// clockEvery is how many steps pass between two reads of the clock.
const clockEvery = 256

// exprState is an agent's expression machine, kept from one evaluation to
// the next so that evaluating allocates little: a VM and the budget
// counters.
type exprState struct {
	vm  vm.VM
	lim ExprLimits
	// per evaluation
	mem, steps int
	nextClock  int   // steps at which the clock is read next
	start      int64 // clock when the first step was counted; 0: not read
	deadline   int64
	// per tick: root is the agent whose ticks count (a DynamicSubTree's
	// child agent shares its parent's machine)
	root      *Agent
	tick      uint64
	tickSteps int
	tickTime  int64
}

func (a *Agent) exprMachine() *exprState {
	if a.exprs == nil {
		a.exprs = &exprState{lim: a.ExprLimits.withDefaults(), root: a}
		a.exprs.vm.MemoryBudget = uint(vmElements(a.exprs.lim.Memory))
	}
	return a.exprs
}

// beginEval starts an evaluation's budget.
func (a *Agent) beginEval() *exprState {
	s := a.exprMachine()
	if t := s.root.ticks; s.tick != t {
		s.tick, s.tickSteps, s.tickTime = t, 0, 0
	}
	s.mem, s.steps, s.nextClock, s.start = 0, 0, 0, 0
	return s
}

// endEval adds the evaluation to its tick's totals.
func (s *exprState) endEval() {
	s.tickSteps += s.steps
	if s.start != 0 {
		s.tickTime += s.lim.Clock() - s.start
	}
}

// run runs one program of the evaluation.
func (s *exprState) run(a *Agent, prog *vm.Program) (any, error) {
	return s.vm.Run(prog, exprEnv{a})
}

// evalExpr runs prog as one evaluation.
func (a *Agent) evalExpr(prog *vm.Program) (any, error) {
	s := a.beginEval()
	out, err := s.run(a, prog)
	s.endEval()
	return out, err
}

// step counts n steps and checks the step and time budgets.
func (s *exprState) step(n int) error {
	s.steps += n
	if s.steps > s.lim.Steps {
		return fmt.Errorf("step budget exceeded: more than %d steps in one evaluation", s.lim.Steps)
	}
	if s.tickSteps+s.steps > s.lim.TickSteps {
		return fmt.Errorf("step budget exceeded: more than %d steps in one tick", s.lim.TickSteps)
	}
	if s.steps < s.nextClock {
		return nil
	}
	s.nextClock = s.steps + clockEvery
	now := s.lim.Clock()
	if s.start == 0 {
		s.start = now
		s.deadline = now + min(int64(s.lim.Time), int64(s.lim.TickTime)-s.tickTime)
	}
	if now > s.deadline {
		return fmt.Errorf("time budget exceeded: an evaluation may run %v, the evaluations of a tick %v", s.lim.Time, s.lim.TickTime)
	}
	return nil
}

// alloc counts bytes an operation is about to make (what says what it
// would make, for the error) and the steps making them takes.
func (s *exprState) alloc(bytes float64, what func() string) error {
	if bytes > float64(s.lim.Memory-s.mem) {
		return fmt.Errorf("memory budget exceeded: %s (the budget is %s per evaluation)", what(), sizeText(float64(s.lim.Memory)))
	}
	s.mem += int(bytes)
	if n := allocSteps(bytes); n > 0 {
		return s.step(n)
	}
	return nil
}

// The cost model, shared by the run-time checks (the budget functions
// below and in budget_patch.go and budget_builtins.go) and the estimate
// botd check makes of constant expressions (budget_static.go), so the
// two cannot disagree.

// allocSteps are the steps of making bytes: one per 64.
func allocSteps(bytes float64) int {
	if bytes >= 64 {
		return int(bytes) / 64
	}
	return 0
}

// iterSteps are the steps a loop over n elements counts before it
// starts, each iteration weighing w.
func iterSteps(n, w int) int { return 1 + n*max(w, 1) }

// scanSteps are the steps of scanning x (contains, in, ...).
func scanSteps(x any) int {
	_, steps, _ := costScan([]any{x})
	return 1 + int(steps)
}

// regexpSteps are the steps of matching subject x.
func regexpSteps(x any) int { return 1 + strLen(x)/regexpBytes }

// patternCost are the steps of compiling pattern x.
func patternCost(x any) int { return 1 + strLen(x)*patternSteps }

// vmElements is expr-lang's own budget for the memory budget: the
// elements of the ranges, arrays and maps one program may make.
func vmElements(memory int) int { return memory / elemBytes }

// sizeText writes a byte count for people.
func sizeText(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}

// valueBytes measures a value for MaxValueBytes: a string by its length,
// a number or boolean as 8, an array or map by its elements (and keys). It
// stops counting once past the limit.
func valueBytes(v any, depth int) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case nil:
		return 0
	case []any:
		n := 0
		for _, e := range x {
			if n += valueBytes(e, depth+1); n > MaxValueBytes || depth > 32 {
				return n + MaxValueBytes
			}
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range x {
			if n += len(k) + valueBytes(e, depth+1); n > MaxValueBytes || depth > 32 {
				return n + MaxValueBytes
			}
		}
		return n
	}
	// Other arrays and maps ([]string from split, []int from a range,
	// ...): element by element.
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Slice, reflect.Array:
		n := 0
		for i := 0; i < r.Len() && n <= MaxValueBytes; i++ {
			n += valueBytes(r.Index(i).Interface(), depth+1)
		}
		return n
	case reflect.Map:
		n := 0
		for it := r.MapRange(); it.Next() && n <= MaxValueBytes; {
			n += valueBytes(it.Key().Interface(), depth+1) + valueBytes(it.Value().Interface(), depth+1)
		}
		return n
	case reflect.String:
		return r.Len()
	}
	return 8
}
