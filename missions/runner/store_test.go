package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

func missionNamed(id string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":%q,"main":"main","trees":{"main":%s}}`, id, id, waitLong))
}

// The store keeps at most MaxStored missions: the oldest that is not
// running goes, with an event, from memory and from disk; a restart
// remembers only what is left.
func TestStoredMissionsAreBounded(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000004"}
	tr := startRunner(t, dir, func(c *Config) { c.MaxStored = 2 })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: missionNamed(ids[0]), Start: true}) // runs: never evicted
	for _, id := range ids[1:] {
		tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: missionNamed(id)})
	}
	var evicted []string
	for _, e := range tr.events.snapshot() {
		if e.Kind == "mission.evicted" {
			evicted = append(evicted, e.Mission)
		}
	}
	if fmt.Sprint(evicted) != fmt.Sprint(ids[1:3]) {
		t.Fatalf("evicted %v, want %v (the oldest not running)", evicted, ids[1:3])
	}
	if rep := tr.do(protocol.Command{Op: protocol.OpMissionStart, MissionID: ids[1], Replace: true}); rep.OK || rep.Error.Code != protocol.ErrNoMission {
		t.Fatalf("start of an evicted mission: %+v", rep)
	}
	tr.stop()

	for _, id := range ids[1:3] {
		if left, _ := filepath.Glob(filepath.Join(dir, "missions", id+"*.json")); len(left) != 0 {
			t.Errorf("%s still on disk: %v", id, left)
		}
	}
	for _, id := range []string{ids[0], ids[3]} {
		if kept, _ := filepath.Glob(filepath.Join(dir, "missions", id+"*.json")); len(kept) != 1 {
			t.Errorf("%s stored as %v, want one file", id, kept)
		}
	}
	tr2 := startRunner(t, dir, func(c *Config) { c.MaxStored = 2 })
	if n := len(tr2.store); n != 2 {
		t.Fatalf("%d missions after a restart, want 2", n)
	}
	for _, id := range []string{ids[0], ids[3]} {
		if tr2.store[id] == nil {
			t.Errorf("%s lost across the restart", id)
		}
	}
}

// A problem reported from outside the runner shows in state.errors until
// it is cleared.
func TestSetErrorShowsInState(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.SetError("events.storage", &protocol.StateError{Code: protocol.ErrStorageFailed, Level: "ERROR", Message: "disk full"})
	tr.waitFor("the error in state", func(s protocol.State) bool {
		for _, e := range s.Errors {
			if e.Code == protocol.ErrStorageFailed {
				return true
			}
		}
		return false
	})
	tr.SetError("events.storage", nil)
	tr.waitFor("the error cleared", func(s protocol.State) bool {
		for _, e := range s.Errors {
			if e.Code == protocol.ErrStorageFailed {
				return false
			}
		}
		return true
	})
}

// A mission that cannot be stored is refused with STORAGE_FAILED, and
// nothing changes: the running mission keeps running. Once the disk
// works again the same load is accepted.
func TestMissionThatCannotBeStoredIsRefused(t *testing.T) {
	dir := t.TempDir()
	tr := startRunner(t, dir, nil)
	running := "00000000-0000-4000-8000-0000000000aa"
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: missionNamed(running), Start: true})
	docs := filepath.Join(dir, "missions")
	saved := docs + ".saved"
	if err := os.Rename(docs, saved); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(docs, nil, 0o644) // the documents' folder is now a file
	rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: missionNamed("00000000-0000-4000-8000-0000000000bb"), Start: true, Replace: true})
	if rep.OK || rep.Error.Code != protocol.ErrStorageFailed {
		t.Fatalf("reply %+v, want STORAGE_FAILED", rep)
	}
	if s := tr.State(); s.Mission == nil || s.Mission.ID != running || s.Mission.Status != protocol.RunRunning {
		t.Fatalf("the refused load changed the mission: %+v", s.Mission)
	}
	os.Remove(docs)
	os.Rename(saved, docs)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: missionNamed("00000000-0000-4000-8000-0000000000bb"), Start: true, Replace: true})
}
