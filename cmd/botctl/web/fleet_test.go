package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fleetFrame is a decoded "fleet" event.
type fleetFrame struct {
	Full   bool                       `json:"full"`
	Ver    uint64                     `json:"ver"`
	Total  int                        `json:"total"`
	Over   int                        `json:"over"`
	Rows   []fleetRow                 `json:"rows"`
	Fences map[string]json.RawMessage `json:"fences"`
}

func decodeFleet(t testing.TB, b []byte) fleetFrame {
	t.Helper()
	s := string(b)
	if !strings.HasPrefix(s, "event: fleet\ndata: ") || !strings.HasSuffix(s, "\n\n") {
		t.Fatalf("not a fleet event: %q", s)
	}
	var f fleetFrame
	if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(s, "event: fleet\ndata: "), "\n\n")), &f); err != nil {
		t.Fatalf("fleet frame: %v\n%s", err, s)
	}
	return f
}

// robotsSource is a settable Robots list.
type robotsSource struct {
	mu sync.Mutex
	rs []ground.RobotInfo
}

func (s *robotsSource) get() []ground.RobotInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ground.RobotInfo(nil), s.rs...)
}

func (s *robotsSource) set(rs []ground.RobotInfo) {
	s.mu.Lock()
	s.rs = rs
	s.mu.Unlock()
}

func fleetInfo(id, mode string, battery float64, seen time.Time) ground.RobotInfo {
	return ground.RobotInfo{ID: id, Connection: protocol.ConnOnline, LastSeen: seen,
		State: &protocol.StateMsg{Header: protocol.Header{Robot: id, Seq: 1}, State: protocol.State{Mode: mode,
			Battery: &protocol.BatteryState{Percent: battery, Voltage: 12}}}}
}

func poseMsg(full bool, x, y, h float64) protocol.BlackboardMsg {
	return protocol.BlackboardMsg{Full: full, Values: []protocol.BlackboardValue{
		{Key: "pose.x", Value: x}, {Key: "pose.y", Value: y}, {Key: "pose.heading", Value: h}, {Key: "other", Value: "x"}}}
}

