package bt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

var stubType = NodeType{
	Name: "Stub", Kind: Leaf, Category: "action",
	Doc: "A scripted stand-in for a node botd cannot run. `script` is a list of steps, `STATUS[:N]` (that status for the node's " +
		"next N ticks, 1 when N is left out) or `STATUS:DURATION` (from the step's first tick until that long has passed: 500ms, 2s). " +
		"The steps run over the whole mission, not per activation, and the last one repeats: \"Running:3,Success\" runs three " +
		"ticks then succeeds from then on; \"Failure,Success\" fails the first time and succeeds afterwards.",
	Params: []Param{{Name: "script", Type: TString, Required: true, Doc: "the steps, e.g. Running:3,Success or Running:2s,Failure,Success"}},
	New:    newStub,
}

// stubStep is one step of a stub's script.
type stubStep struct {
	st    Status
	ticks int64 // for this many ticks; 0: see dur
	dur   int64 // for this long (ns)
}

// parseStubScript reads a Stub's script.
func parseStubScript(s string) ([]stubStep, error) {
	var steps []stubStep
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		name, count, hasCount := strings.Cut(item, ":")
		st, ok := stubStatus(name)
		if !ok {
			return nil, fmt.Errorf("%q is not a status (Success, Failure, Running, Error)", name)
		}
		step := stubStep{st: st, ticks: 1}
		if hasCount {
			count = strings.TrimSpace(count)
			if n, err := strconv.ParseInt(count, 10, 64); err == nil && n > 0 {
				step.ticks = n
			} else if d, err := time.ParseDuration(count); err == nil && d > 0 {
				step.ticks, step.dur = 0, int64(d)
			} else {
				return nil, fmt.Errorf("%q: want a number of ticks or a duration (500ms, 2s)", item)
			}
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// stubStatus reads a status name in any case, long or short.
func stubStatus(s string) (Status, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "SUCCESS", "SUCCEED", "S":
		return Success, true
	case "FAILURE", "FAIL", "F":
		return Failure, true
	case "RUNNING", "R":
		return Running, true
	case "ERROR", "E":
		return Error, true
	}
	return Idle, false
}

type stub struct {
	steps []stubStep
	mem   Mem[stubMem]
}

// stubMem is where a stub is in its script (kept for the mission).
type stubMem struct {
	step  int   // the current step
	ticks int64 // ticks spent in it
	start int64 // when it started (its first tick)
}

func newStub(b *Builder) Behavior {
	raw, _ := b.Raw("script")
	s, _ := raw.(string)
	steps, err := parseStubScript(s)
	if err != nil {
		b.Errorf("script", "%s", err)
	}
	return &stub{steps: steps, mem: Reserve[stubMem](b)}
}

func (s *stub) Tick(a *Agent, n *Node) Status {
	if len(s.steps) == 0 {
		a.Emit(n.Index, "error", "Stub: no status script")
		return Error
	}
	m := s.mem.Of(a, n)
	for m.step < len(s.steps)-1 {
		step := s.steps[m.step]
		if m.ticks == 0 {
			m.start = a.Now()
		}
		if (step.dur == 0 && m.ticks < step.ticks) || (step.dur > 0 && a.Now()-m.start < step.dur) {
			m.ticks++
			return stubError(a, n, step.st)
		}
		m.step, m.ticks = m.step+1, 0
	}
	return stubError(a, n, s.steps[len(s.steps)-1].st)
}

// stubError says why a scripted ERROR is one.
func stubError(a *Agent, n *Node, st Status) Status {
	if st == Error {
		a.Emit(n.Index, "error", nodeName(n)+": ERROR, as its status script says (a stand-in node)")
	}
	return st
}

// IsStubScript reports whether s reads as a Stub's script (a list of
// statuses with counts or durations), as opposed to a node type name.
func IsStubScript(s string) bool {
	_, err := parseStubScript(s)
	return err == nil
}
