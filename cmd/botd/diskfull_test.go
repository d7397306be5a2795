//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fullDisk mounts a small tmpfs (root only; skips otherwise) and returns
// it with a function that fills it up and one that frees it again.
func fullDisk(t *testing.T) (dir string, fill, free func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	filler := filepath.Join(dir, "filler")
	fill = func() {
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		chunk := bytes.Repeat([]byte("x"), 4096)
		for {
			if _, err := f.Write(chunk); err != nil {
				break // ENOSPC: the disk is full
			}
		}
		f.Close()
	}
	free = func() { _ = os.Remove(filler) }
	return dir, fill, free
}

// A full disk under a running robot: a new mission is refused with
// STORAGE_FAILED (never "ok" and then lost), events still reach the ground
// station live, state.errors says STORAGE_FAILED, and once space is back
// everything works again and the error clears.
func TestDiskFull(t *testing.T) {
	dir, fill, free := fullDisk(t)
	b := mqtttest.StartBroker(t, "")
	const robot = "rover-d"
	p := startDaemonProc(t, "-broker", b.URL(), "-state-dir", dir, "-robot", robot)
	r := newGround(t, b.URL(), robot)
	r.waitFor(t, "the patrol running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })

	fill()
	rep := r.send(t, robot, protocol.Command{Op: protocol.OpMissionLoad, Mission: readMission(t, "hello.json"), Start: true, Replace: true})
	if rep.OK || rep.Error.Code != protocol.ErrStorageFailed {
		t.Fatalf("load on a full disk: %+v", rep)
	}
	if rep := r.send(t, robot, protocol.Command{Op: protocol.OpMissionPause}); !rep.OK {
		t.Fatalf("pause: %+v", rep.Error)
	}
	r.waitFor(t, "the pause event, live", func(r *groundRec) bool { return r.hasEvent("mission.paused") })
	hasStorageError := func(r *groundRec) bool {
		for _, e := range r.lastState().Errors {
			if e.Code == protocol.ErrStorageFailed {
				return true
			}
		}
		return false
	}
	r.waitFor(t, "STORAGE_FAILED in state.errors", hasStorageError)

	free()
	if rep := r.send(t, robot, protocol.Command{Op: protocol.OpMissionResume}); !rep.OK {
		t.Fatalf("resume: %+v", rep.Error)
	}
	r.waitFor(t, "the error cleared", func(r *groundRec) bool { return !hasStorageError(r) && r.hasEvent("mission.resumed") })
	rep = r.send(t, robot, protocol.Command{Op: protocol.OpMissionLoad, Mission: readMission(t, "hello.json"), Start: true, Replace: true})
	if !rep.OK {
		t.Fatalf("load once space is back: %+v", rep.Error)
	}
	p.stop(t)
}