// The first frame has every row with its trail and fence; later frames
// only the rows that changed, and none when nothing did.
func TestFleetDeltas(t *testing.T) {
	now := time.Now()
	src := &robotsSource{}
	src.set([]ground.RobotInfo{fleetInfo("r-b", protocol.ModeIdle, 80, now), fleetInfo("r-a", protocol.ModeRunning, 50, now)})
	f := newFleet(src.get)
	fence := &protocol.Geofence{Frame: "local", Points: [][2]float64{{0, 0}, {10, 0}, {10, 10}}}
	f.onFacts("r-a", ground.FleetFacts{Labels: map[string]string{"site": "north"}, Geofence: fence})
	f.onFacts("r-b", ground.FleetFacts{Labels: map[string]string{"site": "south"}, Geofence: fence})
	f.onBlackboard("r-a", poseMsg(true, 1, 2, 0.5))
	f.onBlackboard("r-a", poseMsg(false, 2, 2, 0.5))
	f.onBlackboard("r-a", poseMsg(false, 2.05, 2, 0.5)) // under the trail step

	f.refresh(now, true)
	var tab fleetTab
	fr := decodeFleet(t, f.frame(&tab))
	if !fr.Full || fr.Total != 2 || len(fr.Rows) != 2 || fr.Rows[0].ID != "r-a" || fr.Rows[1].ID != "r-b" {
		t.Fatalf("first frame %+v", fr)
	}
	a := fr.Rows[0]
	if a.Link != linkOnline || a.Mode != protocol.ModeRunning || a.Battery == nil || *a.Battery != 50 || a.Labels["site"] != "north" {
		t.Errorf("row %+v", a)
	}
	if a.Pose == nil || a.Pose.Frame != "local" || a.Pose.X != 2.05 || a.Pose.Y != 2 || a.Pose.H == nil || *a.Pose.H != 0.5 {
		t.Errorf("pose %+v", a.Pose)
	}
	if len(a.Trail) != 2 || a.Trail[0] != [2]float64{1, 2} || a.Trail[1] != [2]float64{2, 2} {
		t.Errorf("trail %v", a.Trail)
	}
	if a.Fence == "" || a.Fence != fr.Rows[1].Fence || len(fr.Fences) != 1 || fr.Fences[a.Fence] == nil {
		t.Errorf("fences: rows %q %q, frame %v", a.Fence, fr.Rows[1].Fence, fr.Fences)
	}

	// Nothing changed: no frame, even after the refresh period.
	f.refresh(now.Add(time.Second), false)
	if b := f.frame(&tab); b != nil {
		t.Errorf("a frame without a change: %s", b)
	}
	// One robot moves: one row, without its trail, and no fence again.
	f.onBlackboard("r-b", poseMsg(false, 5, 5, 0))
	f.refresh(now.Add(2*time.Second), false)
	fr = decodeFleet(t, f.frame(&tab))
	if fr.Full || len(fr.Rows) != 1 || fr.Rows[0].ID != "r-b" || fr.Rows[0].Pose == nil || fr.Rows[0].Pose.X != 5 || fr.Rows[0].Trail != nil || len(fr.Fences) != 0 {
		t.Errorf("delta %+v", fr)
	}
	// Rebuilt at most every f.every: a change within it waits.
	src.set([]ground.RobotInfo{fleetInfo("r-b", protocol.ModePaused, 80, now), fleetInfo("r-a", protocol.ModeRunning, 50, now)})
	f.refresh(now.Add(2*time.Second+f.every/2), false)
	if b := f.frame(&tab); b != nil {
		t.Errorf("rebuilt within the period: %s", b)
	}
	// The state stops coming: the link turns stale (silentAfter).
	f.refresh(now.Add(silentAfter+time.Second), false)
	fr = decodeFleet(t, f.frame(&tab))
	if len(fr.Rows) != 2 || fr.Rows[0].Link != linkStale || fr.Rows[1].Mode != protocol.ModePaused {
		t.Errorf("stale delta %+v", fr)
	}
	// A second tab gets everything.
	var tab2 fleetTab
	if fr := decodeFleet(t, f.frame(&tab2)); !fr.Full || len(fr.Rows) != 2 || len(fr.Fences) != 1 {
		t.Errorf("second tab %+v", fr)
	}
	// Offline and never-heard robots.
	src.set([]ground.RobotInfo{{ID: "r-a", Connection: protocol.ConnBroken}, {ID: "r-c"}})
	f.refresh(now.Add(10*time.Second), false)
	fr = decodeFleet(t, f.frame(&tab))
	links := map[string]string{}
	for _, r := range fr.Rows {
		links[r.ID] = r.Link
	}
	if links["r-a"] != linkOffline || links["r-c"] != linkOffline || fr.Total != 3 {
		t.Errorf("links %v, total %d", links, fr.Total)
	}
}

// A UAV's latitude and longitude win over a local pose; a frame change
// restarts the trail.
func TestFleetGlobalPose(t *testing.T) {
	f := newFleet(func() []ground.RobotInfo { return nil })
	f.onBlackboard("uav-1", poseMsg(true, 1, 1, 0))
	f.onBlackboard("uav-1", protocol.BlackboardMsg{Values: []protocol.BlackboardValue{
		{Key: "position.lat", Value: 52.51631234567}, {Key: "position.lon", Value: 13.3777}}})
	f.refresh(time.Now(), true)
	var tab fleetTab
	fr := decodeFleet(t, f.frame(&tab))
	p := fr.Rows[0].Pose
	if p == nil || p.Frame != "global" || p.Y != 52.5163123 || p.X != 13.3777 || p.H != nil {
		t.Fatalf("pose %+v", p)
	}
	if tr := fr.Rows[0].Trail; len(tr) != 1 || tr[0] != [2]float64{13.3777, 52.5163123} {
		t.Errorf("trail %v", tr)
	}
	// A full message without them: the robot has no global pose any more.
	f.onBlackboard("uav-1", protocol.BlackboardMsg{Full: true, Values: []protocol.BlackboardValue{{Key: "pose.x", Value: 3.0}}})
	f.refresh(time.Now(), true)
	if fr := decodeFleet(t, f.frame(&tab)); fr.Rows[0].Pose != nil {
		t.Errorf("pose after a full message without one: %+v", fr.Rows[0].Pose)
	}
}

