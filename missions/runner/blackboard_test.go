package runner

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// blackboard.set is checked against how the running mission uses the key
// (a string where a Wait reads a number would end the mission in ERROR),
// against the value the key holds when the mission says nothing or none
// runs, and strings are size-limited.
func TestRunnerBlackboardSetChecked(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Writable = []string{"speed", "label"} })
	set := func(key string, v any) protocol.Reply {
		t.Helper()
		return tr.do(protocol.Command{Op: protocol.OpBlackboardSet, Key: key, Value: v})
	}
	refused := func(rep protocol.Reply, code, msg string) {
		t.Helper()
		if rep.OK || rep.Error.Code != code || rep.Error.Path != "/value" || !strings.Contains(rep.Error.Message, msg) {
			t.Errorf("reply %+v, want %s at /value saying %q", rep.Error, code, msg)
		}
	}
	// No mission and no value yet: any type.
	tr.mustOK(protocol.Command{Op: protocol.OpBlackboardSet, Key: "speed", Value: 5.0})
	loop := `{"type":"Repeater","params":{"count":-1},"children":[{"type":"Wait","params":{"ms":"{speed}"}}]}`
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, loop), Start: true})
	tr.waitMode(protocol.ModeRunning)

	refused(set("speed", "fast"), protocol.ErrValidation, "reads \"speed\" as a number (/trees/main/children/0/params/ms); got a string")
	refused(set("speed", true), protocol.ErrValidation, "got a boolean")
	tr.mustOK(protocol.Command{Op: protocol.OpBlackboardSet, Key: "speed", Value: 7.0})

	// The mission says nothing of label: the first value sets its type.
	refused(set("label", strings.Repeat("x", MaxOperatorString+1)), protocol.ErrTooLarge, "exceeds the limit")
	tr.mustOK(protocol.Command{Op: protocol.OpBlackboardSet, Key: "label", Value: strings.Repeat("x", MaxOperatorString)})
	refused(set("label", 3.0), protocol.ErrValidation, `key "label" holds a string; got a number`)

	ticks := tr.State().Tick.Count
	s := tr.waitFor("more ticks", func(s protocol.State) bool { return s.Tick.Count > ticks+5 })
	if s.Mode != protocol.ModeRunning || s.Mission.Status != protocol.RunRunning {
		t.Fatalf("the mission did not keep running: %s %+v", s.Mode, s.Mission)
	}

	// No mission runs: the value the key holds decides.
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	tr.waitMode(protocol.ModeIdle)
	refused(set("speed", "slow"), protocol.ErrValidation, `key "speed" holds a number; got a string`)
	tr.mustOK(protocol.Command{Op: protocol.OpBlackboardSet, Key: "speed", Value: 2.0})
}
