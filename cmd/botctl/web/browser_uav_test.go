package web

import (
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
	wait("the page to open uav-1", `document.getElementById('robot-name').textContent === 'uav-1'`, 30*time.Second)
	wait("the vehicle flying a leg", `(() => { const v = document.getElementById('vehicle');
	  const m = /alt ([0-9.]+) m/.exec(v.textContent);
	  return !v.hidden && v.textContent.startsWith('uav: ARMED, in air, guided') && m && Math.abs(Number(m[1]) - 15) < 1.5 && / battery \d+%/.test(v.textContent); })()`, 90*time.Second)
}
