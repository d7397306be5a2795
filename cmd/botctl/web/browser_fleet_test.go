package web

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// fakeFleet publishes, through a real broker, what n robots publish: the
// retained connection, factsheet (labels, fence), state and tree, and a
// full blackboard with the pose; it answers e-stops on the estop topics
// and records which robots got one.
type fakeFleet struct {
	t   *testing.T
	pub transport.Conn

	live []func(seq uint64) // publish a robot's state and blackboard

	replies sync.WaitGroup
	mu      sync.Mutex
	estops  []string // robots, in arrival order
}

var fakeModes = [...]string{protocol.ModeRunning, protocol.ModeIdle, protocol.ModePaused, protocol.ModeRunning}

func fakeID(i int) string { return fmt.Sprintf("fake-%03d", i) }

// fakeSite is north for the first half of every 20, south for the rest.
func fakeSite(i int) string {
	if i%20 < 10 {
		return "north"
	}
	return "south"
}

func newFakeFleet(t *testing.T, url string, n int) *fakeFleet {
	t.Helper()
	f := &fakeFleet{t: t, pub: mqtttest.NewPublisher(t, url)}
	now := protocol.FormatTS(time.Now())
	if err := f.pub.Subscribe(protocol.RobotsFilter("", protocol.LeafEStop), protocol.QoSReliable, f.onEStop); err != nil {
		t.Fatal(err)
	}
	fence := &protocol.Geofence{Frame: "local", Points: [][2]float64{{-5, -5}, {100, -5}, {100, 55}, {-5, 55}}}
	for i := range n {
		id := fakeID(i)
		tp, _ := protocol.NewTopics("", id)
		h := protocol.Header{Robot: id, Seq: 1, TS: now}
		st := protocol.State{Mode: fakeModes[i%4], RequestedMode: fakeModes[i%4], Errors: []protocol.StateError{},
			Battery: &protocol.BatteryState{Percent: float64(100 - i%100), Voltage: 12}}
		mission := "survey-" + strconv.Itoa(i%3)
		if st.Mode != protocol.ModeIdle {
			st.Mission = &protocol.MissionState{ID: mission, Name: mission, Revision: 1, Status: protocol.RunRunning}
		}
		tree := protocol.TreeMsg{Header: h, TreeInfo: protocol.TreeInfo{Mission: mission, Revision: 1, Nodes: []protocol.TreeNode{
			{Index: 0, Type: "Sequence", Name: "survey", Parent: -1, Path: "/trees/main"},
			{Index: 1, Type: "MoveTo", Name: "first corner", Parent: 0, Path: "/trees/main/children/0", Goal: &protocol.Goal{Frame: "local", X: 0, Y: 0}},
			{Index: 2, Type: "MoveTo", Name: "second corner", Parent: 0, Path: "/trees/main/children/1", Goal: &protocol.Goal{Frame: "local", X: 90, Y: 45}},
		}}}
		x, y := float64(i%20)*5, float64(i/20)*5
		bb := protocol.BlackboardMsg{Header: h, Mission: mission, Full: true, Values: []protocol.BlackboardValue{
			{Key: "pose.x", Value: x}, {Key: "pose.y", Value: y}, {Key: "pose.heading", Value: 0.5}, {Key: "battery.percent", Value: 80.0}}}
		f.live = append(f.live, func(seq uint64) {
			h := protocol.Header{Robot: id, Seq: seq, TS: protocol.FormatTS(time.Now())}
			bb.Header = h
			f.publish(tp.State(), true, protocol.StateMsg{Header: h, State: st})
			f.publish(tp.Blackboard(), false, bb)
		})
		f.publish(tp.Connection(), true, protocol.ConnectionMsg{Header: h, State: protocol.ConnOnline})
		f.publish(tp.Factsheet(), true, protocol.FactsheetMsg{Header: h, Version: "test", NodeTypes: nil, Devices: []protocol.Device{},
			Labels: map[string]string{"site": fakeSite(i), "kind": "rover"}, Geofence: fence})
		f.publish(tp.Tree(), true, tree)
	}
	// What a robot repeats: its state (at least once a second) and its
	// blackboard (not retained: a late subscriber needs the next one).
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for seq := uint64(1); ; seq++ {
			for _, live := range f.live {
				live(seq)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done; f.replies.Wait() }) // before the publisher closes
	return f
}

func (f *fakeFleet) publish(topic string, retain bool, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Errorf("encoding for %s: %v", topic, err) // not Fatal: also called from goroutines
		return
	}
	if err := f.pub.Publish(topic, protocol.QoSReliable, retain, b); err != nil {
		f.t.Errorf("publishing %s: %v", topic, err)
	}
}

