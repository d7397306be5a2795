package web

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard's robot header shows a flying vehicle: botd flies configs/uav-sim.yaml's
// survey on the simulated multicopter, and the line under the robot's name says it is armed,
// in the air, in guided flight and how high, from the blackboard.
func TestBrowserVehicleLine(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	root := repoRoot(t)
	cfgText, err := os.ReadFile(filepath.Join(root, "configs", "uav-sim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hwText, err := os.ReadFile(filepath.Join(root, "configs", "uav-sim-hw.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := "127.0.0.1:" + strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
	c.Close()
	dir := t.TempDir()
	cfg := strings.NewReplacer("127.0.0.1:14540", port, "time_scale: 1 ", "time_scale: 2 ",
		"mission: missions/survey.json", "mission: "+filepath.Join(root, "configs", "missions", "survey.json")).Replace(string(cfgText))
	hw := strings.ReplaceAll(string(hwText), "127.0.0.1:14540", port)
	if !strings.Contains(cfg, port) || !strings.Contains(hw, port) {
		t.Fatal("configs/uav-sim*.yaml changed shape: the test cannot point them at its port")
	}
	for name, body := range map[string]string{"uav-sim.yaml": cfg, "uav-sim-hw.yaml": hw} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	runBotd(t, root, addr, "-config", filepath.Join(dir, "uav-sim.yaml"))
	g := connectGround(t, addr, "uav-1")
	h, err := Handler(Options{Ground: g, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = h.(interface{ Close() error }).Close() })
	ctx := browser(t, exe)
	wait := func(what, js string, timeout time.Duration) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js,
			chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('vehicle').textContent`))
			t.Fatalf("waiting for %s: %v (vehicle line %q)", what, err, s)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1600, 1000)); err != nil {
		t.Fatal(err)
	}
	logIn(t, ctx, srv.URL)
	evalString(t, ctx, `(() => { window.__uav = []; setInterval(() => {
	  const r = window.BotdFleet && window.BotdFleet.view().find((r) => r.id === 'uav-1');
	  if (r && r.loc) window.__uav.push({x: r.loc.x, y: r.loc.y, f: r.pose.f}); }, 50); return 'ok'; })()`)
	wait("the page to open uav-1", `document.getElementById('robot-name').textContent === 'uav-1'`, 30*time.Second)
	wait("the vehicle flying a leg", `(() => { const v = document.getElementById('vehicle');
	  const m = /alt ([0-9.]+) m/.exec(v.textContent);
	  return !v.hidden && v.textContent.startsWith('uav: ARMED, in air, guided') && m && Math.abs(Number(m[1]) - 15) < 1.5 && / battery \d+%/.test(v.textContent); })()`, 90*time.Second)

	// The map draws the vehicle from its own keys (uav.*), in the local
	// frame with the survey's waypoints, both turned from NED: the first
	// leg flies 40 m north (up the map), not east.
	wait("the vehicle on the map", `window.BotdMap.frame() === 'local' && window.BotdMap.drawn().length === 1 && window.BotdMap.waypoints().length === 5`, 30*time.Second)
	wps := evalString(t, ctx, `JSON.stringify(window.BotdMap.waypoints().map((w) => [w.x, w.y]))`)
	if wps != "[[0,40],[10,40],[10,0],[20,0],[20,40]]" {
		t.Errorf("waypoints (east, north) %s, want the survey's legs north and its steps east", wps)
	}
	// Its local pose, sampled as it flies: the first leg takes it 40 m north
	// (a transposed pose would go east) and the survey never leaves 20 m east.
	wait("the vehicle 30 m up the first leg", `window.__uav.some((p) => p.y > 30)`, 90*time.Second)
	if bad := evalString(t, ctx, `JSON.stringify(window.__uav.filter((p) => p.x < -3 || p.x > 23 || p.y < -3 || p.y > 43 || p.f !== 'global').slice(0, 5))`); bad != "[]" {
		t.Errorf("local poses outside the survey (east 0..20, north 0..40): %s", bad)
	}
	shotTo(t, ctx, "dashboard-uav-map.png")
}

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return s
}

// shotTo saves a screenshot of the page in the artifacts folder.
func shotTo(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(artifactsDir(t, repoRoot(t)), name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot: %s", path)
}
