package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The lock itself: a second holder is refused and told who holds it; the
// lock is free again once released.
func TestStateLock(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	l, err := lockStateDir(dir, "rover-1", now)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockStateDir(dir, "rover-1", now)
	if !errors.Is(err, errLocked) || !strings.Contains(err.Error(), "robot=rover-1") || !strings.Contains(err.Error(), "-state-dir") {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := lockStateDir(dir, "rover-1", now)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Close()
}

// A second daemon with the same robot id and state directory refuses to
// start, saying why, while the first runs on.
func TestSecondDaemonRefusesTheSameStateDir(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	first := startDaemonProc(t, "-broker", b.URL(), "-state-dir", dir, "-robot", "rover-lock")
	r := newGround(t, b.URL(), "rover-lock")
	r.waitFor(t, "the first daemon ONLINE", func(r *groundRec) bool { return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOnline })

	second := startDaemonProc(t, "-broker", b.URL(), "-state-dir", dir, "-robot", "rover-lock")
	err = second.cmd.Wait()
	if err == nil || second.cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("the second daemon: %v\n%s", err, second.out.String())
	}
	if out := second.out.String(); !strings.Contains(out, "is in use by another botd") || !strings.Contains(out, "robot=rover-lock") {
		t.Errorf("the second daemon does not say why:\n%s", out)
	}
	// The first daemon runs on, undisturbed (waitFor reads under the lock).
	r.waitFor(t, "the first daemon online and running on", func(r *groundRec) bool {
		return r.conn[len(r.conn)-1] == protocol.ConnOnline && r.lastState().Mode == protocol.ModeRunning
	})
	first.stop(t)
}
