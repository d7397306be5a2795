package mavlink

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
)

// nodeMAVLinkVersion is the node-mavlink release the interoperability test runs against.
const nodeMAVLinkVersion = "2.3.0"

// nodeMAVLink returns node and a directory whose node_modules holds node-mavlink: the one
// BOTD_NODE_MAVLINK names, or one installed from the npm registry into the user's cache (once).
// The test skips, saying why, when node, npm or the registry is not there.
func nodeMAVLink(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the node-mavlink interoperability test needs Node.js")
	}
	has := func(d string) bool {
		b, err := os.ReadFile(filepath.Join(d, "node_modules", "node-mavlink", "package.json"))
		return err == nil && strings.Contains(string(b), `"version": "`+nodeMAVLinkVersion+`"`)
	}
	if d := os.Getenv("BOTD_NODE_MAVLINK"); d != "" {
		if !has(d) {
			t.Fatalf("BOTD_NODE_MAVLINK=%s has no node_modules/node-mavlink %s", d, nodeMAVLinkVersion)
		}
		return node, d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir = filepath.Join(cache, "botd-test", "node-mavlink-"+nodeMAVLinkVersion)
	if has(dir) {
		return node, dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: cannot install node-mavlink for the interoperability test")
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Skipf("no cache directory for node-mavlink: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Skipf("no cache directory for node-mavlink: %v", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, "node-mavlink@"+nodeMAVLinkVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("node-mavlink %s could not be installed from the npm registry (%v):\n%s", nodeMAVLinkVersion, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !has(dir) {
		t.Fatalf("installing node-mavlink: %v", err)
	}
	return node, dir
}

// botd's vehicle device against an autopilot written with node-mavlink: heartbeats both ways,
// arming and take-off acknowledged, telemetry decoded; the autopilot checks what botd sends.
func TestVehicleAgainstNodeMAVLink(t *testing.T) {
	skipOffLinux(t)
	node, lib := nodeMAVLink(t)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(lib, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "node_mavlink_autopilot.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "autopilot.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, lines, stderr := startNode(ctx, t, node, work, "autopilot.mjs")
	exited := make(chan error, 1)
	var first map[string]any
	select {
	case first = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatalf("the node-mavlink autopilot said nothing; stderr:\n%s", stderr.String())
	}
	port, ok := first["port"].(float64)
	if !ok {
		t.Fatalf("first line %v", first)
	}

	cfg := parse(t, fmt.Sprintf("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"tcp://127.0.0.1:%d\", heartbeat_hz: 5}\n", int(port)))
	r, err := drivers.Build(cfg, drivers.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	v, _ := Of(r, "uav")
	g := &uavRig{t: t, robot: r, v: v}
	g.waitFor("the node-mavlink autopilot's heartbeat", v.LinkUp)
	if st := g.state(); st.autopilot != apPX4 || st.mode != modeHold {
		t.Fatalf("state from node-mavlink's heartbeat: %+v", st)
	}
	g.waitFor("a global position", func() bool { return g.state().haveGlobal })
	if err := v.Takeoff(10); err == nil || !strings.Contains(err.Error(), "MAV_RESULT_DENIED") {
		t.Fatalf("take-off disarmed = %v, want DENIED", err)
	}
	if err := v.Arm(); err != nil {
		t.Fatal(err)
	}
	g.waitFor("armed", func() bool { return g.state().armed })
	if err := v.Takeoff(10); err != nil {
		t.Fatal(err)
	}
	g.waitFor("10 m", func() bool { s := g.state(); return s.relAlt == 10 && s.inAir() && s.mode == modeTakeoff })
	if err := r.Close(); err != nil { // botd hangs up: the autopilot exits
		t.Fatal(err)
	}
	go func() { exited <- cmd.Wait() }()
	var got []map[string]any
	for m := range lines {
		got = append(got, m)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("node: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the node-mavlink autopilot did not exit after botd hung up")
	}

	var heartbeats, arms, takeoffs int
	for _, m := range got {
		switch m["got"] {
		case "HEARTBEAT":
			heartbeats++
			if m["magic"] != float64(0xfd) || m["sysid"] != float64(245) || m["type"] != float64(6) {
				t.Errorf("botd's heartbeat as node-mavlink read it: %v (want MAVLink 2, system 245, MAV_TYPE_GCS)", m)
			}
		case "COMMAND_LONG":
			switch m["command"] {
			case float64(400):
				arms++
				if m["p1"] != float64(1) || m["target"] != float64(1) || m["confirmation"] != float64(0) {
					t.Errorf("arm as node-mavlink read it: %v", m)
				}
			case float64(22):
				takeoffs++
				if m["p7"] != float64(510) {
					t.Errorf("take-off as node-mavlink read it: %v (want param7 510: home 500 m + 10 m)", m)
				}
			}
		}
	}
	if heartbeats == 0 || arms != 1 || takeoffs != 2 {
		t.Fatalf("node-mavlink got %d heartbeats, %d arm and %d take-off commands (want >0, 1, 2)", heartbeats, arms, takeoffs)
	}
}

// startNode runs a node script in work and hands on the JSON objects it prints, one a line;
// stderr collects what it says otherwise.
func startNode(ctx context.Context, t *testing.T, node, work string, args ...string) (*exec.Cmd, <-chan map[string]any, *strings.Builder) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = work
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan map[string]any, 4096)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	return cmd, lines, &stderr
}
