package web

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// The browser test drives the real thing: it builds botd, runs it (the
// simulated rover on its embedded broker), connects a Ground, serves the
// dashboard and operates it in headless Chromium.

const chromiumPath = "/usr/bin/chromium"

func findChromium() string {
	if p := os.Getenv("BOTD_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat(chromiumPath); err == nil {
		return chromiumPath
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// artifactsDir is $BOTD_ARTIFACTS or artifacts/ under the repo root.
func artifactsDir(t *testing.T, root string) string {
	t.Helper()
	dir := os.Getenv("BOTD_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(root, "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// syncBuffer collects a child process's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// botdBin builds botd once per test binary.
var botdBin struct {
	once sync.Once
	path string
	err  error
}

func buildBotd(t *testing.T, root string) string {
	t.Helper()
	botdBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "botd-web-test-")
		if err != nil {
			botdBin.err = err
			return
		}
		botdBin.path = filepath.Join(dir, "botd")
		gocmd := "go"
		if p, err := exec.LookPath("go"); err == nil {
			gocmd = p
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		build := exec.CommandContext(ctx, gocmd, "build", "-o", botdBin.path, "./cmd/botd")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			botdBin.err = fmt.Errorf("building botd: %v\n%s", err, out)
		}
	})
	if botdBin.err != nil {
		t.Fatal(botdBin.err)
	}
	return botdBin.path
}

// startBotd builds and starts botd (the default simulated rover and its
// demo mission) on a free address; see runBotd.
func startBotd(t *testing.T, root string) (addr string) {
	t.Helper()
	addr = freeAddr(t)
	runBotd(t, root, addr)
	return addr
}

// runBotd starts botd with its embedded broker on addr and args; the
// cleanup stops it (SIGTERM, then SIGKILL) and waits for it.
func runBotd(t *testing.T, root, addr string, args ...string) {
	t.Helper()
	bin := buildBotd(t, root)
	tmp := t.TempDir()
	out := &syncBuffer{}
	cmd := exec.Command(bin, append([]string{"-listen", addr, "-state-dir", filepath.Join(tmp, "state")}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting botd: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("botd output:\n%s", out.String())
		}
	})
}

