package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// These tests run botctl's run() against real botd processes: the daemon
// is built once from ./cmd/botd and started on a free port with its own
// state directory; every daemon is stopped when its test ends.

var botdBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if botdBuild.dir != "" {
		os.RemoveAll(botdBuild.dir)
	}
	os.Exit(code)
}

// botdBinary builds botd once; the tests that need it skip when the build
// fails.
func botdBinary(t *testing.T) string {
	t.Helper()
	b := &botdBuild
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "botctl-test-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "botd")
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/botd")
		cmd.Dir = filepath.Join("..", "..")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Skipf("cannot build botd: %v\n%s", b.err, b.out)
	}
	return b.path
}

// daemon is a running botd process.
type daemon struct {
	cmd  *exec.Cmd
	url  string // its broker (the embedded one, or the one it was given)
	log  *syncBuffer
	done chan struct{}
	once sync.Once
}

// startBotd starts botd with args plus a state directory; without
// -broker in args it runs its embedded broker on a free port.
func startBotd(t *testing.T, args ...string) *daemon {
	t.Helper()
	bin := botdBinary(t)
	d := &daemon{log: &syncBuffer{}, done: make(chan struct{})}
	args = append([]string{"-state-dir", t.TempDir()}, args...)
	external, listen := false, ""
	for i, a := range args {
		switch {
		case a == "-broker" && i+1 < len(args):
			d.url, external = args[i+1], true
		case a == "-listen" && i+1 < len(args):
			listen = args[i+1]
		}
	}
	if !external {
		if listen == "" {
			listen = freeAddr(t)
			args = append(args, "-listen", listen)
		}
		d.url = "tcp://" + listen
	}
	d.cmd = exec.Command(bin, args...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	d.cmd.SysProcAttr = daemonSysProcAttr()
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting botd: %v", err)
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() { d.stop(t) })
	if !external {
		host := strings.TrimPrefix(d.url, "tcp://")
		waitFor(t, 30*time.Second, "botd's broker listening", func() bool {
			c, err := net.DialTimeout("tcp", host, time.Second)
			if err == nil {
				c.Close()
			}
			return err == nil
		}, d)
	}
	return d
}

// stop ends botd cleanly (SIGTERM), or kills it.
func (d *daemon) stop(t *testing.T) {
	d.once.Do(func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(15 * time.Second):
			t.Errorf("botd did not stop within 15 s; killing it\n%s", d.log.String())
			d.cmd.Process.Kill()
			<-d.done
		}
	})
}

// waitOnline waits until robot is listed ONLINE with a state.
func waitOnline(t *testing.T, d *daemon, robot string) {
	t.Helper()
	waitFor(t, 30*time.Second, robot+" online", func() bool {
		r := botctl(t, "robots", "--json", "--broker", d.url)
		var rs []robotJSON
		json.Unmarshal([]byte(r.stdout), &rs)
		for _, x := range rs {
			if x.ID == robot && x.Connection == protocol.ConnOnline && x.State != nil {
				return true
			}
		}
		return false
	}, d)
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool, d *daemon) {
	t.Helper()
	testutil.Eventually(t, limit, what, ok, func() string {
		if d == nil {
			return ""
		}
		return "botd log:\n" + d.log.String()
	})
}

// modeIs polls `status --json` until the robot's mode is want.
func modeIs(t *testing.T, d *daemon, robot, want string) {
	t.Helper()
	var last string
	waitFor(t, 10*time.Second, robot+" in mode "+want+" (last "+last+")", func() bool {
		r := botctl(t, "status", robot, "--json", "--broker", d.url)
		var s robotJSON
		if json.Unmarshal([]byte(r.stdout), &s) != nil || s.State == nil {
			return false
		}
		last = s.State.Mode
		return last == want
	}, d)
}

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func expect(t *testing.T, r result, code int, texts ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\n%v", r.code, code, r)
		return
	}
	for _, s := range texts {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("no %q in the output\n%v", s, r)
		}
	}
}

func TestIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	d := startBotd(t)
	b := []string{"--broker", d.url, "--timeout", "15s"}
	waitOnline(t, d, "rover-1")
	cmd := func(args ...string) result { t.Helper(); return botctl(t, append(args, b...)...) }

	t.Run("robots", func(t *testing.T) {
		r := cmd("robots")
		expect(t, r, 0, "ROBOT", "rover-1", "ONLINE")
	})

	t.Run("status", func(t *testing.T) {
		expect(t, cmd("status", "rover-1"), 0, "rover-1 (ONLINE, botd ", "mode", "mission", "tick", "battery", "link")
		// No robot named: the only one online.
		expect(t, cmd("status"), 0, "rover-1 (ONLINE, botd ", "(rover-1: the only robot online)")
	})

	t.Run("tree", func(t *testing.T) {
		r := cmd("tree", "rover-1")
		expect(t, r, 0, "patrol mission (MemSequence)", "toward the crate (SubTree)", "  to the waypoint (MoveTo)")
		if !regexp.MustCompile(`(?m)^(RUNNING|SUCCESS|FAILURE|IDLE) +patrol mission`).MatchString(r.stdout) {
			t.Errorf("no status on the root:\n%s", r.stdout)
		}
		var tj treeJSON
		if err := json.Unmarshal([]byte(cmd("tree", "rover-1", "--json").stdout), &tj); err != nil || len(tj.Nodes) != 53 || tj.Nodes[0].Status == "?" {
			t.Errorf("tree --json: %v, %d nodes", err, len(tj.Nodes))
		}
	})

	t.Run("mission send and events", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, errb := &syncBuffer{}, &syncBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append([]string{"events", "rover-1", "--follow"}, b...), strings.NewReader(""), out, errb)
		}()
		waitFor(t, 15*time.Second, "events following", func() bool { return strings.Contains(errb.String(), "following the events") }, d)

		r := cmd("mission", "send", repoFile(t, "configs/missions/hello.json"), "--robot", "rover-1", "--start", "--replace")
		expect(t, r, 0, `mission "hello" accepted and started`, "has no mission id; sending it as")

		waitFor(t, 15*time.Second, "mission.started in events", func() bool {
			return strings.Contains(out.String(), "mission.started") && strings.Contains(out.String(), `mission "hello" started`)
		}, d)
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("events exit %d: %s", code, errb.String())
		}
		// Without --follow it prints the history, then listens for a
		// while; each event once.
		r = cmd("events", "--for", "300ms")
		expect(t, r, 0, "daemon.started", `mission "hello" started`, "rover-1 keeps", "listening for new events of rover-1 for 300ms")
		if n := strings.Count(r.stdout, `mission "hello" started`); n != 1 {
			t.Errorf("mission.started printed %d times:\n%s", n, r.stdout)
		}
	})

	t.Run("refused mission", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(file, []byte(`{"format": "botd/mission@1", "id": "0b9d1f6a-8a43-4f0e-9f54-3d3c8b1a2e77", "name": "bad", "revision": 0, "main": "main",
 "trees": {"main": {"type": "Sequence", "children": [{"type": "Log", "params": {"message": "x"}}, {"type": "Sequense"}]}}}`), 0o644)
		r := cmd("mission", "send", file, "--robot", "rover-1", "--start")
		expect(t, r, 1, "rover-1 refused mission \"bad\": UNKNOWN_NODE_TYPE", `/trees/main/children/1/type: unknown node type "Sequense" (did you mean "Sequence"?)`)
		r = cmd("mission", "send", file, "--robot", "rover-1", "--json")
		var sj sendJSON
		if err := json.Unmarshal([]byte(r.stdout), &sj); err != nil || r.code != 1 || sj.OK || sj.Error == nil ||
			len(sj.Error.Problems) == 0 || sj.Error.Problems[0].Path != "/trees/main/children/1/type" {
			t.Errorf("--json refusal: %v %+v", err, r)
		}
	})

	t.Run("pause resume estop start", func(t *testing.T) {
		expect(t, cmd("mission", "send", repoFile(t, "configs/missions/patrol.json"), "--robot", "rover-1", "--start", "--replace"), 0, "started")
		modeIs(t, d, "rover-1", "RUNNING")
		expect(t, cmd("pause", "rover-1"), 0, "rover-1: mission paused")
		modeIs(t, d, "rover-1", "PAUSED")
		expect(t, cmd("resume", "rover-1"), 0, "rover-1: mission resumed")
		modeIs(t, d, "rover-1", "RUNNING")
		expect(t, cmd("estop", "rover-1"), 0, "E-STOP engaged")
		modeIs(t, d, "rover-1", "ESTOP")
		expect(t, cmd("status", "rover-1"), 0, "e-stop", "ENGAGED")
		expect(t, cmd("resume", "rover-1"), 1, "rover-1 refused mission.resume: NOT_ALLOWED_IN_MODE")
		expect(t, cmd("estop-reset", "rover-1"), 0, `e-stop released; mission "patrol" stays paused until resumed`)
		expect(t, cmd("resume", "rover-1"), 0, "mission resumed")
		modeIs(t, d, "rover-1", "RUNNING")
		// start: the current mission by default; it is running, so
		// only with --replace.
		expect(t, cmd("start", "rover-1"), 1, "OTHER_MISSION_ACTIVE")
		expect(t, cmd("start", "rover-1", "--replace"), 0, `rover-1: mission "patrol" started`)
		r := cmd("pause", "rover-1", "--json")
		var rj replyJSON
		if err := json.Unmarshal([]byte(r.stdout), &rj); err != nil || !rj.OK || rj.Op != "mission.pause" {
			t.Errorf("pause --json: %v %v", err, r)
		}
		expect(t, cmd("resume", "rover-1"), 0)
		// After an abort, nothing stays paused.
		expect(t, cmd("abort"), 0, "rover-1: mission aborted")
		modeIs(t, d, "rover-1", "IDLE")
		expect(t, cmd("estop"), 0, "E-STOP engaged")
		modeIs(t, d, "rover-1", "ESTOP")
		expect(t, cmd("estop-reset"), 0, `no mission is running ("patrol" ended ABORTED)`)
		expect(t, cmd("start", "--replace"), 0, `rover-1: mission "patrol" started`)
	})

	t.Run("failure reasons", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "dock.json")
		os.WriteFile(file, []byte(`{"format": "botd/mission@1", "id": "5f0c7a52-3f0e-4d8e-9a59-1c1f7b0d2a11", "name": "dock-check", "main": "main",
 "trees": {"main": {"type": "Sequence", "name": "go", "children": [{"type": "Log", "params": {"message": "checking the dock"}},
   {"type": "Expr", "name": "dock in reach", "params": {"expr": "dock_distance < 2"}}]}}}`), 0o644)
		expect(t, cmd("mission", "send", file, "--start", "--replace"), 0, `mission "dock-check" accepted and started`)
		waitFor(t, 20*time.Second, "the mission's ERROR", func() bool {
			return strings.Contains(cmd("status").stdout, "dock-check, revision 0, ERROR")
		}, d)
		expect(t, cmd("status"), 0, `MISSION_ERROR (dock in reach (Expr) /trees/main/children/1): expr: "dock_distance" is not set`,
			`last failure  ERROR in dock-check at dock in reach (Expr) #2 /trees/main/children/1`)
		expect(t, cmd("tree"), 0, `dock in reach (Expr)  ← expr: "dock_distance" is not set`)
		r := cmd("events", "--for", "200ms")
		expect(t, r, 0, `mission "dock-check" ended: ERROR at dock in reach (Expr): expr: "dock_distance" is not set`)
		// The patrol again, for what follows.
		expect(t, cmd("mission", "send", repoFile(t, "configs/missions/patrol.json"), "--start", "--replace"), 0, "started")
	})

	t.Run("robot offline", func(t *testing.T) {
		r := cmd("pause", "rover-9")
		expect(t, r, exitUnreachable, "robot rover-9 is offline or unknown", "robots heard: rover-1 (ONLINE)")
		expect(t, cmd("mission", "send", repoFile(t, "configs/missions/hello.json"), "--robot", "nobody"), exitUnreachable, "robot nobody is offline or unknown")
	})

	t.Run("watch", func(t *testing.T) { testWatchHeadless(t, d) })

	t.Run("ui", func(t *testing.T) { testUI(t, d) })

	t.Run("signed missions", func(t *testing.T) { testSigned(t, d) })

	// Last: it restarts the daemon.
	t.Run("watch across a broker restart", func(t *testing.T) { testReconnect(t, d) })
}

