package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botd-project/botd/telemetry/protocol"
)

// flightPlan is a QGroundControl plan around the simulated multicopter's
// home: take-off, a waypoint 20 m north, one 15 m east of it, return; an
// inclusion square around it all, an exclusion circle south-west of home,
// a rally point south-east.
const flightPlan = `{"fileType": "Plan", "version": 1, "groundStation": "QGroundControl",
 "geoFence": {"version": 2,
  "polygons": [{"version": 1, "inclusion": true, "polygon": [[47.396742, 8.544594], [47.396742, 8.546594], [47.398742, 8.546594], [47.398742, 8.544594]]}],
  "circles": [{"version": 1, "inclusion": false, "circle": {"center": [47.3972, 8.5447], "radius": 20}}]},
 "rallyPoints": {"version": 2, "points": [[47.3975, 8.546, 15]]},
 "mission": {"version": 2, "firmwareType": 12, "vehicleType": 2, "cruiseSpeed": 15, "hoverSpeed": 5,
  "plannedHomePosition": [47.397742, 8.545594, 488],
  "items": [
   {"type": "SimpleItem", "autoContinue": true, "command": 22, "doJumpId": 1, "frame": 3, "params": [0, 0, 0, null, 47.397742, 8.545594, 10]},
   {"type": "SimpleItem", "autoContinue": true, "command": 16, "doJumpId": 2, "frame": 3, "params": [0, 2, 0, null, 47.397922, 8.545594, 10]},
   {"type": "SimpleItem", "autoContinue": true, "command": 16, "doJumpId": 3, "frame": 3, "params": [0, 2, 0, null, 47.397922, 8.545793, 10]},
   {"type": "SimpleItem", "autoContinue": true, "command": 20, "doJumpId": 4, "frame": 2, "params": [0, 0, 0, 0, 0, 0, 0]}]}}`

// A QGroundControl plan uploaded on the dashboard's Mission card flies on
// the simulated multicopter, and the map shows it: the inclusion polygon, the exclusion
// circle and the rally point the robot published with its tree, the two
// waypoints, and the current waypoint's marker moving from the first to
// the second as the vehicle flies, with the line from the vehicle to it.
func TestBrowserPlanFlight(t *testing.T) { flyPlanOnTheMap(t, "botd") }

// The same plan flown by the autopilot in its mission mode: the waypoints
// are the plan's mission items (the tree has none), and the current marker
// follows the vehicle's MISSION_CURRENT: the take-off (item 0, at home),
// then items 1 and 2.
func TestBrowserPlanFlightAutopilot(t *testing.T) { flyPlanOnTheMap(t, "autopilot") }