// connectGround connects a ground station to the broker at addr and waits
// until robot is online.
func connectGround(t *testing.T, addr, robot string) *ground.Client {
	t.Helper()
	g, err := ground.New(ground.Config{
		GCS:      "web-test",
		Conn:     transport.Options{Brokers: []string{"tcp://" + addr}, ConnectRetryInterval: 200 * time.Millisecond},
		Presence: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, r := range g.Robots() {
			if r.ID == robot && r.Connection == protocol.ConnOnline {
				return g
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come online; robots: %+v", robot, g.Robots())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// browser starts headless Chromium; the cleanup ends it.
func browser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1600, 1000),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel()
	})
	return ctx
}

func TestBrowserDashboard(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	root := repoRoot(t)
	artifacts := artifactsDir(t, root)
	addr := startBotd(t, root)
	g := connectGround(t, addr, "rover-1")

	h, err := Handler(Options{Ground: g, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	// Cleanups run last-in first-out: the browser goes first, then the
	// dashboard's streams end with the hub, then the server.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = h.(interface{ Close() error }).Close() })
	ctx := browser(t, exe)

	var jsMu sync.Mutex
	var jsErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg = d.Exception.Description
			}
			jsMu.Lock()
			jsErrors = append(jsErrors, fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber+1))
			jsMu.Unlock()
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, a.Description+string(a.Value))
				}
				jsMu.Lock()
				jsErrors = append(jsErrors, "console.error: "+strings.Join(parts, " "))
				jsMu.Unlock()
			}
		}
	}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	shot := func(name string) string {
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return ""
		}
		p := filepath.Join(artifacts, name)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Errorf("screenshot %s: %v", name, err)
		}
		t.Logf("screenshot: %s", p)
		return p
	}
	fail := func(format string, args ...any) {
		t.Helper()
		shot("dashboard-failure.png")
		t.Fatalf(format, args...)
	}
	wait := func(what, js string, timeout time.Duration) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js,
			chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			fail("waiting for %s: %v", what, err)
		}
	}
	eval := func(js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			fail("evaluating %s: %v", js, err)
		}
		return s
	}
	click := func(id string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(id))); err != nil {
			fail("clicking #%s: %v", id, err)
		}
	}

	// Logged in by the URL botctl ui prints; with one robot online, the
	// page opens on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1600, 1000)); err != nil {
		t.Fatalf("opening the dashboard: %v", err)
	}
	logIn(t, ctx, srv.URL)
	wait("the page to open rover-1", `location.pathname === '/robot/rover-1' && document.getElementById('robot-name').textContent === 'rover-1'`, 20*time.Second)
	wait("the robot list", `document.querySelector('#robots li.robot[data-robot="rover-1"][data-online="yes"]') !== null`, 20*time.Second)

	// The patrol tree appears, every node drawn.
	wait("the tree", `document.querySelectorAll('#nodes g.node').length >= 50`, 30*time.Second)
	patrolMission := eval(`document.getElementById('tree').dataset.mission`)
	if got := eval(overlaps); got != "" {
		fail("the patrol tree's nodes overlap: %s", got)
	}

	// Some node turns from running to success, live.
	eval(`(() => {
		window.__transitions = [];
		new MutationObserver((ms) => { for (const m of ms) window.__transitions.push(
			{i: m.target.getAttribute('data-index'), from: m.oldValue, to: m.target.getAttribute('data-status')}); })
		.observe(document.getElementById('nodes'), {subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-status']});
		return 'ok';
	})()`)
	wait("a node to go from running to success", `window.__transitions.some((x) => x.from === 'running' && x.to === 'success')`, 60*time.Second)
	wait("the tick chart", `document.getElementById('tick-now').textContent.includes('Hz')`, 10*time.Second)
	// The map draws the simulated rover's yard under it, the rover inside
	// the walls, its patrol's waypoints in the local frame.
	wait("the yard on the map", `(() => { const w = window.BotdMap.world(); const d = window.BotdMap.drawn();
		if (!w || w.boxes.length !== 3 || d.length !== 1) return false;
		const [x0, y0] = window.BotdMap.toPx(w.bounds.min_x, w.bounds.max_y), [x1, y1] = window.BotdMap.toPx(w.bounds.max_x, w.bounds.min_y);
		return d[0].x > x0 && d[0].x < x1 && d[0].y > y0 && d[0].y < y1; })()`, 20*time.Second)

	// Pause and resume.
	wait("mode RUNNING", `document.getElementById('mode').textContent === 'RUNNING'`, 10*time.Second)
	click("btn-pause")
	wait("mode PAUSED", `document.getElementById('mode').textContent === 'PAUSED'`, 15*time.Second)
	click("btn-resume")
	wait("mode RUNNING after resume", `document.getElementById('mode').textContent === 'RUNNING'`, 15*time.Second)
	wait("running nodes", `document.querySelectorAll('#nodes g.node[data-status="running"]').length > 0`, 10*time.Second)
	wait("blackboard values", `document.querySelectorAll('#bb tbody tr').length > 5`, 10*time.Second)
	wait("events", `document.querySelectorAll('#log li').length > 0`, 10*time.Second)
	// BOTD_UPDATE_DOCS=1 also refreshes the README's screenshot.
	if p := shot("dashboard.png"); p != "" && os.Getenv("BOTD_UPDATE_DOCS") != "" {
		if b, err := os.ReadFile(p); err == nil {
			if err := os.WriteFile(filepath.Join(root, "docs", "dashboard.png"), b, 0o644); err != nil {
				t.Errorf("copying the screenshot to docs/: %v", err)
			}
		}
	}

	// Upload hello.json in place of the patrol: the tree changes.
	hello := filepath.Join(root, "configs", "missions", "hello.json")
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{hello})); err != nil {
		fail("choosing the mission file: %v", err)
	}
	if eval(`String(document.getElementById('upload-replace').checked)`) != "true" {
		click("upload-replace")
	}
	click("btn-upload")
	wait("the upload reply", `document.getElementById('reply').dataset.ok !== undefined`, 20*time.Second)
	if ok := eval(`document.getElementById('reply').dataset.ok`); ok != "yes" {
		fail("upload refused: %s", eval(`document.getElementById('reply').textContent`))
	}
	wait("the hello tree", fmt.Sprintf(`(() => { const t = document.getElementById('tree');
		return t.dataset.mission !== %q && t.dataset.mission !== '' &&
			document.querySelectorAll('#nodes g.node').length === Number(t.dataset.nodes) &&
			Number(t.dataset.nodes) > 5 && Number(t.dataset.nodes) < 50; })()`, patrolMission), 20*time.Second)
	if !strings.Contains(eval(`document.getElementById('mission-name').textContent`), "hello") {
		wait("the mission name", `document.getElementById('mission-name').textContent.includes('hello')`, 10*time.Second)
	}

	// The layout copes with big trees, in both orientations, without
	// overlapping nodes.
	if got := eval(bigTree); !strings.HasPrefix(got, "ok") {
		fail("big tree: %s", got)
	} else {
		t.Logf("1500-node tree: %s", got)
	}

	// E-stop: one click, no confirmation.
	click("btn-estop")
	wait("mode ESTOP", `document.getElementById('mode').textContent === 'ESTOP'`, 15*time.Second)
	shot("dashboard-estop.png")
	helloNodes := eval(`document.getElementById('tree').dataset.nodes`)

	// A URL can name the robot; a new tab gets the current picture at once.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?robot=rover-1")); err != nil {
		fail("reopening the dashboard: %v", err)
	}
	wait("the named robot", `document.getElementById('robot-name').textContent === 'rover-1' && document.getElementById('mode').textContent === 'ESTOP'`, 15*time.Second)
	wait("the tree from the snapshot", fmt.Sprintf(`document.querySelectorAll('#nodes g.node').length === %s`, helloNodes), 15*time.Second)
	wait("the event history", `[...document.querySelectorAll('#log li .kd')].some((k) => k.textContent === 'estop.engaged')`, 10*time.Second)

	if n := eval(`document.getElementById('problem-count').textContent`); n != "" {
		t.Errorf("the page reports problems: %s\n%s", n, eval(`[...document.querySelectorAll('#log li.problem')].map((li) => li.textContent).join('\n')`))
	}
	jsMu.Lock()
	defer jsMu.Unlock()
	if len(jsErrors) > 0 {
		t.Errorf("JavaScript errors: %s", strings.Join(jsErrors, "; "))
	}
}

