package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// debugMission: 0 MemSequence, 1 Wait, 2 Log "reached", 3 a minute's Wait.
const debugMission = `{"format":"botd/mission@1","name":"dbg","revision":1,"main":"main","trees":{"main":
{"type":"MemSequence","children":[{"type":"Wait","params":{"ms":200}},{"type":"Log","params":{"message":"reached"}},{"type":"Wait","params":{"ms":60000}}]}}}`

// debugSessionRun is a running `botctl debug`, fed line by line.
type debugSessionRun struct {
	in   *io.PipeWriter
	out  *syncBuffer
	errb *syncBuffer
	code chan int
}

func startDebug(t *testing.T, args ...string) *debugSessionRun {
	t.Helper()
	pr, pw := io.Pipe()
	s := &debugSessionRun{in: pw, out: &syncBuffer{}, errb: &syncBuffer{}, code: make(chan int, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	go func() { s.code <- run(ctx, append([]string{"debug"}, args...), pr, s.out, s.errb) }()
	t.Cleanup(func() { pw.Close(); cancel() })
	return s
}

func (s *debugSessionRun) say(line string) { fmt.Fprintln(s.in, line) }

// see waits for text in the session's output.
func (s *debugSessionRun) see(t *testing.T, d *daemon, text string) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("%q from botctl debug (stdout:\n%s\nstderr:\n%s)", text, s.out.String(), s.errb.String()),
		func() bool { return strings.Contains(s.out.String()+s.errb.String(), text) }, d)
}

// end closes stdin and returns the exit status.
func (s *debugSessionRun) end(t *testing.T) int {
	t.Helper()
	s.in.Close()
	select {
	case c := <-s.code:
		return c
	case <-time.After(30 * time.Second):
		t.Fatalf("botctl debug did not end\n%s\n%s", s.out.String(), s.errb.String())
		return -1
	}
}

func debugRobot(t *testing.T, name, extra string) (*daemon, []string, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "botd.yaml")
	os.WriteFile(cfg, fmt.Appendf(nil, "robot: %s\nhardware: %s\nfailsafe:\n  require_gcs: false\n%s", name, repoFile(t, "configs/sim.yaml"), extra), 0o644)
	d := startBotd(t, "-config", cfg)
	waitOnline(t, d, name)
	file := filepath.Join(dir, "dbg.json")
	os.WriteFile(file, []byte(debugMission), 0o644)
	return d, []string{"--broker", d.url, "--timeout", "15s"}, file
}

func missionStatus(t *testing.T, d *daemon, robot string) string {
	r := botctl(t, "status", robot, "--json", "--broker", d.url)
	var s robotJSON
	if json.Unmarshal([]byte(r.stdout), &s) != nil || s.State == nil || s.State.Mission == nil {
		return ""
	}
	return s.State.Mission.Status
}