// What a robot may send is bounded: labels, fences, trails, robots.
func TestFleetBounds(t *testing.T) {
	f := newFleet(func() []ground.RobotInfo { return nil })
	labels := map[string]string{strings.Repeat("k", 64): "too long a key", "v": strings.Repeat("v", 129)}
	for i := range 40 {
		labels[fmt.Sprintf("l%02d", i)] = "x"
	}
	pts := make([][2]float64, 5000)
	for i := range pts {
		pts[i] = [2]float64{float64(i), 1}
	}
	f.onFacts("r-1", ground.FleetFacts{Labels: labels, Geofence: &protocol.Geofence{Frame: "local", Points: pts}})
	f.onFacts("r-2", ground.FleetFacts{Geofence: &protocol.Geofence{Frame: "mars", Points: pts[:3]}})
	f.onFacts(strings.Repeat("x", maxFleetID+1), ground.FleetFacts{}) // not tracked
	for i := range 100 {
		f.onBlackboard("r-1", poseMsg(false, float64(i), 0, 0))
	}
	f.refresh(time.Now(), true)
	var tab fleetTab
	fr := decodeFleet(t, f.frame(&tab))
	if fr.Total != 2 {
		t.Fatalf("%d robots tracked, want r-1 and r-2 only", fr.Total)
	}
	r1 := fr.Rows[0]
	if len(r1.Labels) != maxLabels || r1.Labels["v"] != "" {
		t.Errorf("%d labels kept: %v", len(r1.Labels), r1.Labels)
	}
	if len(r1.Trail) != trailLen || r1.Trail[trailLen-1] != [2]float64{99, 0} || r1.Trail[0] != [2]float64{100 - trailLen, 0} {
		t.Errorf("trail of %d: %v", len(r1.Trail), r1.Trail)
	}
	var fence fleetFence
	if err := json.Unmarshal(fr.Fences[r1.Fence], &fence); err != nil || len(fence.Points) != maxFencePoints || !fence.Truncated {
		t.Errorf("fence of %d points, truncated %v: %v", len(fence.Points), fence.Truncated, err)
	}
	if fr.Rows[1].Fence != "" {
		t.Errorf("a fence in an unknown frame was kept")
	}
	// Robots beyond maxFleet are counted, not kept.
	for i := range maxFleet + 5 {
		f.onBlackboard(fmt.Sprintf("b-%05d", i), poseMsg(false, 1, 1, 0))
	}
	f.onBlackboard("b-99999", poseMsg(false, 1, 1, 0))
	f.onBlackboard("b-99999", poseMsg(false, 1, 1, 0)) // again: counted once
	f.refresh(time.Now(), true)
	fr = decodeFleet(t, f.frame(&tab))
	if fr.Total != maxFleet || fr.Over != 8 { // r-1, r-2 and 9,998 b-robots kept
		t.Errorf("total %d, over %d", fr.Total, fr.Over)
	}
	// A fence no robot uses any more is forgotten.
	f.onFacts("r-1", ground.FleetFacts{})
	if len(f.fences) != 0 {
		t.Errorf("%d fences kept", len(f.fences))
	}
}

