package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/groot2"
	"github.com/botd-project/botd/telemetry/protocol"
)

// hookEvents keeps the runner's hook events.
type hookEvents struct {
	mu sync.Mutex
	ev []protocol.Event
}

func (h *hookEvents) add(e protocol.Event) {
	if strings.HasPrefix(e.Kind, "hook.") || e.Kind == "log" {
		h.mu.Lock()
		h.ev = append(h.ev, e)
		h.mu.Unlock()
	}
}

// find returns the first event of kind whose reason starts with reason
// (any reason when "").
func (h *hookEvents) find(kind, reason string) (protocol.Event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.ev {
		r, _ := e.Data["reason"].(string)
		if e.Kind == kind && strings.HasPrefix(r, reason) || e.Kind == kind && kind == "log" && e.Message == reason {
			return e, true
		}
	}
	return protocol.Event{}, false
}

// TestBreakpointHeldWhileTheRoverDrives is issue 25's safety test: a
// Groot2 breakpoint holds the mission of the simulated rover while it
// drives (a Parallel of a Drive and a sequence that reaches the
// breakpoint), across holdTicks ticks (Groot2's 10 s, in ticks) with the
// client's heartbeat going: the rover drives on, the mission stays at
// the breakpoint, no tick overruns. The e-stop then stops the wheels as
// at any time (its gate closes on the caller's goroutine) and releases
// the hooks; a breakpoint whose client goes silent is released after
// the configured silence (5 s by default, less here); and a breakpoint on
// the running Drive itself stops the wheels while it holds it.
func TestBreakpointHeldWhileTheRoverDrives(t *testing.T) {
	const (
		hz        = 20
		holdTicks = 40
		silence   = 400 * time.Millisecond
		period    = time.Second / hz
	)
	hw, err := simHardware()
	if err != nil {
		t.Fatal(err)
	}
	robot, err := drivers.Build(hw, drivers.Options{World: sim.DefaultWorld(), Name: "rover-1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer robot.Close()
	reg := catalog.NewRegistry()
	drivers.Register(reg, deviceKinds, hw)
	var keys []string
	for _, d := range robot.Devices() {
		keys = append(keys, d.Keys()...)
	}
	events := &hookEvents{}
	r, err := runner.New(runner.Config{Robot: "rover-1", TickHz: hz, Registry: reg, Keys: keys, Hardware: hardware{robot}, Events: events.add,
		Failsafe: runner.FailsafeConfig{LinkLossTimeout: -1, BatteryCritical: -1, BatteryLow: -1, MaxOverruns: -1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	srv, err := groot2.New(groot2.Config{Addr: "127.0.0.1:0", Source: r, Registry: reg, AllowDebug: true, Debug: r, HookSilence: silence})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Run(ctx) }()

	deadline := time.Now().Add(15 * time.Second)
	waitUntil := func(what string, ok func() bool) {
		t.Helper()
		testutil.Eventually(t, time.Until(deadline), what, ok, func() string {
			events.mu.Lock()
			defer events.mu.Unlock()
			return fmt.Sprintf("state %+v, events %+v", r.State().Mission, events.ev)
		})
	}
	var reqID uint32
	ask := func(typ byte, body string) [][]byte {
		reqID++
		head := []byte{groot2.ProtocolID, typ, byte(reqID), byte(reqID >> 8), 0, 0}
		parts := [][]byte{head}
		if body != "" {
			parts = append(parts, []byte(body))
		}
		return srv.Handle(parts)
	}
	load := func(id string) (logUID, driveUID int) {
		t.Helper()
		doc := fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"debugged drive","revision":0,"main":"main","trees":{"main":
		  {"type":"Parallel","params":{"success":1},"children":[
		    {"type":"Drive","params":{"linear":0.2}},
		    {"type":"MemSequence","children":[{"type":"Wait","params":{"ms":1500}},{"type":"Log","params":{"message":"past the breakpoint"}},{"type":"Wait","params":{"ms":60000}}]}]}}}`, id)
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		if rep := r.Do(cctx, protocol.Command{ID: "load-" + id, Op: protocol.OpMissionLoad, Mission: json.RawMessage(doc), Start: true, Replace: true}); !rep.OK {
			t.Fatalf("load: %+v", rep.Error)
		}
		v, ok := r.TreeView(nil)
		if !ok {
			t.Fatal("no tree")
		}
		for i := 0; i < v.Tree.Len(); i++ {
			if n := v.Tree.Node(i); n.Type != nil && n.Type.Name == "Log" {
				logUID = i + 1
			} else if n.Type != nil && n.Type.Name == "Drive" {
				driveUID = i + 1
			}
		}
		if logUID == 0 || driveUID == 0 {
			t.Fatal("no Log or Drive node")
		}
		return logUID, driveUID
	}
	setBreakpoint := func(uid int) {
		t.Helper()
		out := ask(groot2.ReqHookInsert, fmt.Sprintf(`{"enabled":true,"uid":%d,"mode":0,"once":false,"desired_status":"SKIPPED","position":0}`, uid))
		if string(out[0]) == "error" {
			t.Fatalf("HOOK_INSERT: %q", out)
		}
	}
	sr := robot.SimRobot()
	driving := func() bool { l, rr := sr.Wheels(); return l != 0 && rr != 0 }

	// The breakpoint, held across holdTicks with the heartbeat going.
	uid, _ := load("7d1c2b8e-2f4a-4c61-9b1e-5a0c3d9e8f21")
	setBreakpoint(uid)
	waitUntil("the breakpoint reached", func() bool {
		ask(groot2.ReqStatus, "") // the client polls: its heartbeat
		_, ok := events.find("hook.hit", "")
		return ok
	})
	start := r.State().Tick.Count
	for r.State().Tick.Count < start+holdTicks {
		ask(groot2.ReqStatus, "") // Groot2's polling: the heartbeat
		if !driving() {
			t.Fatal("the rover stopped driving while the mission was held")
		}
		if time.Now().After(deadline) {
			t.Fatal("the tick loop does not go on")
		}
		time.Sleep(period)
	}
	s := r.State()
	if _, ran := events.find("log", "past the breakpoint"); ran {
		t.Fatal("the mission went past the breakpoint")
	}
	// The tick count went on (above): the held hook blocks the mission,
	// never the loop. Missed deadlines are no measure of that on a loaded
	// machine, so the failsafe for them is off here.
	if s.Mode != protocol.ModeRunning {
		t.Fatalf("after %d held ticks: mode %s", holdTicks, s.Mode)
	}
	if d := ask(groot2.ReqHooksDump, ""); !strings.Contains(string(d[1]), fmt.Sprintf(`"uid":%d`, uid)) {
		t.Fatalf("HOOKS_DUMP %q", d)
	}

	// The e-stop stops the wheels at once, held breakpoint or not, and
	// releases the hooks.
	t0 := time.Now()
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if rep := r.Do(cctx, protocol.Command{Op: protocol.OpEStop}); !rep.OK {
		t.Fatalf("e-stop: %+v", rep.Error)
	}
	waitUntil("the wheels stopped", func() bool { return !driving() })
	stopped := time.Since(t0)
	t.Logf("e-stop to stopped wheels with a breakpoint held: %v", stopped)
	if stopped > period {
		t.Errorf("the e-stop took %v to stop the wheels, more than a tick period (%v)", stopped, period)
	}
	// Released by the e-stop; or, when the e-stop closed the gate in the
	// middle of a tick, by the end of the mission: a leaf commanding an
	// e-stopped actuator returns FAILURE (NODES.md), which can end it first.
	waitUntil("the hooks released by the e-stop", func() bool {
		_, byEStop := events.find("hook.removed", "e-stop")
		_, byEnd := events.find("hook.removed", "the mission ended")
		return byEStop || byEnd
	})
	if d := ask(groot2.ReqHooksDump, ""); string(d[1]) != "[]" {
		t.Errorf("hooks after the e-stop: %q", d)
	}
	if rep := r.Do(cctx, protocol.Command{ID: "reset", Op: protocol.OpEStopReset}); !rep.OK {
		t.Fatalf("reset: %+v", rep.Error)
	}
	waitUntil("the e-stop reset", func() bool { return !r.State().EStop })

	// A client that goes silent: its breakpoint is released after the
	// configured silence and the mission goes on.
	uid, drive := load("7d1c2b8e-2f4a-4c61-9b1e-5a0c3d9e8f22")
	events.mu.Lock()
	events.ev = nil
	events.mu.Unlock()
	setBreakpoint(uid)
	waitUntil("the breakpoint reached", func() bool {
		ask(groot2.ReqStatus, "")
		_, ok := events.find("hook.hit", "")
		return ok
	})
	lastBeat := time.Now()
	ask(groot2.ReqStatus, "")
	waitUntil("the silent client's hooks released", func() bool {
		_, ok := events.find("hook.removed", "the debugging client was silent")
		return ok
	})
	after := time.Since(lastBeat)
	if after < silence {
		t.Errorf("released %v after the last request, before the silence of %v", after, silence)
	}
	waitUntil("the mission past the breakpoint", func() bool { _, ok := events.find("log", "past the breakpoint"); return ok })
	if !driving() {
		t.Error("the rover does not drive on")
	}

	// A breakpoint on the running Drive itself: the Drive is halted, so
	// the wheels stop while it is held (it does not drive on untended);
	// the unlock with remove_when_done lets it drive again.
	setBreakpoint(drive)
	waitUntil("the held Drive's wheels stopped", func() bool { ask(groot2.ReqStatus, ""); return !driving() })
	if s := r.State(); s.Mode != protocol.ModeRunning {
		t.Fatalf("mode %s with the Drive held", s.Mode)
	}
	if out := ask(groot2.ReqBreakpointUnlck, fmt.Sprintf(`{"uid":%d,"position":0,"desired_status":"SKIPPED","remove_when_done":true}`, drive)); string(out[0]) == "error" {
		t.Fatalf("BREAKPOINT_UNLOCK: %q", out)
	}
	waitUntil("the Drive driving again", driving)
}
