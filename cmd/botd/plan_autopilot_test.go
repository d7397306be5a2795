package main

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/missions/plan"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The daemon has the autopilot fly a plan saved by QGroundControl (fenced.plan: take-off, two
// waypoints, return, an inclusion polygon, an exclusion circle, a rally point) with botd's
// "fly": "autopilot": the simulated multicopter is given the mission, fence and rally items,
// flies AUTO.MISSION (uav.mode 6, mission) to the end, lands and disarms, and the mission succeeds. The
// daemon reads -mission as bytes: the mission is named "plan-" and 8 hex digits.
func TestDaemonUAVSimPlanFlownByTheAutopilot(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	if testing.Short() {
		t.Skip("flies for about 50 s")
	}
	data, err := os.ReadFile(fencedPlan)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "fenced-autopilot.plan")
	if err := os.WriteFile(planFile, []byte(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	port := "127.0.0.1:" + strconv.Itoa(freeUDPPort(t))
	cfg := globalFenceConfig(t, dir, port, planFile)
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", cfg, "-listen", addr, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)
	rec := watchUAV(t, addr)
	deadline := time.Now().Add(3 * time.Minute)
	var last protocol.StateMsg
	for {
		rec.mu.Lock()
		for _, s := range rec.states {
			if s.Mission != nil && strings.HasPrefix(s.Mission.Name, "plan-") {
				last = s
			}
			if s.Mode == protocol.ModeFailsafe {
				t.Errorf("a failsafe during the plan: %+v", s.Failsafe)
			}
		}
		rec.mu.Unlock()
		if last.Mission != nil && last.Mission.Status != protocol.RunRunning && last.Mode != protocol.ModeRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the plan did not end in 3 minutes:\n%s", p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if last.Mission.Status != protocol.RunSucceeded {
		t.Fatalf("the plan ended %s, want SUCCESS (state %+v)\n%s", last.Mission.Status, last, p.out.String())
	}
	kinds := map[string]int{}
	var maxAlt float64
	var modes map[float64]bool
	for end := time.Now().Add(20 * time.Second); kinds["uav.disarmed"] == 0 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		rec.mu.Lock()
		clear(kinds)
		for _, e := range rec.events {
			kinds[e.Kind]++
		}
		maxAlt, modes = rec.maxAlt, maps.Clone(rec.modes)
		rec.mu.Unlock()
	}
	if kinds["uav.disarmed"] == 0 || kinds["uav.mission_item_reached"] != 4 || kinds["geofence.breach"] > 0 {
		t.Errorf("events %v, want uav.disarmed, 4 uav.mission_item_reached and no breach", kinds)
	}
	if maxAlt < 9 {
		t.Errorf("highest uav.alt %.1f m, want the plan's 10 m", maxAlt)
	}
	if !modes[6] || modes[10] {
		t.Errorf("uav.mode seen %v: want mission (6), never guided (10): botd sends no position target", modes)
	}
	p.stop(t)
}

// A plan the autopilot flies checks against the simulated multicopter's hardware, its
// generated tree is inspectable (botd export -format botd shows the items UploadPlan sends),
// and it exports back to a plan the autopilot flies, with the same items.
func TestCheckAndExportAutopilotPlan(t *testing.T) {
	data, err := os.ReadFile(fencedPlan)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "auto.plan")
	if err := os.WriteFile(src, []byte(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "check", "-hardware", "../../configs/uav-sim-hw.yaml", src); code != 0 {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	code, js, errOut := runCmd(t, "export", "-format", "botd", src)
	if code != 0 || !strings.Contains(js, `"UploadPlan"`) || !strings.Contains(js, `"RunMission"`) || !strings.Contains(js, "473985000") {
		t.Fatalf("export botd: exit %d %s\n%s", code, errOut, js)
	}
	again := filepath.Join(dir, "again.plan")
	if code, _, errOut := runCmd(t, "export", "-format", "plan", "-o", again, src); code != 0 {
		t.Fatalf("export plan: exit %d %s", code, errOut)
	}
	out, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	want, ps := plan.Parse([]byte(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1)), plan.Limits{})
	got, ps2 := plan.Parse(out, plan.Limits{})
	if ps != nil || ps2 != nil || got.Fly != plan.FlyAutopilot || len(got.Items) != len(want.Items) || len(got.Fence) != 2 || len(got.Rally) != 1 {
		t.Fatalf("exported %v %v: %+v", ps, ps2, got)
	}
	for i := range want.Items {
		if g, w := got.Items[i], want.Items[i]; g.Command != w.Command || g.X() != w.X() || g.Y() != w.Y() {
			t.Errorf("item %d: %+v, want %+v", i, g, w)
		}
	}
	// A mission whose altitude the hardware does not allow is refused at the item.
	high := strings.Replace(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1), `"Altitude": 10,`, `"Altitude": 50,`, 1)
	high = strings.Replace(high, "8.545594,\n                    10\n", "8.545594,\n                    50\n", 1)
	if err := os.WriteFile(src, []byte(high), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "check", "-hardware", "../../configs/uav-sim-hw.yaml", src); code != 1 || !strings.Contains(out, "MAV_CMD_NAV_TAKEOFF: altitude 50 m is not within 0 and 30 m") {
		t.Errorf("a take-off to 50 m: exit %d\n%s", code, out)
	}
}

// A daemon config's plan.fly is who flies a plan that does not say: with
// "autopilot", the configured mission (mission:, -mission) and `botd
// check -config` generate the autopilot's tree (UploadPlan, RunMission)
// from short.plan, which has no "fly"; a plan's own "fly": "botd" wins.
func TestConfigPlanFlyAutopilot(t *testing.T) {
	dir := t.TempDir()
	cfgFile := globalFenceConfig(t, dir, "", mustAbs(t, shortPlan))
	text, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, append(text, "\nplan:\n  fly: autopilot\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := cfg.hardwareYAML()
	if err != nil {
		t.Fatal(err)
	}
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	js, _, err := configuredMission(cfg, newRegistry(hw), hw.SensorKeys(), nil)
	if err != nil || !strings.Contains(string(js), `"UploadPlan"`) || !strings.Contains(string(js), `"RunMission"`) || strings.Contains(string(js), `"Takeoff"`) {
		t.Fatalf("the configured plan: %v\n%s", err, js)
	}
	if code, out, errOut := runCmd(t, "check-config", cfgFile); code != 0 {
		t.Errorf("check-config: exit %d\n%s%s", code, out, errOut)
	}
	// botd check -config: the autopilot's tree is 5 nodes (a MemSequence
	// of GpsFix, UploadPlan, Arm, RunMission); botd's flight of
	// short.plan is more.
	code, out, errOut := runCmd(t, "check", "-config", cfgFile, shortPlan)
	if code != 0 || !strings.Contains(out, "short.plan: ok (5 nodes)") {
		t.Errorf("check -config: exit %d\n%s%s", code, out, errOut)
	}
	plain, _ := os.ReadFile(shortPlan)
	said := filepath.Join(dir, "said.plan")
	if err := os.WriteFile(said, []byte(strings.Replace(string(plain), "{", `{"fly": "botd",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "check", "-config", cfgFile, said)
	if code != 0 || !strings.Contains(out, "said.plan: ok (") || strings.Contains(out, "(5 nodes)") {
		t.Errorf(`check -config of a plan with "fly": "botd": exit %d\n%s%s`, code, out, errOut)
	}
}