// testWatchHeadless runs `botctl watch` (no robot named: the only one
// online) with its input and output on pipes: the tree appears, a node
// runs, p pauses; a malformed payload is a warning, a forged gap in the
// status sequence is repaired from a keyframe; q quits.
func testWatchHeadless(t *testing.T, d *daemon) {
	modeIs(t, d, "rover-1", "RUNNING")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in, keys := io.Pipe()
	defer keys.Close()
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"watch", "--broker", d.url}, in, out, errb) }()
	see := watchSeer(t, out, d)
	see("the tree", `patrol mission \(MemSequence\)`)
	see("a running node", `▶ +\S.*\(MoveTo\)  RUNNING`)
	see("the robot's mode", `mode RUNNING`)
	see("synced statuses", `synced, keyframe`)

	keys.Write([]byte("p"))
	see("mode PAUSED", `mode PAUSED  requested PAUSED`)
	see("the reply", `pause: ok`)
	keys.Write([]byte("r"))
	see("the resume", `resume: ok`)

	pub := rawPublisher(t, d.url)
	pub("botd/v1/rover-1/status", []byte(`{"robot":"rover-1","seq":"x"}`))
	see("a warning", `⚠ \d\d:\d\d:\d\d could not parse the message on botd/v1/rover-1/status: protocol: bad payload`)
	// A status far ahead in the sequence: the ones between are "lost".
	var st robotJSON
	json.Unmarshal([]byte(botctl(t, "status", "rover-1", "--json", "--broker", d.url).stdout), &st)
	forged, _ := json.Marshal(protocol.StatusMsg{Header: protocol.Header{Robot: "rover-1", Seq: 1 << 40, TS: protocol.FormatTS(time.Now())},
		Mission: st.State.Mission.ID, Tick: 1, Changes: []protocol.NodeStatus{{Node: 0, Status: 'R'}}})
	pub("botd/v1/rover-1/status", forged)
	see("the gap", `resyncing after a status gap`)
	gapAt := len(out.String())
	waitFor(t, 20*time.Second, "synced again after the gap", func() bool {
		return regexp.MustCompile(`synced, keyframe .* gaps [1-9]`).MatchString(out.String()[gapAt:])
	}, d)

	keys.Write([]byte("q"))
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("watch exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not quit on q")
	}
}

