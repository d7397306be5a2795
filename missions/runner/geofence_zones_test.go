package runner

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// missionFence is a scriptedFence that records the missions SetMission gave it.
type missionFence struct {
	scriptedFence
	mmu      sync.Mutex
	missions []string // each mission's name, "" for nil
}

func (f *missionFence) SetMission(m *missions.Mission) {
	f.mmu.Lock()
	defer f.mmu.Unlock()
	name := ""
	if m != nil {
		name = m.Doc.Name
	}
	f.missions = append(f.missions, name)
}

func (f *missionFence) seen() string {
	f.mmu.Lock()
	defer f.mmu.Unlock()
	return strings.Join(f.missions, ",")
}

// The fence hears which mission runs: at its start, at a replacement (the old one's zones go
// before the new one's come) and at its end; a breach names its zone in the event, in
// state.errors (ref and message) and in the journal.
func TestRunnerMissionFenceZones(t *testing.T) {
	dir := t.TempDir()
	g := &missionFence{scriptedFence: scriptedFence{st: inside()}}
	tr := startRunner(t, dir, func(c *Config) { c.Geofence = g })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	if got := g.seen(); got != "m" {
		t.Fatalf("after the start: %q", got)
	}
	g.set(FenceStatus{Trip: true, Outside: false, X: 2, Y: 0, Clearance: 0.4, Speed: 0.3, Alt: math.NaN(), Action: "hold", Zone: "geoFence circle 0 (exclusion)"})
	s := tr.waitMode(protocol.ModeFailsafe)
	if len(s.Errors) == 0 || s.Errors[0].Code != CodeGeofenceBreach || s.Errors[0].Ref != "geoFence circle 0 (exclusion)" ||
		!strings.Contains(s.Errors[0].Message, "zone geoFence circle 0 (exclusion)") {
		t.Fatalf("state errors %+v", s.Errors)
	}
	tr.waitFor("the breach event", func(protocol.State) bool { return tr.events.count("geofence.breach") == 1 })
	for _, e := range tr.events.snapshot() {
		if e.Kind == "geofence.breach" && (e.Data["zone"] != "geoFence circle 0 (exclusion)" || !strings.Contains(e.Message, "about to breach zone geoFence circle 0 (exclusion)")) {
			t.Errorf("event %+v", e)
		}
	}
	g.set(inside())
	tr.waitMode(protocol.ModePaused)
	other := json.RawMessage(`{"format":"botd/mission@1","id":"0d5a3c4e-1f2b-4c6d-8e9f-a0b1c2d3e4f5","name":"other","main":"main","trees":{"main":` + waitLong + `}}`)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: other, Start: true, Replace: true})
	tr.waitMode(protocol.ModeRunning)
	if got := g.seen(); got != "m,,other" {
		t.Fatalf("after the replacement: %q", got)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	tr.waitMode(protocol.ModeIdle)
	if got := g.seen(); got != "m,,other," {
		t.Fatalf("after the abort: %q", got)
	}
	tr.stop()
	data, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"event":"geofence_breach","mission":"`+missionID+`","revision":0,"status":"hold","zone":"geoFence circle 0 (exclusion)"`) {
		t.Fatalf("journal:\n%s", data)
	}
}