// botctl debug against a real daemon: a breakpoint holds the mission at
// its node, list shows it held, continue lets it on, a step with a status
// forces a minute-long Wait to succeed, and the session's end clears its
// hooks. A robot whose config does not allow debugging refuses.
func TestDebugSession(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	d, b, file := debugRobot(t, "rover-d", "debug:\n  allow: true\n")
	s := startDebug(t, append([]string{"rover-d", "break", "2"}, b...)...)
	s.see(t, d, "NO_MISSION")
	expect(t, botctl(t, append([]string{"mission", "send", file, "--robot", "rover-d", "--start"}, b...)...), 0)
	expect(t, botctl(t, append([]string{"pause", "rover-d"}, b...)...), 0)
	s.say("break 2")
	s.see(t, d, "breakpoint at node 2 Log (pre)")
	expect(t, botctl(t, append([]string{"resume", "rover-d"}, b...)...), 0)
	s.see(t, d, "HELD at node 2 Log (pre)")
	s.say("list")
	s.see(t, d, "hits 1  HELD")
	if ev := botctl(t, append([]string{"events", "rover-d", "--json"}, b...)...); strings.Contains(ev.stdout, `"reached"`) {
		t.Fatalf("the held Log ran:\n%s", ev.stdout)
	}
	s.say("continue")
	s.see(t, d, "continued node 2 Log")
	s.see(t, d, "released node 2 Log (unlocked)")

	s.say("break 3")
	s.see(t, d, "HELD at node 3 Wait (pre)")
	if st := missionStatus(t, d, "rover-d"); st != protocol.RunRunning {
		t.Fatalf("mission %s while held", st)
	}
	s.say("step success")
	s.see(t, d, "stepped node 3 Wait, ending it with SUCCESS")
	waitFor(t, 30*time.Second, "the mission's success", func() bool { return missionStatus(t, d, "rover-d") == protocol.RunSucceeded }, d)
	s.see(t, d, "removed (the mission ended)")
	if c := s.end(t); c != exitRefused { // the first break was refused
		t.Fatalf("exit %d\n%s\n%s", c, s.out.String(), s.errb.String())
	}
	if !strings.Contains(s.out.String(), "session ended; its hooks are cleared") {
		t.Fatalf("the session did not clear its hooks:\n%s", s.out.String())
	}

	// Bad input is the session's, not the robot's.
	expect(t, botctl(t, append([]string{"debug", "rover-d", "break", "nosuch"}, b...)...), exitUsage, `no node "nosuch"`)

	off, ob, _ := debugRobot(t, "rover-n", "")
	_ = off
	expect(t, botctl(t, append([]string{"debug", "rover-n", "list"}, ob...)...), exitRefused, "DEBUG_NOT_ALLOWED")
}

// A session that goes silent (no heartbeat) loses its hooks: the robot
// releases the held node after debug.client_silence, and says why.
func TestDebugSilentSessionReleased(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	d, b, file := debugRobot(t, "rover-q", "debug:\n  allow: true\n  client_silence: 1s\n")
	expect(t, botctl(t, append([]string{"mission", "send", file, "--robot", "rover-q", "--start"}, b...)...), 0)
	s := startDebug(t, append([]string{"rover-q", "break", "3", "--heartbeat", "1h"}, b...)...)
	s.see(t, d, "HELD at node 3 Wait")
	s.see(t, d, "released node 3 Wait (removed)")
	s.see(t, d, "hook on node 3 Wait removed (the debugging client was silent for")
	s.end(t)
}

// On a robot that requires signed commands, the hook commands that hold,
// release or force a node are signed (botctl debug --key); list is not.
func TestDebugSigned(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	key := filepath.Join(t.TempDir(), "ops.key")
	expect(t, botctl(t, "keygen", "--out", key), 0)
	pub, _ := os.ReadFile(key + ".pub")
	d, b, file := debugRobot(t, "rover-k", fmt.Sprintf("debug:\n  allow: true\nsecurity:\n  require_signed_missions: true\n  public_keys: [%q]\n", strings.TrimSpace(string(pub))))
	expect(t, botctl(t, append([]string{"mission", "send", file, "--robot", "rover-k", "--start", "--key", key}, b...)...), 0)
	modeIs(t, d, "rover-k", protocol.ModeRunning)
	expect(t, botctl(t, append([]string{"debug", "rover-k", "list"}, b...)...), 0, "no hooks")
	expect(t, botctl(t, append([]string{"debug", "rover-k", "break", "3"}, b...)...), exitRefused, "SIGNATURE_REQUIRED")
	s := startDebug(t, append([]string{"rover-k", "break", "3", "--key", key}, b...)...)
	s.see(t, d, "HELD at node 3 Wait")
	s.say("step failure")
	s.see(t, d, "stepped node 3 Wait, ending it with FAILURE")
	waitFor(t, 30*time.Second, "the mission's failure", func() bool { return missionStatus(t, d, "rover-k") == protocol.RunFailed }, d)
	if c := s.end(t); c != 0 {
		t.Fatalf("exit %d\n%s\n%s", c, s.out.String(), s.errb.String())
	}
}