// overlaps lists drawn nodes whose boxes overlap ("" when none).
const overlaps = `(() => {
	const boxes = [...document.querySelectorAll('#nodes g.node rect.box')].map((r) => r.getBoundingClientRect());
	const bad = [];
	for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
		const a = boxes[i], b = boxes[j];
		if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) bad.push(i + '/' + j);
	}
	return bad.slice(0, 10).join(' ');
})()`

// bigTree lays out a random tree of 1500 nodes off screen, in both
// orientations, and checks the time and that no two nodes overlap.
const bigTree = `(() => {
	const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
	svg.innerHTML = '<g id="viewport"><g id="edges"></g><g id="nodes"></g></g>';
	const tv = new TreeView(svg, {});
	let seed = 7;
	const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
	const nodes = [], times = [];
	for (let i = 0; i < 1500; i++) {
		nodes.push({index: i, id: 'n' + i, type: ['Sequence', 'Fallback', 'MoveTo', 'Check', 'Repeater'][i % 5],
			name: i % 3 ? 'node number ' + i : '', parent: i === 0 ? -1 : Math.floor(rnd() * Math.min(i, 200 + i / 2))});
	}
	for (const o of ['lr', 'td']) {
		tv.orientation = o;
		const t0 = performance.now();
		tv.setTree({mission: 'big-' + o, revision: 1, nodes});
		const ms = performance.now() - t0;
		if (ms > 5000) return o + ': layout took ' + Math.round(ms) + ' ms';
		times.push(o + ' ' + Math.round(ms) + ' ms');
		const it = [...tv.byIndex.values()];
		if (it.length !== 1500 || svg.querySelectorAll('g.node').length !== 1500) return o + ': ' + it.length + ' nodes laid out';
		it.sort((a, b) => a.x - b.x);
		for (let i = 0; i < it.length; i++) for (let j = i + 1; j < it.length && it[j].x < it[i].x + it[i].w; j++) {
			const a = it[i], b = it[j];
			if (a.y < b.y + b.h && b.y < a.y + a.h) return o + ': nodes ' + a.node.index + ' and ' + b.node.index + ' overlap';
		}
		if (tv.setKeyframe('R'.repeat(1500)) !== 0) return o + ': keyframe not applied';
	}
	return 'ok: laid out and drawn in ' + times.join(', ');
})()`