func watchSeer(t *testing.T, out *syncBuffer, d *daemon) func(what, re string) {
	return func(what, re string) {
		t.Helper()
		rx := regexp.MustCompile(re)
		waitFor(t, 20*time.Second, what+" in the watch view", func() bool { return rx.MatchString(out.String()) }, d)
	}
}

// rawPublisher publishes payloads as they are, to test what botctl does
// with messages it cannot use.
func rawPublisher(t *testing.T, url string) func(topic string, payload []byte) {
	t.Helper()
	c, err := transport.Dial(transport.Options{Brokers: []string{url}, ClientID: "botctl-test-raw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	waitFor(t, 10*time.Second, "raw publisher up", c.IsUp, nil)
	return func(topic string, payload []byte) {
		t.Helper()
		if err := c.Publish(topic, 0, false, payload); err != nil {
			t.Fatal(err)
		}
	}
}

// testReconnect restarts botd (and with it the broker) under a running
// watch, which reconnects and rebuilds its tree without restarting.
func testReconnect(t *testing.T, d *daemon) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, keys := io.Pipe()
	defer keys.Close()
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"watch", "rover-1", "--broker", d.url}, in, out, errb) }()
	see := watchSeer(t, out, d)
	see("synced statuses", `synced, keyframe`)
	d.stop(t)
	see("the lost link", `broker link down`)
	d2 := startBotd(t, "-listen", strings.TrimPrefix(d.url, "tcp://"))
	mark := len(out.String())
	waitFor(t, 30*time.Second, "reconnected and synced", func() bool {
		s := out.String()[mark:]
		i := strings.Index(s, "reconnected to the broker")
		return i >= 0 && strings.Contains(s[i:], "synced, keyframe") && strings.Contains(s, "rover-1  ONLINE")
	}, d2)
	keys.Write([]byte("q"))
	if code := <-done; code != 0 {
		t.Errorf("watch exit %d: %s", code, errb.String())
	}
}

