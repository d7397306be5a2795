package mqttpose

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/gpio"
)

// kinds are the gpio family's kinds (a rover to carry the tracked body) and mqtt_pose.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	gpio.Register(r)
	Register(r)
	return r
}

// clock is a settable virtual clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// poseRig is an mqtt_pose device without a broker: messages go straight to its handler, on a
// settable clock.
type poseRig struct {
	m      *mqttPose
	clock  *clock
	mu     sync.Mutex
	events []drivers.Event
	vals   [5]float64
}

func newPoseRig(t testing.TB, extra string) *poseRig {
	t.Helper()
	cfg := drivertest.Parse(t, kinds(), "adaptors: {b: {kind: sim}}\ndevices:\n  - {name: mocap, kind: mqtt_pose, topic: lab/rover/pose"+extra+"}\n")
	c := cfg.Devices[0].Spec.(*Config)
	g := &poseRig{clock: &clock{t: time.Unix(1_700_000_000, 0)}}
	g.m = &mqttPose{cfg: c, name: "mocap", now: g.clock.Now, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		events: func(e drivers.Event) { g.mu.Lock(); g.events = append(g.events, e); g.mu.Unlock() }}
	return g
}

// at publishes a pose stamped ms after the rig's start, arriving at the rig's clock.
func (g *poseRig) send(x, y, h float64, tsMs int, extra string) {
	ts := float64(1_700_000_000) + float64(tsMs)/1000
	g.m.handle([]byte(fmt.Sprintf(`{"x": %v, "y": %v, "heading": %v, "ts": %.3f%s}`, x, y, h, ts, extra)))
}

func (g *poseRig) advance(ms int) {
	g.clock.Set(g.clock.Now().Add(time.Duration(ms) * time.Millisecond))
}

// latest reads the device as its sensor would: the pose and its stamp, or ok false.
func (g *poseRig) latest() (x, y float64, at time.Time, ok bool) {
	at, err := g.m.readPose(g.clock.Now(), g.vals[:])
	if err != nil {
		return 0, 0, time.Time{}, false
	}
	return g.vals[0], g.vals[1], at, true
}

func (g *poseRig) lastEvent() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.events) == 0 {
		return ""
	}
	e := g.events[len(g.events)-1]
	return e.Kind + ": " + e.Message
}

func TestMQTTPoseChecks(t *testing.T) {
	g := newPoseRig(t, "")
	g.send(1, 2, 0.5, 0, "")
	x, y, at, ok := g.latest()
	if !ok || x != 1 || y != 2 || !at.Equal(time.Unix(1_700_000_000, 0)) {
		t.Fatalf("first pose: %v %v %v %v", x, y, at, ok)
	}
	if _, _, _, ok := g.latest(); ok {
		t.Error("the same pose read twice")
	}
	if q := g.vals[3]; q != 0.9 || g.vals[4] != 0.02 {
		t.Errorf("default quality %v sigma %v", q, g.vals[4])
	}
	for _, tc := range []struct {
		name      string
		send      func()
		want      string
		acceptNew bool
	}{
		{"moving plausibly", func() { g.advance(100); g.send(1.1, 2, 0.5, 100, `, "quality": 0.8`) }, "", true},
		{"too old", func() { g.advance(700); g.send(1.2, 2, 0.5, 200, "") }, "600 ms old on arrival", false},
		{"from the future", func() { g.send(1.2, 2, 0.5, 1300, "") }, "500 ms ahead of the robot's clock", false},
		{"another frame", func() { g.send(1.2, 2, 0.5, 800, `, "frame": "odom"`) }, `frame "odom", not "map"`, false},
		{"its frame", func() { g.send(1.2, 2, 0.5, 800, `, "frame": "map"`) }, "", true},
		{"not after the last", func() { g.send(1.2, 2, 0.5, 800, "") }, "is not after the last pose's", false},
		{"a jump", func() { g.advance(50); g.send(4, 2, 0.5, 850, "") }, "jumped 2.80 m in 0.050 s", false},
		{"a spin", func() { g.advance(50); g.send(1.2, 2, 2.5, 900, "") }, "heading turned 115° in 0.100 s", false},
		{"garbage", func() { g.m.handle([]byte(`{"x": 1, "y": 2, "ts": 1}`)) }, "no heading in the message", false},
		{"unknown field", func() { g.m.handle([]byte(`{"x": 1, "y": 2, "heading": 0, "ts": 1, "z": 3}`)) }, "unknown field", false},
		{"bad quality", func() { g.send(1.2, 2, 0.5, 900, `, "quality": 3`) }, "quality 3 is not within 0..1", false},
	} {
		g.mu.Lock()
		g.events = nil
		g.m.lastEvent = time.Time{} // every refusal reported: the rate limit is tested below
		g.mu.Unlock()
		tc.send()
		_, _, _, ok := g.latest()
		if ok != tc.acceptNew {
			t.Errorf("%s: accepted %v, want %v", tc.name, ok, tc.acceptNew)
		}
		ev := g.lastEvent()
		if tc.want == "" && ev != "" || !strings.Contains(ev, tc.want) || tc.want != "" && !strings.HasPrefix(ev, "pose.rejected: mocap: pose rejected") {
			t.Errorf("%s: event %q, want one with %q", tc.name, ev, tc.want)
		}
	}
	if g.vals[3] != 0.9 {
		t.Errorf("quality %v: a message's quality is not the next one's", g.vals[3])
	}
}

