package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
	"github.com/google/uuid"
)

// freeUDPPort is a UDP port on loopback nothing listens on now.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// surveyGround records what a ground station sees of the survey.
type surveyGround struct {
	mu        sync.Mutex
	states    []protocol.StateMsg
	events    []protocol.EventMsg
	maxAlt    float64
	armedSeen bool
	modes     map[float64]bool
	bbKeys    map[string]bool
}

func (g *surveyGround) blackboard(m protocol.BlackboardMsg) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range m.Values {
		g.bbKeys[v.Key] = true
		f, ok := v.Value.(float64)
		if b, isBool := v.Value.(bool); isBool && b {
			f, ok = 1, true
		}
		if !ok {
			continue
		}
		switch v.Key {
		case "uav.alt":
			g.maxAlt = max(g.maxAlt, f)
		case "uav.armed":
			g.armedSeen = g.armedSeen || f == 1
		case "uav.mode":
			g.modes[f] = true
		}
	}
}

// The shipped configs/uav-sim.yaml, run by botd (its own process) with the simulated
// multicopter on a free UDP port and its clock twice as fast: the survey mission takes
// off, flies its legs, comes home and lands; a ground station on the embedded broker sees the
// mission succeed, the vehicle land and disarm, the altitude, armed state and flight modes on
// the blackboard, and no geofence breach.
func TestDaemonUAVSimSurvey(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	dir := uavSimConfigs(t, "2")
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", filepath.Join(dir, "uav-sim.yaml"), "-listen", addr, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)

	rec := watchUAV(t, addr)

	// The survey flies about 60 s of simulated time: 30 s here, more on a loaded machine.
	deadline := time.Now().Add(3 * time.Minute)
	done := func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, s := range rec.states {
			if s.Mission != nil && s.Mission.Name == "survey" && s.Mission.Status != protocol.RunRunning && s.Mode != protocol.ModeRunning {
				return true
			}
		}
		return false
	}
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("the survey did not end in 3 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}

	func() {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var last protocol.StateMsg
		for _, s := range rec.states {
			if s.Mission != nil && s.Mission.Name == "survey" {
				last = s
			}
			if s.Mode == protocol.ModeFailsafe {
				t.Errorf("a failsafe during the survey: %+v", s.Failsafe)
			}
		}
		if last.Mission.Status != protocol.RunSucceeded {
			t.Fatalf("survey ended %s, want SUCCESS (state %+v)", last.Mission.Status, last)
		}
		kinds := map[string]int{}
		for _, e := range rec.events {
			kinds[e.Kind]++
		}
		for _, k := range []string{"geofence.breach", "failsafe.entered"} {
			if kinds[k] > 0 {
				t.Errorf("%d %s events during the survey", kinds[k], k)
			}
		}
		for _, k := range []string{"uav.armed", "uav.disarmed", "mission.finished"} {
			if kinds[k] == 0 {
				t.Errorf("no %s event (events: %v)", k, kinds)
			}
		}
		for _, k := range []string{"uav.alt", "uav.armed", "uav.mode", "uav.in_air", "uav.battery_percent"} {
			if !rec.bbKeys[k] {
				t.Errorf("the ground station saw no %s on the blackboard", k)
			}
		}
		if rec.maxAlt < 14 {
			t.Errorf("highest uav.alt seen %.1f m, want the survey's 15 m", rec.maxAlt)
		}
		if !rec.armedSeen {
			t.Error("the ground station never saw uav.armed true")
		}
		for mode, name := range map[float64]string{9: "takeoff", 10: "guided", 7: "return"} {
			if !rec.modes[mode] {
				t.Errorf("the ground station never saw uav.mode %v (%s); saw %v", mode, name, rec.modes)
			}
		}
	}()
	p.stop(t)
}

// A bad sim_multicopter section stops the daemon's config with every bad field named under
// the section's path.
func TestSimMulticopterConfigErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "botd.yaml")
	hw := mustAbs(t, "../../configs/uav-sim-hw.yaml")
	if err := os.WriteFile(f, []byte("robot: r\nhardware: "+hw+"\nsim_multicopter: {listen: 'nowhere', time_scale: 100, wind: [0, 40]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := checkConfigFile(f)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"sim_multicopter.listen:", "sim_multicopter.time_scale: 100", "sim_multicopter.wind[1]"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	if err := checkConfigFile(mustAbs(t, "../../configs/uav-sim.yaml")); err != nil {
		t.Fatalf("configs/uav-sim.yaml: %v", err)
	}
}