// testUI starts the dashboard on a free port and fetches its page.
func testUI(t *testing.T, d *daemon) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := freeAddr(t)
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "rover-1", "--listen", addr, "--broker", d.url}, strings.NewReader(""), out, errb)
	}()
	var status int
	waitFor(t, 20*time.Second, "the dashboard answering", func() bool {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		status = resp.StatusCode
		return true
	}, d)
	if status != http.StatusOK {
		t.Errorf("GET /: %d", status)
	}
	// The token is printed in the login URL; it buys a session, and
	// nothing of the API answers without one.
	m := regexp.MustCompile(`/login\?next=\S*#token=([0-9a-f]{32})`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no login URL with a token printed: %q", out.String())
	}
	if resp, err := http.Get("http://" + addr + "/api/robots"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the API without a session: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}
	session := uiLogin(t, addr, m[1])
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/robots", nil)
	req.AddCookie(session)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the API with the session: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("ui exit %d: %s", code, errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("ui did not stop when cancelled")
	}
}

// uiLogin exchanges the dashboard's login token for its session cookie.
func uiLogin(t *testing.T, addr, token string) *http.Cookie {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/login", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set("X-Botctl", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 1 {
		t.Fatalf("login with the printed token: %v %v", resp, err)
	}
	resp.Body.Close()
	return resp.Cookies()[0]
}

// testSigned runs a second robot that requires signed commands, on the
// first one's broker: botctl with a key loads and starts a mission and
// releases an e-stop; without a key it is refused; pause and estop need
// none; the key can come from $BOTCTL_SIGNING_KEY. Then it stops the
// robot and sees it offline.
func testSigned(t *testing.T, first *daemon) {
	dir := t.TempDir()
	key := filepath.Join(dir, "ops.key")
	expect(t, botctl(t, "keygen", "--out", key), 0, "public key:", "botctl --key "+key)
	pub, _ := os.ReadFile(key + ".pub")
	cfg := filepath.Join(dir, "signed.yaml")
	os.WriteFile(cfg, fmt.Appendf(nil, `robot: rover-s
hardware: %s
failsafe:
  require_gcs: false
security:
  require_signed_missions: true
  public_keys: [%q]
`, repoFile(t, "configs/sim.yaml"), strings.TrimSpace(string(pub))), 0o644)
	d := startBotd(t, "-config", cfg, "-broker", first.url)
	waitOnline(t, d, "rover-s")
	b := []string{"--broker", d.url, "--timeout", "15s"}
	cmd := func(args ...string) result { t.Helper(); return botctl(t, append(args, b...)...) }

	hello, _ := os.ReadFile(repoFile(t, "configs/missions/patrol.json"))
	file := filepath.Join(dir, "patrol.json")
	os.WriteFile(file, hello, 0o644)
	expect(t, cmd("mission", "send", file, "--robot", "rover-s", "--start"), 1, "rover-s refused", "SIGNATURE_REQUIRED")
	expect(t, cmd("mission", "send", file, "--robot", "rover-s", "--key", key, "--start"), 0, "accepted and started")
	modeIs(t, d, "rover-s", protocol.ModeRunning)
	expect(t, cmd("pause", "rover-s"), 0, "mission paused")
	expect(t, cmd("resume", "rover-s"), 1, "SIGNATURE_REQUIRED")
	expect(t, cmd("resume", "rover-s", "--key", key), 0, "mission resumed")
	expect(t, cmd("estop", "rover-s"), 0, "E-STOP")
	modeIs(t, d, "rover-s", protocol.ModeEStop)
	expect(t, cmd("estop-reset", "rover-s"), 1, "SIGNATURE_REQUIRED")
	t.Setenv("BOTCTL_SIGNING_KEY", key)
	expect(t, cmd("estop-reset", "rover-s"), 0, "e-stop released")
	expect(t, cmd("start", "rover-s", "--replace"), 0, "started")
	expect(t, cmd("abort", "rover-s"), 0, "mission aborted")
	t.Run("dashboard", func(t *testing.T) { testSignedUI(t, d, key, hello) })

	d.stop(t)
	expect(t, cmd("status", "rover-s"), exitUnreachable, "robot rover-s is offline (OFFLINE")
	expect(t, cmd("pause", "rover-s"), exitUnreachable, "robot rover-s is offline (OFFLINE")
}