// TestMQTTPoseReacquires: a source that jumps and stays there (the rover was carried) is
// taken after reacquire_ms of poses that agree with each other; a source that jumps about
// never is. Refusals are reported at once, then at most every 5 s with their count.
func TestMQTTPoseReacquires(t *testing.T) {
	g := newPoseRig(t, "")
	g.send(0, 0, 0, 0, "")
	g.latest()
	// 2.5 s at 20 Hz, 10 m away and still (10 m is within max_speed 2 m/s of the last accepted
	// pose only after 5 s).
	for i := 1; i <= 50; i++ {
		g.advance(50)
		g.send(10, 0, 0, 50*i, "")
		if _, _, _, ok := g.latest(); ok {
			if 50*i < 2050 {
				t.Fatalf("a jumped pose was taken after %d ms", 50*(i-1))
			}
			if ev := g.lastEvent(); !strings.Contains(ev, "pose.reacquired") {
				t.Errorf("taken without a pose.reacquired event: %q", ev)
			}
			t.Logf("re-acquired after %d ms: %s", 50*(i-1), g.lastEvent())
			break
		}
		if i == 50 {
			t.Fatal("never re-acquired")
		}
	}
	g.mu.Lock()
	n := len(g.events)
	g.mu.Unlock()
	if n != 2 {
		t.Errorf("%d events for 2 s of refusals and a re-acquisition, want 2 (one report, one re-acquired)", n)
	}
	// Jumping about between two places is never consistent.
	g = newPoseRig(t, "")
	g.send(0, 0, 0, 0, "")
	for i := 1; i <= 120; i++ {
		g.advance(50)
		g.send(float64(30+30*(i%2)), 0, 0, 50*i, "")
	}
	if x, _, _, _ := g.latest(); x != 0 {
		t.Errorf("a flapping source was taken: x = %v", x)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.events) != 2 || !strings.Contains(g.events[1].Message, "(100 rejected since the last report)") {
		t.Errorf("6 s of refusals reported as %d events: %+v", len(g.events), g.events)
	}
}

func TestMQTTPoseConfig(t *testing.T) {
	for _, tc := range []struct{ dev, want string }{
		{`{name: m, kind: mqtt_pose}`, "devices[0].topic: missing topic"},
		{`{name: m, kind: mqtt_pose, topic: "a/+/pose"}`, "no wildcards"},
		{`{name: m, kind: mqtt_pose, topic: a, broker: "localhost:1883"}`, "devices[0].broker"},
		{`{name: m, kind: mqtt_pose, topic: a, adaptor: b}`, "devices[0].adaptor: a mqtt_pose device is wired to no board"},
		{`{name: m, kind: mqtt_pose, topic: a, quality: 2}`, "devices[0].quality"},
	} {
		_, err := kinds().ParseConfig([]byte("adaptors: {b: {kind: sim}}\ndevices:\n  - " + tc.dev + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.dev, err, tc.want)
		}
	}
	// With two boards an mqtt_pose still needs none.
	cfg := drivertest.Parse(t, kinds(), "adaptors: {a: {kind: sim}, b: {kind: raspi}}\ndevices:\n  - {name: m, kind: mqtt_pose, topic: a}\n")
	if c := cfg.Devices[0].Spec.(*Config); c.Frame != "map" || c.Key != "pose" || c.MaxAgeMs != 500 || math.Abs(c.StaleAfterMs-500) > 0 {
		t.Errorf("defaults: %+v", c)
	}
}
