package groot2

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// hookMission: a gate that waits, RUNNING, until the test sets "go"
// (after setting its breakpoint, however slow the machine), a Script that
// marks the blackboard, a long Sleep. A breakpoint before "mark" holds the
// mission there.
const hookMission = `<root BTCPP_format="4">
  <BehaviorTree ID="Debugged">
    <Sequence name="seq">
      <Script code="go:=0" name="closed"/>
      <Precondition if="go==1" else="RUNNING" name="first"><AlwaysSuccess/></Precondition>
      <Script code="reached:=1" name="mark"/>
      <Sleep msec="60000" name="hold"/>
    </Sequence>
  </BehaviorTree>
</root>`

// openGate lets hookMission go on past its gate.
func openGate(t *testing.T, r *runner.Runner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if rep := r.Do(ctx, protocol.Command{ID: fmt.Sprintf("gate-%d", time.Now().UnixNano()), Op: protocol.OpBlackboardSet, Key: "go", Value: 1.0}); !rep.OK {
		t.Fatalf("blackboard.set go: %+v", rep.Error)
	}
}

// startDebugServer runs the endpoint with hooks allowed.
func startDebugServer(t *testing.T, r *runner.Runner, silence time.Duration) *Server {
	t.Helper()
	s, err := New(Config{Addr: "127.0.0.1:0", Source: r, AllowDebug: true, Debug: r, HookSilence: silence})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("the endpoint did not stop")
		}
	})
	return s
}