// onEStop answers an e-stop as the daemon does: once, on reply, with its id.
func (f *fakeFleet) onEStop(topic string, payload []byte) {
	robot, _, ok := protocol.SplitTopic("", topic)
	if !ok {
		return
	}
	var c protocol.Command
	_ = json.Unmarshal(payload, &c)
	f.mu.Lock()
	f.estops = append(f.estops, robot)
	f.mu.Unlock()
	tp, _ := protocol.NewTopics("", robot)
	f.replies.Go(func() {
		f.publish(tp.Reply(), false, protocol.ReplyMsg{Header: protocol.Header{Robot: robot, Seq: 1, TS: protocol.FormatTS(time.Now())},
			Reply: protocol.Reply{ID: c.ID, OK: true}})
	})
}

func (f *fakeFleet) estopped() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.estops)
	slices.Sort(out)
	return out
}

// The fleet view with 200 robots published through a real broker: the
// list shows them all with only the visible rows in the DOM, the filters
// narrow it, the map draws every robot where it is, a click on the map or
// the list opens the robot's tree (and the map its waypoints), and an
// e-stop of a multi-selection reaches exactly those robots' estop topics.
func TestBrowserFleet(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	n := 200 // BOTD_FLEET_ROBOTS=1000 runs it with more
	if v, err := strconv.Atoi(os.Getenv("BOTD_FLEET_ROBOTS")); err == nil && v >= 200 {
		n = v
	}
	// mosquitto, not the embedded broker: 200 robots' retained messages
	// meet the ground's and the dashboard's wildcard subscriptions (see
	// mqtttest.StartMosquitto).
	addr := mqtttest.StartMosquitto(t)
	fleet := newFakeFleet(t, "tcp://"+addr, n)
	g := dialGround(t, addr)
	mqtttest.Eventually(t, "the ground to hear every robot", func() bool { return len(g.Robots()) == n })

	p := openDashboard(t, exe, g, addr) // the one place a dashboard login goes
	all := strconv.Itoa(n)
	p.wait("the list of every robot", `document.getElementById('robots-scroll').dataset.shown === '`+all+`' &&
		document.getElementById('robot-count').textContent.includes('(`+all+`/`+all+` online')`)
	rows := p.evalInt(`document.querySelectorAll('#robots li.robot').length`)
	if rows < 5 || rows > 60 {
		t.Errorf("%d rows in the DOM for %d robots: want only the visible ones (and a few more)", rows, n)
	}
	// Scrolling to the end shows the last robot, still with few rows.
	p.eval(`(() => { const s = document.getElementById('robots-scroll'); s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); return ''; })()`)
	p.wait("the last row after scrolling", `!!document.querySelector('#robots li.robot[data-robot="`+fakeID(n-1)+`"]')`)
	if rows := p.evalInt(`document.querySelectorAll('#robots li.robot').length`); rows > 60 {
		t.Errorf("%d rows in the DOM after scrolling", rows)
	}

	// Filters: a quarter is PAUSED; half of those are at the north site.
	setFilter := `((id, v) => { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change')); return s.value; })`
	p.wait("the mode filter to offer PAUSED", `[...document.getElementById('f-mode').options].some((o) => o.value === 'PAUSED')`)
	p.eval(setFilter + `('f-mode', 'PAUSED')`)
	p.wait("the paused robots", `document.getElementById('robots-scroll').dataset.shown === '`+strconv.Itoa(n/4)+`' &&
		[...document.querySelectorAll('#robots li.robot')].every((li) => li.dataset.mode === 'PAUSED')`)
	p.eval(setFilter + `('f-label', 'site=north')`)
	northPaused := 0
	for i := range n {
		if fakeModes[i%4] == protocol.ModePaused && fakeSite(i) == "north" {
			northPaused++
		}
	}
	p.wait("the paused robots at the north site", `document.getElementById('robots-scroll').dataset.shown === '`+strconv.Itoa(northPaused)+`' &&
		[...document.querySelectorAll('#robots li.robot')].every((li) => li.dataset.mode === 'PAUSED' && li.title.includes('site=north'))`)
	p.eval(setFilter + `('f-mode', '')`)
	p.eval(setFilter + `('f-label', '')`)
	p.wait("all again", `document.getElementById('robots-scroll').dataset.shown === '`+all+`'`)

	// The map draws every robot, where it is: x east, y north (up).
	p.wait("every robot on the map", `window.BotdMap.drawn().length === `+all+` && window.BotdMap.frame() === 'local'`)
	var drawn []struct {
		ID string  `json:"id"`
		X  float64 `json:"x"`
		Y  float64 `json:"y"`
	}
	if err := json.Unmarshal([]byte(p.eval(`JSON.stringify(window.BotdMap.drawn())`)), &drawn); err != nil {
		t.Fatal(err)
	}
	at := map[string][2]float64{}
	for _, d := range drawn {
		at[d.ID] = [2]float64{d.X, d.Y}
	}
	// fake-000 is at (0, 0), fake-019 at (95, 0), fake-180 at (0, 45).
	o, e, nn := at["fake-000"], at["fake-019"], at["fake-180"]
	if !(e[0] > o[0]+50 && abs(e[1]-o[1]) < 2 && nn[1] < o[1]-20 && abs(nn[0]-o[0]) < 2) {
		t.Errorf("robots not drawn where they are: fake-000 %v, fake-019 %v, fake-180 %v", o, e, nn)
	}

	// A click on a robot on the map opens its tree and the map its waypoints.
	pos := p.eval(`(() => { const c = document.getElementById('map').getBoundingClientRect();
		const d = window.BotdMap.drawn().find((d) => d.id === 'fake-042'); return (c.left + d.x) + ',' + (c.top + d.y); })()`)
	var cx, cy float64
	if _, err := fmt.Sscanf(pos, "%f,%f", &cx, &cy); err != nil {
		t.Fatalf("position of fake-042 on the map: %q", pos)
	}
	if err := chromedp.Do(p.ctx, chromedp.MouseClickXY(cx, cy)); err != nil {
		t.Fatal(err)
	}
	p.wait("fake-042's tree", `document.getElementById('robot-name').textContent === 'fake-042' &&
		document.querySelectorAll('#nodes g.node').length === 3 && location.pathname === '/robot/fake-042'`)
	p.wait("its waypoints on the map", `window.BotdMap.waypoints().length === 2`)
	p.wait("its row marked", `!!document.querySelector('#robots li.robot.selected[data-robot="fake-042"]')`)

	// A click in the list opens another.
	p.eval(`(() => { const s = document.getElementById('robots-scroll'); s.scrollTop = 0; s.dispatchEvent(new Event('scroll')); return ''; })()`)
	p.wait("fake-003 in the list", `!!document.querySelector('#robots li.robot[data-robot="fake-003"] .rid')`)
	p.eval(`document.querySelector('#robots li.robot[data-robot="fake-003"] .rid').click(), ''`)
	p.wait("fake-003's tree", `document.getElementById('robot-name').textContent === 'fake-003' && document.querySelectorAll('#nodes g.node').length === 3`)

	// E-stop a multi-selection: the running robots of the south site.
	p.eval(setFilter + `('f-mode', 'RUNNING')`)
	p.eval(setFilter + `('f-label', 'site=south')`)
	var want []string
	for i := range n {
		if fakeModes[i%4] == protocol.ModeRunning && fakeSite(i) == "south" {
			want = append(want, fakeID(i))
		}
	}
	p.wait("the running robots of the south site", `document.getElementById('robots-scroll').dataset.shown === '`+strconv.Itoa(len(want))+`'`)
	if p.eval(`String(document.getElementById('sel-estop').disabled)`) != "true" {
		t.Errorf("E-STOP selected is enabled with nothing selected")
	}
	p.eval(`document.getElementById('sel-all').click(), ''`)
	p.wait("the selection", `document.getElementById('sel-count').textContent.startsWith('`+strconv.Itoa(len(want))+` selected')`)
	// The e-stop button stays in view whatever the list's scroll.
	p.eval(`(() => { const s = document.getElementById('robots-scroll'); s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); return ''; })()`)
	if vis := p.eval(`(() => { const r = document.getElementById('sel-estop').getBoundingClientRect();
		const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return String(e && e.id); })()`); vis != "sel-estop" {
		t.Errorf("E-STOP selected is not on top at its place: %s", vis)
	}
	p.eval(`document.getElementById('sel-estop').click(), ''`)
	p.wait("every e-stop answered", `document.getElementById('sel-result').dataset.ok === '`+strconv.Itoa(len(want))+`' &&
		document.getElementById('sel-result').dataset.failed === '0'`)
	mqtttest.Eventually(t, "the e-stops on the estop topics", func() bool { return len(fleet.estopped()) >= len(want) })
	if got := fleet.estopped(); !slices.Equal(got, want) {
		t.Errorf("e-stopped %d robots %v\nwant %d %v", len(got), got, len(want), want)
	}
	p.wait("a result on each row", `[...document.querySelectorAll('#robots li.robot')].every((li) => li.querySelector('.res.ok'))`)
	t.Logf("%d robots: list %s; map %s", n, p.eval(`JSON.stringify(window.BotdFleet.stats())`), p.eval(`JSON.stringify(window.BotdMap.stats())`))
	p.shot(fmt.Sprintf("dashboard-fleet-%d.png", n))
	p.noProblems()
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func (p *page) evalInt(js string) int {
	n, err := strconv.Atoi(strings.TrimSpace(p.eval(`String(` + js + `)`)))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return n
}