// testSignedUI: the dashboard signs with its operator's key, server side:
// an upload that starts a mission, an e-stop (unsigned) and its reset.
func testSignedUI(t *testing.T, d *daemon, key string, mission []byte) {
	t.Setenv("BOTCTL_SIGNING_KEY", "") // the key is --key's
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := freeAddr(t)
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "rover-s", "--listen", addr, "--broker", d.url, "--key", key}, strings.NewReader(""), out, errb)
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("ui did not stop when cancelled")
		}
	}()
	waitFor(t, 20*time.Second, "the dashboard answering", func() bool {
		resp, err := http.Get("http://" + addr + "/api/robots")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, d)
	m := regexp.MustCompile(`#token=([0-9a-f]{32})`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no login URL with a token printed: %q", out.String())
	}
	session := uiLogin(t, addr, m[1])
	post := func(path string, body []byte) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Botctl", "1")
		req.AddCookie(session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res map[string]any
		json.NewDecoder(resp.Body).Decode(&res)
		return res
	}
	body, _ := json.Marshal(map[string]any{"mission": string(mission), "start": true, "replace": true})
	if res := post("/api/robots/rover-s/mission", body); res["ok"] != true {
		t.Fatalf("upload and start through the dashboard: %v\n%s", res, errb.String())
	}
	modeIs(t, d, "rover-s", protocol.ModeRunning)
	if res := post("/api/robots/rover-s/commands/estop", nil); res["ok"] != true {
		t.Fatalf("estop through the dashboard: %v", res)
	}
	modeIs(t, d, "rover-s", protocol.ModeEStop)
	if res := post("/api/robots/rover-s/commands/estop-reset", nil); res["ok"] != true {
		t.Fatalf("estop-reset through the dashboard: %v", res)
	}
	if res := post("/api/robots/rover-s/commands/abort", nil); res["ok"] != true {
		t.Fatalf("abort through the dashboard: %v", res)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
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

// botctl's own binary, for the tests that need a process (a terminal).
var botctlBuild struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

func botctlBinary(t *testing.T) string {
	t.Helper()
	b := &botctlBuild
	b.once.Do(func() {
		dir := botdBinary(t) // the shared temporary directory
		b.path = filepath.Join(filepath.Dir(dir), "botctl")
		cmd := exec.Command("go", "build", "-o", b.path, ".")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Skipf("cannot build botctl: %v\n%s", b.err, b.out)
	}
	return b.path
}

// watch starts before the broker (and the robot): it says it is
// connecting, then takes the only robot online when botd comes up.
func TestWatchWaitsForTheBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, keys := io.Pipe()
	defer keys.Close()
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"watch", "--broker", "tcp://" + addr}, in, out, errb) }()
	see := watchSeer(t, out, nil)
	see("connecting", `connecting to the broker`)
	see("what it waits for", `waiting: connecting to the broker at tcp://`)
	d := startBotd(t, "-listen", addr)
	see = watchSeer(t, out, d)
	see("the robot picked", `botctl watch rover-1`)
	see("the tree", `patrol mission \(MemSequence\)`)
	see("the history", `history: \d+ events \(seq 1–`)
	keys.Write([]byte("q"))
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("watch exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch did not quit on q")
	}
}

// Under a terminal that answers no query (script(1) passes the queries
// to a pipe), botctl asks nothing, so no key is lost: q quits at once.
func TestWatchUnderATerminalThatDoesNotAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts botd")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed (apt-get install bsdutils)")
	}
	d := startBotd(t)
	waitOnline(t, d, "rover-1")
	bin := botctlBinary(t)
	cmd := exec.Command(script, "-qfec", bin+" --broker "+d.url+" watch rover-1", "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	keys, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	watchSeer(t, out, d)("the tree", `patrol mission \(MemSequence\)`)
	keys.Write([]byte("q"))
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("watch under script: %v\n%q", waitErr, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("q did not quit under a terminal that does not answer:\n%q", out.String())
	}
	for _, q := range []string{"\x1b]11;?", "\x1b[6n"} {
		if strings.Contains(out.String(), q) {
			t.Errorf("botctl queried the terminal (%q)", q)
		}
	}
}