func flyPlanOnTheMap(t *testing.T, fly string) {
	if testing.Short() {
		t.Skip("flies for about 30 s")
	}
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
	planFile := filepath.Join(dir, "fenced.plan")
	// The config's local fence is left out: it is placed at the vehicle's
	// home, and its speed estimate from positions read in bursts on a
	// loaded machine predicts false breaches (cmd/botd's plan flights run
	// without it for the same reason); the plan's zones are drawn either way.
	cfg, _, ok := strings.Cut(string(cfgText), "\ngeofence:")
	// No mission at start: the test uploads the plan once the page watches.
	cfg = strings.NewReplacer("127.0.0.1:14540", port, "time_scale: 1 ", "time_scale: 2 ",
		"mission: missions/survey.json\n", "").Replace(cfg)
	hw := strings.ReplaceAll(string(hwText), "127.0.0.1:14540", port)
	if !ok || !strings.Contains(cfg, port) || strings.Contains(cfg, "mission:") || !strings.Contains(hw, port) {
		t.Fatal("configs/uav-sim*.yaml changed shape: the test cannot point them at its port and plan")
	}
	plan := strings.Replace(flightPlan, `"fileType": "Plan",`, `"fileType": "Plan", "fly": "`+fly+`",`, 1)
	for name, body := range map[string]string{"uav-sim.yaml": cfg, "uav-sim-hw.yaml": hw, "fenced.plan": plan} {
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
			shotTo(t, ctx, "dashboard-plan-flight-failure.png")
			s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('map-plan-info').textContent + ' | ' + JSON.stringify(window.__cur)`))
			t.Fatalf("waiting for %s: %v (map: %s)", what, err, s)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1600, 1000)); err != nil {
		t.Fatal(err)
	}
	logIn(t, ctx, srv.URL)
	wait("the page to open uav-1", `document.getElementById('robot-name').textContent === 'uav-1'`, 30*time.Second)
	// Every move of the current marker (the layer is rebuilt when the view
	// moves: the marker is looked up at each change), and whether the line
	// from the vehicle to it showed, as they happen.
	evalString(t, ctx, `(() => { window.__cur = []; window.__leg = false;
	  const note = () => { const c = document.getElementById('map-plan-current'), leg = document.getElementById('map-plan-leg');
	    const n = c && c.getAttribute('visibility') === 'visible' ? (c.dataset.seq !== undefined ? 's' + c.dataset.seq : c.dataset.n) : '';
	    if (window.__cur[window.__cur.length - 1] !== n) window.__cur.push(n);
	    if (leg && leg.getAttribute('visibility') === 'visible') window.__leg = true; };
	  new MutationObserver(note).observe(document.getElementById('map-plan'), { attributes: true, childList: true, subtree: true });
	  return 'ok'; })()`)
	// The plan's zones hold a vehicle whose position is not known yet (a
	// geofence failsafe, which leaves the mission paused): a mission that
	// waits comes first, and the plan replaces it once the map has the
	// vehicle's position (the robot publishes its blackboard while a
	// mission runs).
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if rep, err := g.Send(sctx, "uav-1", protocol.Command{Op: protocol.OpMissionLoad, Start: true,
		Mission: json.RawMessage(`{"format": "botd/mission@1", "id": "5a3c0b1e-6c1a-4a55-9d0e-1b3f1c8f5a10", "name": "wait", "main": "main", "trees": {"main": {"type": "Running"}}}`)}); err != nil || !rep.OK {
		t.Fatalf("loading the waiting mission: %+v %v", rep.Error, err)
	}
	wait("the vehicle's latitude and longitude", `window.BotdFleet.view().some((r) => r.id === 'uav-1' && r.pose && r.pose.f === 'global')`, 60*time.Second)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{planFile})); err != nil {
		t.Fatalf("choosing the plan: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("upload-replace"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("btn-upload"))); err != nil {
		t.Fatal(err)
	}
	wait("the upload reply", `document.getElementById('reply').dataset.ok !== undefined`, 30*time.Second)
	if ok := evalString(t, ctx, `document.getElementById('reply').dataset.ok`); ok != "yes" {
		t.Fatalf("upload refused: %s", evalString(t, ctx, `document.getElementById('reply').textContent`))
	}
	wait("the plan's zones and waypoints on the map", `window.BotdMap.frame() === 'global' &&
	  document.querySelectorAll('#map-plan-zones polygon[data-kind="polygon"][data-inclusion="true"]').length === 1 &&
	  document.querySelectorAll('#map-plan-zones circle[data-kind="circle"][data-inclusion="false"]').length === 1 &&
	  document.querySelectorAll('#map-plan-rally polygon.rally').length === 1 &&
	  document.querySelectorAll('#map-plan-waypoints rect.wp').length === `+map[string]string{"botd": "2", "autopilot": "3"}[fly], 30*time.Second)
	if names := evalString(t, ctx, `[...document.querySelectorAll('#map-plan-zones > *')].map((z) => z.dataset.zone).join('|')`); names != "geoFence polygon 0 (inclusion)|geoFence circle 0 (exclusion)" {
		t.Errorf("zones %q", names)
	}
	// botd's tree: waypoints 1 and 2 (the take-off node has no place);
	// the autopilot's mission: items 0 (take-off), 1 and 2 (the vehicle
	// may be past the take-off before the page hears of it).
	last, want := "2", []string{"1,2"}
	if fly == "autopilot" {
		last, want = "s2", []string{"s0,s1,s2", "s1,s2"}
	}
	wait("the last waypoint current", `window.__cur.includes('`+last+`')`, 120*time.Second)
	shotTo(t, ctx, "dashboard-plan-flight-"+fly+".png")
	wait("every waypoint reached", `document.getElementById('map-plan').dataset.reached === document.querySelectorAll('#map-plan-waypoints rect.wp').length + ''`, 120*time.Second)
	if seq := evalString(t, ctx, `window.__cur.filter((n) => n).join(',')`); !slices.Contains(want, seq) {
		t.Errorf("the current marker went %q, want %q", seq, want)
	}
	if evalString(t, ctx, `String(window.__leg)`) != "true" {
		t.Error("no line from the vehicle to the current waypoint")
	}
	// The header's E-STOP still stops the robot with the plan drawn.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("btn-estop"))); err != nil {
		t.Fatal(err)
	}
	wait("the e-stop", `document.getElementById('mode').dataset.mode === 'ESTOP'`, 30*time.Second)
}