// The multi-selection's commands reach every robot named, once, and the
// answer has each robot's result; bad input changes nothing.
func TestFleetCommand(t *testing.T) {
	f := newFakeGround()
	f.reply = func(robot string, c protocol.Command) (protocol.Reply, error) {
		if robot == "r-3" {
			return protocol.Reply{}, fmt.Errorf("%w: test", ground.ErrNoReply)
		}
		if robot == "r-2" {
			return protocol.Reply{ID: c.ID, Error: &protocol.ReplyError{Code: "NO_MISSION", Message: "none"}}, nil
		}
		return protocol.Reply{ID: c.ID, OK: true}, nil
	}
	_, ts := newTestServer(t, f, nil)
	url := ts.URL + "/api/fleet/commands/"
	status, body := postJSON(t, url+"pause", `{"robots":["r-1","r-2","r-3","r-1"]}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var res fleetCommandResult
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	if res.Op != protocol.OpMissionPause || res.OK != 1 || res.Failed != 2 || len(res.Results) != 3 {
		t.Fatalf("result %+v", res)
	}
	if r := res.Results; r[0].Robot != "r-1" || !r[0].OK || r[1].Error == nil || r[1].Error.Code != "NO_MISSION" || r[2].Error == nil || r[2].Error.Code != "NO_REPLY" {
		t.Errorf("results %+v", r)
	}
	if n := f.count(protocol.OpMissionPause); n != 3 {
		t.Errorf("%d pauses sent, want 3", n)
	}
	for _, tc := range []struct{ path, body, code string }{
		{"start", `{"robots":["r-1"]}`, "UNKNOWN_COMMAND"},
		{"estop", `{"robots":[]}`, "BAD_REQUEST"},
		{"estop", `{"robots":["r-1","bad id"]}`, "BAD_ROBOT"},
		{"estop", `{"robots":["r-1"],"extra":1}`, "BAD_REQUEST"},
	} {
		_, b := postJSON(t, url+tc.path, tc.body)
		if !strings.Contains(string(b), `"code":"`+tc.code+`"`) {
			t.Errorf("%s %s: %s", tc.path, tc.body, b)
		}
	}
	if n := f.count(protocol.OpEStop); n != 0 {
		t.Errorf("a refused request sent %d e-stops", n)
	}
}

func postJSON(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Botctl", "1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, []byte(b.String())
}

// BenchmarkFleet1000 is the dashboard's cost for 1,000 robots: every robot
// moves once (a blackboard delta), the rows are rebuilt and one tab gets
// its delta frame. It reports the memory the fleet keeps per robot.
func BenchmarkFleet1000(b *testing.B) {
	const n = 1000
	now := time.Now()
	infos := make([]ground.RobotInfo, n)
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("rover-%04d", i)
		infos[i] = fleetInfo(ids[i], protocol.ModeRunning, 70, now)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := newFleet(func() []ground.RobotInfo { return infos })
	fence := &protocol.Geofence{Frame: "local", Points: [][2]float64{{0, 0}, {100, 0}, {100, 100}, {0, 100}}}
	for i, id := range ids {
		f.onFacts(id, ground.FleetFacts{Labels: map[string]string{"site": fmt.Sprintf("site-%d", i%5), "team": "a"}, Geofence: fence})
		for k := range trailLen {
			f.onBlackboard(id, poseMsg(false, float64(k), float64(i), 0))
		}
	}
	f.refresh(now, true)
	var tab fleetTab
	first := len(f.frame(&tab))
	runtime.GC()
	runtime.ReadMemStats(&after)
	msgs := make([]protocol.BlackboardMsg, n)
	b.ReportAllocs()
	b.ResetTimer()
	var frameBytes int
	for it := range b.N {
		for i, id := range ids {
			msgs[i] = poseMsg(false, float64(it%50), float64(i), 0)
			f.onBlackboard(id, msgs[i])
		}
		f.refresh(now.Add(time.Duration(it+1)*time.Second), false)
		frameBytes = len(f.frame(&tab))
	}
	b.ReportMetric(float64(frameBytes), "deltaB")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/robot")
	b.ReportMetric(float64(first), "firstframeB")
}

// GET /api/fleet sends every robot first, then only what changed.
func TestFleetStream(t *testing.T) {
	now := time.Now().Add(time.Hour) // never stale, however slow the machine
	f := newFakeGround(fleetInfo("rover-1", protocol.ModeRunning, 90, now), fleetInfo("rover-2", protocol.ModeIdle, 40, now))
	s, ts := newTestServer(t, f, nil)
	s.fleet.every = 20 * time.Millisecond
	st := openStream(t, ts.URL+"/api/fleet")
	var fr fleetFrame
	st.next("fleet").decode(t, &fr)
	if !fr.Full || len(fr.Rows) != 2 || fr.Rows[0].ID != "rover-1" || fr.Rows[1].Mode != protocol.ModeIdle {
		t.Fatalf("first frame %+v", fr)
	}
	f.setRobots(fleetInfo("rover-1", protocol.ModeRunning, 90, now), fleetInfo("rover-2", protocol.ModePaused, 40, now))
	st.next("fleet").decode(t, &fr)
	if fr.Full || len(fr.Rows) != 1 || fr.Rows[0].ID != "rover-2" || fr.Rows[0].Mode != protocol.ModePaused {
		t.Fatalf("delta %+v", fr)
	}
}