// TestDaemonUAVHoldsAtShutdown: botd stopped (SIGTERM, as Ctrl-C) while the simulated
// multicopter flies the survey: the vehicle's hold is sent and acknowledged before the daemon
// says "actuators safe" and closes the link, never refused as "robot closed" after it.
func TestDaemonUAVHoldsAtShutdown(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	dir := uavSimConfigs(t, "1")
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", filepath.Join(dir, "uav-sim.yaml"), "-listen", addr, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)
	rec := watchUAV(t, addr)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		rec.mu.Lock()
		alt := rec.maxAlt
		rec.mu.Unlock()
		if alt > 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the survey never climbed above 5 m")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.stop(t)
	out := p.out.String()
	if strings.Contains(out, "drivers: robot closed") || strings.Contains(out, "not confirmed") || strings.Contains(out, "closing the robot") {
		t.Errorf("the hold at shutdown did not reach the vehicle:\n%s", out)
	}
	held := strings.Index(out, "hold (safe state)")
	safe := strings.Index(out, "botd stopped; actuators safe")
	if safe < 0 {
		t.Fatalf("no clean stop in the log:\n%s", out)
	}
	if held >= 0 && held > safe {
		t.Errorf("the hold was logged after \"actuators safe\":\n%s", out)
	}
}

// uavSimConfigs writes the shipped configs/uav-sim.yaml and its hardware
// file into a temporary folder, pointed at a free UDP port for the
// simulated multicopter, its clock timeScale times as fast, and the survey
// mission by absolute path; it returns the folder.
func uavSimConfigs(t *testing.T, timeScale string) string {
	t.Helper()
	cfgText, err := os.ReadFile("../../configs/uav-sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hwText, err := os.ReadFile("../../configs/uav-sim-hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	port := "127.0.0.1:" + strconv.Itoa(freeUDPPort(t))
	dir := t.TempDir()
	// A loaded test machine is no flight computer: missed tick deadlines
	// do not pause the flight here (the failsafe for them has its tests).
	cfg := strings.NewReplacer("127.0.0.1:14540", port, "time_scale: 1 ", "time_scale: "+timeScale+" ", "\nfailsafe:\n", "\nfailsafe:\n  max_overruns: -1\n",
		"mission: missions/survey.json", "mission: "+mustAbs(t, "../../configs/missions/survey.json")).Replace(string(cfgText))
	hw := strings.ReplaceAll(string(hwText), "127.0.0.1:14540", port)
	if !strings.Contains(cfg, "time_scale: "+timeScale+" ") || !strings.Contains(cfg, "max_overruns: -1") || !strings.Contains(hw, port) || !strings.Contains(cfg, port) {
		t.Fatalf("configs/uav-sim*.yaml changed shape: the test cannot point them at its port\n%s\n%s", cfg, hw)
	}
	for name, body := range map[string]string{"uav-sim.yaml": cfg, "uav-sim-hw.yaml": hw} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// watchUAV connects a ground station to the embedded broker at addr and
// records uav-1's states, events and blackboard.
func watchUAV(t *testing.T, addr string) *surveyGround {
	t.Helper()
	rec := &surveyGround{modes: map[float64]bool{}, bbKeys: map[string]bool{}}
	gc, err := ground.New(ground.Config{GCS: "test-" + uuid.NewString()[:8], Conn: transport.Options{Brokers: []string{"tcp://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gc.Close() })
	if _, err := gc.Watch("uav-1", ground.RobotHandlers{
		State:      func(m protocol.StateMsg) { rec.mu.Lock(); rec.states = append(rec.states, m); rec.mu.Unlock() },
		Event:      func(m protocol.EventMsg) { rec.mu.Lock(); rec.events = append(rec.events, m); rec.mu.Unlock() },
		Blackboard: rec.blackboard,
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := gc.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return rec
}
