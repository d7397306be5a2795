package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if botdBin.path != "" {
		os.RemoveAll(filepath.Dir(botdBin.path))
	}
	os.Exit(code)
}

// The page at / opens the only robot online whatever came first: the
// dashboard (before the broker, even), the robot or its mission (loaded
// over MQTT); and a mission that fails shows why, on the node and in the
// failure panel.
func TestBrowserAutoSelectInEitherOrder(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	root := repoRoot(t)
	// The simulated rover without a mission: missions come over MQTT.
	cfg := filepath.Join(t.TempDir(), "rover.yaml")
	if err := os.WriteFile(cfg, []byte("robot: rover-1\nhardware: "+filepath.Join(root, "configs", "sim.yaml")+
		"\nfailsafe:\n  require_gcs: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hello := missionWithID(t, filepath.Join(root, "configs", "missions", "hello.json"))
	failing := json.RawMessage(`{"format":"botd/mission@1","id":"` + uuid.NewString() + `","name":"dock-check","main":"main",
		"trees":{"main":{"type":"Sequence","name":"go","children":[{"type":"Log","params":{"message":"checking the dock"}},
		{"type":"Expr","name":"dock in reach","params":{"expr":"dock_distance < 2"}}]}}}`)

	t.Run("dashboard first", func(t *testing.T) {
		addr := freeAddr(t)
		g := dialGround(t, addr) // nothing listens there yet
		p := openDashboard(t, exe, g, addr)
		p.wait("the page to say it is connecting", `!document.getElementById('broker').hidden && document.getElementById('broker').textContent.includes('connecting')`)
		runBotd(t, root, addr, "-config", cfg)
		p.wait("the page to open rover-1", `location.pathname === '/robot/rover-1' && document.getElementById('robot-name').textContent === 'rover-1'`)
		p.wait("the broker link", `document.getElementById('broker').hidden`)
		p.wait("no mission yet", `document.getElementById('mission-name').textContent === 'no mission'`)
		load(t, g, hello)
		p.wait("the hello tree", `document.querySelectorAll('#nodes g.node').length > 5 && document.getElementById('mission-name').textContent.includes('hello')`)
		load(t, g, failing)
		p.wait("the failure panel", `!document.getElementById('failure').hidden && document.getElementById('failure').textContent.includes('"dock_distance" is not set')`)
		p.wait("the reason on the node", `(() => { const n = document.querySelector('#nodes g.node.has-reason');
			return !!n && n.querySelector('title').textContent.includes('why: expr: "dock_distance" is not set'); })()`)
		if !strings.Contains(p.eval(`document.getElementById('failure').textContent`), "dock in reach (Expr)") {
			t.Errorf("the failure panel does not name the node: %s", p.eval(`document.getElementById('failure').textContent`))
		}
		p.shot("dashboard-failure-reason.png")
		p.noProblems()
	})

	t.Run("robot and mission first", func(t *testing.T) {
		addr := freeAddr(t)
		runBotd(t, root, addr, "-config", cfg)
		g := dialGround(t, addr)
		waitOnline(t, g)
		load(t, g, hello)
		p := openDashboard(t, exe, g, addr)
		p.wait("the page to open rover-1", `location.pathname === '/robot/rover-1' && document.getElementById('robot-name').textContent === 'rover-1'`)
		p.wait("the hello tree", `document.querySelectorAll('#nodes g.node').length > 5 && document.getElementById('mission-name').textContent.includes('hello')`)
		p.wait("the event history", `[...document.querySelectorAll('#log li .kd')].some((k) => k.textContent === 'daemon.started')`)
		p.noProblems()
	})
}

// The 53-node demo patrol in a laptop-sized window opens readable: at
// least 60 % (fit to the width, deepest subtrees collapsed), and a
// collapsed subtree opens with a click.
func TestBrowserBigTreeReadable(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	root := repoRoot(t)
	addr := freeAddr(t)
	runBotd(t, root, addr) // the demo patrol
	g := dialGround(t, addr)
	waitOnline(t, g)
	p := openDashboard(t, exe, g, addr)
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	p.wait("the patrol tree", `document.getElementById('tree').dataset.nodes === '53' && document.querySelectorAll('#nodes g.node').length > 5`)
	p.wait("a readable zoom with collapsed subtrees", `parseInt(document.getElementById('zoom').textContent) >= 60 &&
		Number(document.getElementById('tree').dataset.collapsed) > 0`)
	if got := p.eval(overlaps); got != "" {
		t.Errorf("nodes overlap: %s", got)
	}
	before := p.eval(`String(document.querySelectorAll('#nodes g.node').length)`)
	p.eval(`(() => { const f = document.querySelector('#nodes g.toggle.folded');
		f.dispatchEvent(new MouseEvent('click', {bubbles: true})); return 'ok'; })()`)
	p.wait("the subtree expanded", `String(document.querySelectorAll('#nodes g.node').length) !== '`+before+`'`)
	if got := p.eval(overlaps); got != "" {
		t.Errorf("nodes overlap after expanding: %s", got)
	}
	p.shot("dashboard-patrol-1280.png")
	p.noProblems()
}

func missionWithID(t *testing.T, file string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["id"] = uuid.NewString()
	out, _ := json.Marshal(doc)
	return out
}

// dialGround is a ground station with presence on addr that does not
// wait for the broker.
func dialGround(t *testing.T, addr string) *ground.Client {
	t.Helper()
	g, err := ground.New(ground.Config{
		GCS:      "web-order-test",
		Conn:     transport.Options{Brokers: []string{"tcp://" + addr}, ConnectRetryInterval: 200 * time.Millisecond},
		Presence: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

func waitOnline(t *testing.T, g *ground.Client) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, r := range g.Robots() {
			if r.ID == "rover-1" && r.Connection == protocol.ConnOnline {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("rover-1 did not come online; robots: %+v", g.Robots())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// load sends a mission and starts it in place of any other.
func load(t *testing.T, g *ground.Client, doc json.RawMessage) {
	t.Helper()
	waitOnline(t, g)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := g.Send(ctx, "rover-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true, Replace: true})
	if err != nil || !rep.OK {
		t.Fatalf("mission.load: %+v %v", rep.Error, err)
	}
}

// page is a dashboard open in Chromium.
type page struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func openDashboard(t *testing.T, exe string, g *ground.Client, addr string) *page {
	t.Helper()
	h, err := Handler(Options{Ground: g, Broker: "tcp://" + addr, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = h.(interface{ Close() error }).Close() })
	p := &page{t: t, ctx: browser(t, exe), dir: artifactsDir(t, repoRoot(t))}
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1600, 1000)); err != nil {
		t.Fatalf("opening the dashboard: %v", err)
	}
	logIn(t, p.ctx, srv.URL)
	return p
}

func (p *page) shot(name string) {
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
	}
	p.t.Logf("screenshot: %s", path)
}

// wait polls js until it is true; the bound is generous (a busy machine),
// never an assertion of speed.
func (p *page) wait(what, js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](js,
		chromedp.WithPollingTimeout(60*time.Second), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		p.shot("dashboard-order-failure.png")
		p.t.Fatalf("waiting for %s: %v\npage: %s", what, err, p.eval(`document.body.innerText.slice(0, 2000)`))
	}
}

func (p *page) eval(js string) string {
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return fmt.Sprintf("(evaluating %s: %v)", js, err)
	}
	return s
}

func (p *page) noProblems() {
	p.t.Helper()
	if n := p.eval(`document.getElementById('problem-count').textContent`); n != "" {
		p.t.Errorf("the page reports problems: %s\n%s", n, p.eval(`[...document.querySelectorAll('#log li.problem')].map((li) => li.textContent).join('\n')`))
	}
}
