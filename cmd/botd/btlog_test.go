package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/groot2"
	"github.com/botd-project/botd/telemetry/protocol"
)

// With a btlog section the daemon records each mission run in its state
// directory: a file Groot2's Log Replay reads (FileLogger2's format) with
// the mission's tree and transitions; the directory keeps its bound.
func TestDaemonRecordsMissionsAsBTLog(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	dir, state := t.TempDir(), t.TempDir()
	hw, _ := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	cfg := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "robot: rover-r\nhardware: %s\nfailsafe:\n  require_gcs: false\nbtlog:\n  dir: recordings\n  max_files: 2\n", hw), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", cfg, "-listen", addr, "-state-dir", state)
	waitBroker(t, addr)
	r := newGround(t, "tcp://"+addr, "rover-r")
	for i := range 3 {
		rep := r.send(t, "rover-r", protocol.Command{Op: protocol.OpMissionLoad, Mission: readMission(t, "hello.json"), Start: true, Replace: true})
		if !rep.OK {
			t.Fatalf("load hello: %+v", rep.Error)
		}
		r.waitFor(t, fmt.Sprintf("hello's run %d to finish", i+1), func(r *groundRec) bool {
			n := 0 // waitFor holds r.mu
			for _, e := range r.events {
				if e.Kind == "mission.finished" {
					n++
				}
			}
			return n > i
		})
	}
	p.stop(t)
	ents, err := os.ReadDir(filepath.Join(state, "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Fatalf("%d recordings, want the bound of 2: %v", len(ents), ents)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(state, "recordings", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := groot2.ParseBTLog(data)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if !strings.Contains(e.Name(), "-hello-") || !strings.HasSuffix(e.Name(), groot2.BTLogExt) || !strings.Contains(string(f.XML), `name="start waving"`) || len(f.Transitions) == 0 {
			t.Errorf("%s: %d transitions, tree %.200s", e.Name(), len(f.Transitions), f.XML)
		}
	}
}
