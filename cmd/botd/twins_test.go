package main

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
)

// TestSecondDaemonWithTheSameRobotIDStops: a second botd started with a
// robot id that is already online on the broker says so plainly and exits,
// and the first keeps its connection (before, the two took each other's
// client id 8-10 times in 10 s).
func TestSecondDaemonWithTheSameRobotIDStops(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p1 := startDaemonProc(t, "-broker", b.URL(), "-state-dir", t.TempDir(), "-robot", "rover-twin")
	r := newGround(t, b.URL(), "rover-twin")
	r.waitFor(t, "the first daemon ONLINE", func(r *groundRec) bool { return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOnline })
	r.waitFor(t, "its state", func(r *groundRec) bool { return len(r.states) > 0 })

	p2 := startDaemonProc(t, "-broker", b.URL(), "-state-dir", t.TempDir(), "-robot", "rover-twin")
	done := make(chan error, 1)
	go func() { done <- p2.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err == nil || !errors.As(err, &ee) {
			t.Fatalf("the second daemon exited with %v, want a failure", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the second daemon with the same robot id is still running")
	}
	if out := p2.out.String(); !strings.Contains(out, "rover-twin") || !strings.Contains(out, "is already online") || !strings.Contains(out, "-robot NAME") {
		t.Errorf("the second daemon did not say why, or what to do:\n%s", out)
	}
	r.mu.Lock()
	for _, c := range r.conn {
		if c != protocol.ConnOnline {
			t.Errorf("the first daemon went %s while the second tried", c)
		}
	}
	r.mu.Unlock()
	p1.stop(t)
}

// The hint when the embedded broker's port is taken names -robot too:
// following it literally must not start a twin.
func TestPortInUseHintNamesTheRobotFlag(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, out, errOut := runCmd(t, "-listen", l.Addr().String(), "-state-dir", t.TempDir())
	if code == 0 || !strings.Contains(out+errOut, "-robot NAME") {
		t.Fatalf("exit %d, output without the -robot hint:\n%s%s", code, out, errOut)
	}
}
