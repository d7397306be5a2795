package mavlink

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// The simulated multicopter against a ground station written with node-mavlink, which decodes
// what the simulator sends independently of gomavlib: heartbeats of a PX4 quadrotor, arming
// refused without a GPS fix and accepted with one, a take-off to 10 m, COMMAND_ACK for every
// command (UNSUPPORTED for what the simulator does not do), and the climb in GLOBAL_POSITION_INT.
func TestSimMulticopterAgainstNodeMAVLink(t *testing.T) {
	skipOffLinux(t)
	node, lib := nodeMAVLink(t)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(lib, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "node_mavlink_gcs.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "gcs.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := multicopter.New(multicopter.Config{Listen: "127.0.0.1:0", GPSFix: 1, TimeScale: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	simDone := make(chan struct{})
	go func() { defer close(simDone); v.Run(ctx) }()
	defer func() { cancel(); <-simDone }()

	cmd, lines, stderr := startNode(ctx, t, node, work, "gcs.mjs", fmt.Sprint(v.Addr().Port))
	var got []map[string]any
	// next returns the first line, already read or still to come, that matches (the order of
	// messages that cross on the link is not fixed).
	next := func(what string, match func(m map[string]any) bool) map[string]any {
		t.Helper()
		for _, m := range got {
			if match(m) {
				return m
			}
		}
		timeout := time.After(60 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("node exited before %s; stderr:\n%s", what, stderr.String())
				}
				got = append(got, m)
				if match(m) {
					return m
				}
			case <-timeout:
				t.Fatalf("node-mavlink never saw %s; stderr:\n%s", what, stderr.String())
			}
		}
	}
	is := func(kind string, kv ...any) func(m map[string]any) bool {
		return func(m map[string]any) bool {
			if m["got"] != kind {
				return false
			}
			for i := 0; i < len(kv); i += 2 {
				if m[kv[i].(string)] != kv[i+1] {
					return false
				}
			}
			return true
		}
	}
	hb := next("a heartbeat", is("HEARTBEAT"))
	if hb["magic"] != float64(0xfd) || hb["sysid"] != float64(1) || hb["type"] != float64(2) || hb["autopilot"] != float64(12) ||
		hb["custom"] != float64(multicopter.PX4Auto<<16|multicopter.PX4AutoLoiter<<24) {
		t.Fatalf("heartbeat as node-mavlink read it: %v (want MAVLink 2, system 1, a PX4 quadrotor in AUTO.LOITER)", hb)
	}
	next("arming refused without a GPS fix", is("COMMAND_ACK", "command", float64(400), "result", float64(2)))
	next("the refusal's STATUSTEXT", func(m map[string]any) bool {
		s, _ := m["text"].(string)
		return m["got"] == "STATUSTEXT" && strings.Contains(s, "GPS")
	})
	v.SetGPSFix(3)
	arm := next("arming accepted", is("COMMAND_ACK", "command", float64(400), "result", float64(0)))
	if arm["target"] != float64(245) || arm["targetComp"] != float64(190) {
		t.Errorf("the arm's ack is addressed to %v/%v, want 245/190", arm["target"], arm["targetComp"])
	}
	next("an armed heartbeat", is("HEARTBEAT", "armed", true))
	next("the take-off accepted", is("COMMAND_ACK", "command", float64(22), "result", float64(0)))
	next("DO_SET_HOME unsupported", is("COMMAND_ACK", "command", float64(179), "result", float64(3)))
	top := next("10 m above home", is("GLOBAL_POSITION_INT", "done", true))
	if rel := top["rel"].(float64) / 1000; rel < 9.7 || rel > 10.3 {
		t.Fatalf("relative altitude %.2f m", rel)
	}
	if s := v.State(); !s.Armed || !s.InAir || s.Alt < 9.7 {
		t.Fatalf("the simulator after node-mavlink's take-off: %+v", s)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
}
