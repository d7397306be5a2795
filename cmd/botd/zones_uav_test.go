package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/geofence"
	"github.com/botd-project/botd/telemetry/protocol"
)

// simHome is the simulated multicopter's home in configs/uav-sim.yaml.
var simHome = geofence.LatLon{Lat: 47.397742, Lon: 8.545594}

// offsetLatLon is the latitude and longitude east and north metres from o.
func offsetLatLon(o geofence.LatLon, east, north float64) (lat, lon float64) {
	const d = 1e-3
	ex, _ := o.ToLocal(o.Lat, o.Lon+d)
	_, ny := o.ToLocal(o.Lat+d, o.Lon)
	return o.Lat + north/ny*d, o.Lon + east/ex*d
}

// rallyPlan takes off at home, flies 40 m north at 10 m and returns; an exclusion circle of
// 5 m radius 20 m north lies on the way; rally point 0 is 10 m east and 5 m north of home,
// rally point 1 25 m south-west.
func rallyPlan() string {
	ll := func(east, north float64) string {
		lat, lon := offsetLatLon(simHome, east, north)
		return fmt.Sprintf("%.7f, %.7f", lat, lon)
	}
	return `{"fileType": "Plan", "version": 1, "groundStation": "QGroundControl",
 "mission": {"version": 2, "firmwareType": 12, "vehicleType": 2, "cruiseSpeed": 15, "hoverSpeed": 5,
  "plannedHomePosition": [47.397742, 8.545594, 488],
  "items": [
   {"type": "SimpleItem", "autoContinue": true, "command": 22, "doJumpId": 1, "frame": 3, "params": [0, 0, 0, null, 47.397742, 8.545594, 10]},
   {"type": "SimpleItem", "autoContinue": true, "command": 16, "doJumpId": 2, "frame": 3, "params": [0, 2, 0, null, ` + ll(0, 40) + `, 10]},
   {"type": "SimpleItem", "autoContinue": true, "command": 20, "doJumpId": 3, "frame": 2, "params": [0, 0, 0, 0, 0, 0, 0]}]},
 "geoFence": {"version": 2, "polygons": [], "circles": [
   {"version": 1, "inclusion": false, "circle": {"center": [` + ll(0, 20) + `], "radius": 5}}]},
 "rallyPoints": {"version": 2, "points": [[` + ll(10, 5) + `, 10], [` + ll(-25, -25) + `, 10]]}}`
}

// The simulated multicopter flies a plan through the daemon under configs/uav-sim.yaml (its
// fence's action: return_home): the plan's exclusion circle on the way trips the fence, the
// breach naming the circle, and botd flies the vehicle to the nearest rally point and lands it
// there.
func TestDaemonUAVSimReturnsToRallyPoint(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	if testing.Short() {
		t.Skip("flies for about 30 s")
	}
	dir := t.TempDir()
	port := "127.0.0.1:" + strconv.Itoa(freeUDPPort(t))
	planFile := filepath.Join(dir, "rally.plan")
	cfgText, err := os.ReadFile("../../configs/uav-sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hwText, err := os.ReadFile("../../configs/uav-sim-hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.NewReplacer("mission: missions/survey.json", "mission: "+planFile, "time_scale: 1 ", "time_scale: 2 ",
		"127.0.0.1:14540", port).Replace(string(cfgText))
	if !strings.Contains(cfg, planFile) || !strings.Contains(cfg, "action: return_home") {
		t.Fatal("configs/uav-sim.yaml changed shape")
	}
	margin := 3.0 // its fence's
	for name, body := range map[string]string{"uav-sim.yaml": cfg, "uav-sim-hw.yaml": strings.ReplaceAll(string(hwText), "127.0.0.1:14540", port),
		"rally.plan": rallyPlan()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", filepath.Join(dir, "uav-sim.yaml"), "-listen", addr, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)
	rec := watchUAV(t, addr)
	event := func(kind string) (protocol.EventMsg, bool) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, e := range rec.events {
			if e.Kind == kind {
				return e, true
			}
		}
		return protocol.EventMsg{}, false
	}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, ok := event("uav.disarmed"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no landing in 3 minutes:\n%s", p.out.String())
		}
	}
	breach, _ := event("geofence.breach")
	start, _ := event("failsafe.return_home")
	end, ok := event("failsafe.returned")
	north, _ := breach.Data["y"].(float64)
	// tripped on the way north, before the circle's rim (15 m north) less the margin
	if breach.Data["zone"] != "geoFence circle 0 (exclusion)" || north < 0 || north > 15-margin {
		t.Fatalf("breach %+v\n%s", breach, p.out.String())
	}
	target, _ := start.Data["target"].(string)
	x, _ := end.Data["x"].(float64)
	y, _ := end.Data["y"].(float64)
	// landed at rally point 0, 10 m east and 5 m north of home, within the margin (the
	// acceptance radius of the GoTo, and the wind while it descends)
	if !ok || !strings.HasPrefix(target, "rally point 0 ") || math.Hypot(x-10, y-5) > margin {
		t.Fatalf("return %+v, ended %+v\n%s", start, end, p.out.String())
	}
	t.Logf("tripped %.1f m north; %s; landed at (%.1f, %.1f) m east, north of home", north, start.Message, x, y)
	p.stop(t)
}