// uidOf finds the _uid of the node named name in a FULLTREE XML.
func uidOf(t *testing.T, xml, name string) int {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `"[^>]*_uid="(\d+)"`).FindStringSubmatch(xml)
	if m == nil {
		m = regexp.MustCompile(`_uid="(\d+)"[^>]*name="` + name + `"`).FindStringSubmatch(xml)
	}
	if m == nil {
		t.Fatalf("no node %q in %s", name, xml)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// codeOf is uid's status code in a STATUS answer.
func codeOf(m map[string]any, uid int) int {
	for _, e := range m["status"].([]any) {
		if p := e.([]any); int(p[0].(float64)) == uid {
			return int(p[1].(float64))
		}
	}
	return -1
}

func breakpoint(uid int) map[string]any {
	return map[string]any{"enabled": true, "uid": uid, "mode": 0, "once": false, "desired_status": "SKIPPED", "position": 0}
}

// TestLibzmqBreakpoint: from pyzmq as Groot2 sends them, a breakpoint is
// inserted, the BREAKPOINT_REACHED notice comes on the publisher, the
// mission waits at the node (RUNNING, not run) while the robot's loop
// goes on, HOOKS_DUMP lists it, the unlock lets the tree go on; bad hook
// requests get error replies.
func TestLibzmqBreakpoint(t *testing.T) {
	r := startRunner(t)
	s := startDebugServer(t, r, 0)
	c := startClient(t, s.Addr().Port)
	c.ask(map[string]any{"op": "subscribe"})
	loadMission(t, r, []byte(hookMission))
	tree := c.until(map[string]any{"op": "fulltree"}, "the mission's tree", func(m map[string]any) bool {
		x, _ := m["xml"].(string)
		return strings.Contains(x, `ID="Debugged"`)
	})
	xml := tree["xml"].(string)
	mark, hold := uidOf(t, xml, "mark"), uidOf(t, xml, "hold")

	ins := c.ask(map[string]any{"op": "hook", "type": "I", "body": breakpoint(mark)})
	if ins["echo_ok"] != true || ins["nparts"].(float64) != 1 {
		t.Fatalf("HOOK_INSERT: %v", ins)
	}
	openGate(t, r)
	n := c.ask(map[string]any{"op": "notice"})
	if n["type"] != "N" || n["proto"].(float64) != ProtocolID || int(n["uid"].(float64)) != mark || n["nparts"].(float64) != 2 {
		t.Fatalf("BREAKPOINT_REACHED notice: %v", n)
	}
	// Held: RUNNING, never run (the blackboard has no "reached"), the
	// long Sleep not started, while the loop ticks on.
	before := r.State().Tick.Count
	c.until(map[string]any{"op": "status"}, "ticks going on", func(m map[string]any) bool {
		return r.State().Tick.Count >= before+10
	})
	st := c.ask(map[string]any{"op": "status"})
	if codeOf(st, mark) != StatusRunning || codeOf(st, hold) != StatusIdle || codeOf(st, 1) != StatusRunning {
		t.Errorf("while held: mark %d, hold %d, root %d", codeOf(st, mark), codeOf(st, hold), codeOf(st, 1))
	}
	bb := c.ask(map[string]any{"op": "blackboard", "names": "Debugged"})
	if v := bb["bb"].(map[string]any)["Debugged"].(map[string]any)["reached"]; v != nil {
		t.Errorf("the held Script ran: reached=%v", v)
	}
	dump := c.ask(map[string]any{"op": "hook", "type": "D"})
	var hooks []map[string]any
	if err := json.Unmarshal([]byte(dump["body"].(string)), &hooks); err != nil || len(hooks) != 1 {
		t.Fatalf("HOOKS_DUMP %v (%v)", dump, err)
	}
	if h := hooks[0]; int(h["uid"].(float64)) != mark || h["enabled"] != true || h["mode"].(float64) != 0 || h["position"].(float64) != 0 || h["desired_status"] != "SKIPPED" {
		t.Errorf("HOOKS_DUMP entry %v", h)
	}

	// Errors: an unknown uid, a malformed body, a hook that does not
	// exist; the REQ client is answered every time.
	for _, tc := range []struct {
		typ  string
		body any
		want string
	}{
		{"I", breakpoint(999), "Node ID not found"},
		{"I", map[string]any{"uid": mark}, "needs enabled"},
		{"R", map[string]any{"uid": mark, "position": 1}, "Node ID not found"},
		{"U", map[string]any{"uid": hold, "position": 0, "desired_status": "SKIPPED", "remove_when_done": false}, "Node ID not found"},
	} {
		out := c.ask(map[string]any{"op": "hook", "type": tc.typ, "body": tc.body})
		e, _ := out["error"].([]any)
		if len(e) != 2 || !strings.Contains(e[1].(string), tc.want) {
			t.Errorf("%s %v: %v, want an error with %q", tc.typ, tc.body, out, tc.want)
		}
	}

	// Unlock (and remove): the Script runs, the tree goes on to the
	// long Sleep.
	u := c.ask(map[string]any{"op": "hook", "type": "U", "body": map[string]any{"uid": mark, "position": 0, "desired_status": "SKIPPED", "remove_when_done": true}})
	if u["echo_ok"] != true {
		t.Fatalf("BREAKPOINT_UNLOCK: %v", u)
	}
	c.until(map[string]any{"op": "status"}, "the tree going on", func(m map[string]any) bool {
		return codeOf(m, hold) == StatusRunning && codeOf(m, mark) == StatusSuccess
	})
	if d := c.ask(map[string]any{"op": "hook", "type": "D"}); d["body"] != "[]" {
		t.Errorf("hooks left after an unlock with remove_when_done: %v", d)
	}

	// A REPLACE on the long Sleep (an array, as Groot2 may send): the
	// mission succeeds at once; the hooks go with the mission.
	rep := breakpoint(hold)
	rep["mode"], rep["desired_status"] = 1, "SUCCESS"
	if out := c.ask(map[string]any{"op": "hook", "type": "I", "body": []any{rep}}); out["echo_ok"] != true {
		t.Fatalf("HOOK_INSERT of a REPLACE: %v", out)
	}
	c.until(map[string]any{"op": "status"}, "the mission succeeded", func(m map[string]any) bool {
		return codeOf(m, 1) == StatusSuccess
	})
	if d := c.ask(map[string]any{"op": "hook", "type": "D"}); d["body"] != "[]" {
		t.Errorf("hooks after the mission ended: %v", d)
	}
	for _, typ := range []string{"A", "X"} {
		if out := c.ask(map[string]any{"op": "hook", "type": typ}); out["echo_ok"] != true {
			t.Errorf("%s: %v", typ, out)
		}
	}
}

// TestLibzmqSilentClientReleasesBreakpoint: a client that stops sending
// requests for the configured silence loses its hooks; the mission goes
// on.
func TestLibzmqSilentClientReleasesBreakpoint(t *testing.T) {
	const silence = 300 * time.Millisecond
	r := startRunner(t)
	s := startDebugServer(t, r, silence)
	c := startClient(t, s.Addr().Port)
	loadMission(t, r, []byte(hookMission))
	tree := c.until(map[string]any{"op": "fulltree"}, "the mission's tree", func(m map[string]any) bool {
		x, _ := m["xml"].(string)
		return strings.Contains(x, `ID="Debugged"`)
	})
	mark, hold := uidOf(t, tree["xml"].(string), "mark"), uidOf(t, tree["xml"].(string), "hold")
	c.ask(map[string]any{"op": "hook", "type": "I", "body": breakpoint(mark)})
	openGate(t, r)
	c.until(map[string]any{"op": "status"}, "the breakpoint reached", func(m map[string]any) bool {
		return codeOf(m, mark) == StatusRunning
	})
	// Polling is the heartbeat: held across many silences' worth of polls.
	deadline := time.Now().Add(3 * silence)
	for time.Now().Before(deadline) {
		if st := c.ask(map[string]any{"op": "status"}); codeOf(st, hold) != StatusIdle {
			t.Fatalf("released while the client polled: %v", st)
		}
		time.Sleep(silence / 10)
	}
	time.Sleep(2 * silence) // the client goes silent
	c.until(map[string]any{"op": "status"}, "the mission going on", func(m map[string]any) bool {
		return codeOf(m, hold) == StatusRunning
	})
	if d := c.ask(map[string]any{"op": "hook", "type": "D"}); d["body"] != "[]" {
		t.Errorf("hooks after the silence: %v", d)
	}
}

// Without allow_debug, hook requests are refused (Handle, no client
// needed), and D, A, X are answered as empty.
func TestHooksRefusedWithoutAllowDebug(t *testing.T) {
	r := startRunner(t)
	s, err := New(Config{Addr: "127.0.0.1:0", Source: r, Debug: r})
	if err != nil {
		t.Fatal(err)
	}
	defer s.rep.Close()
	defer s.pub.Close()
	head := []byte{2, 'I', 1, 2, 3, 4}
	if out := s.Handle([][]byte{head, []byte(`{}`)}); string(out[0]) != "error" {
		t.Errorf("HOOK_INSERT: %q", out)
	}
	if _, err := r.Hook(context.Background(), runner.HookOp{Op: runner.HookList}); err == nil {
		t.Error("the runner allowed hooks though the endpoint does not")
	}
	for _, typ := range []byte{'D', 'A', 'X'} {
		if out := s.Handle([][]byte{{2, typ, 1, 2, 3, 4}}); string(out[0]) == "error" {
			t.Errorf("%c: %q", typ, out)
		}
	}
}
