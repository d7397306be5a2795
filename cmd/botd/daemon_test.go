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
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// TestMain lets the test binary double as botd: with BOTD_TEST_DAEMON set
// it runs the daemon with the given arguments, so tests can kill a real
// daemon process.
func TestMain(m *testing.M) {
	if args := os.Getenv("BOTD_TEST_DAEMON"); args != "" {
		var a []string
		json.Unmarshal([]byte(args), &a)
		ctx, stop := signalContext()
		code := run(ctx, a, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// daemonProc is botd running as a child process.
type daemonProc struct {
	cmd *exec.Cmd
	out *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// startDaemonProc runs botd as a child process with args. Each such daemon
// has its own port, state directory and process, so the tests that spend
// most of their time waiting on one in real time (flights, patrols, many
// starts) call t.Parallel and overlap, go test's -parallel at a time (the
// number of cores by default): the package's run takes minutes less. A
// test that needs a quiet machine (timing, a cluster of brokers) stays
// sequential.
func startDaemonProc(t *testing.T, args ...string) *daemonProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(args)
	cmd := selfCommand(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "BOTD_TEST_DAEMON="+string(js))
	p := &daemonProc{cmd: cmd, out: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("daemon output:\n%s", p.out.String())
		}
	})
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *daemonProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("daemon exit: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("daemon did not stop after SIGTERM")
	}
}

// ground connects a ground station and records one robot's messages.
type groundRec struct {
	g  *ground.Client
	mu sync.Mutex

	conn   []string
	states []protocol.StateMsg
	events []protocol.EventMsg
	status []protocol.StatusMsg
	trees  []protocol.TreeMsg
}

func newGround(t *testing.T, url, robot string) *groundRec {
	t.Helper()
	g, err := ground.New(ground.Config{GCS: "test-" + uuid.NewString()[:8], Conn: transport.Options{Brokers: []string{url}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	r := &groundRec{g: g}
	_, err = g.Watch(robot, ground.RobotHandlers{
		Connection: func(m protocol.ConnectionMsg) { r.mu.Lock(); r.conn = append(r.conn, m.State); r.mu.Unlock() },
		State:      func(m protocol.StateMsg) { r.mu.Lock(); r.states = append(r.states, m); r.mu.Unlock() },
		Event:      func(m protocol.EventMsg) { r.mu.Lock(); r.events = append(r.events, m); r.mu.Unlock() },
		Status:     func(m protocol.StatusMsg) { r.mu.Lock(); r.status = append(r.status, m); r.mu.Unlock() },
		Tree:       func(m protocol.TreeMsg) { r.mu.Lock(); r.trees = append(r.trees, m); r.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *groundRec) waitFor(t *testing.T, what string, cond func(r *groundRec) bool) {
	t.Helper()
	r.within(t, mqtttest.WaitLong, what, cond)
}

func (r *groundRec) lastState() protocol.StateMsg {
	if len(r.states) == 0 {
		return protocol.StateMsg{}
	}
	return r.states[len(r.states)-1]
}

func (r *groundRec) hasEvent(kind string) bool {
	for _, e := range r.events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

func (r *groundRec) send(t *testing.T, robot string, c protocol.Command) protocol.Reply {
	t.Helper()
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	rep, err := r.g.Send(ctx, robot, c)
	if err != nil {
		t.Fatalf("%s: %v", c.Op, err)
	}
	return rep
}

func readMission(t *testing.T, name string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "configs", "missions", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := missions.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID == "" {
		d.ID = uuid.NewString()
	}
	js, _ := d.JSON()
	return js
}

// The embedded default with its own broker: the demo mission runs and a
// mission sent as a client would send it goes through load, start,
// telemetry and finish; a clean stop leaves OFFLINE.
func TestDaemonEmbeddedBrokerEndToEnd(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	addr := freeAddr(t)
	p := startDaemonProc(t, "-listen", addr, "-state-dir", t.TempDir())
	url := "tcp://" + addr
	waitBroker(t, addr)
	r := newGround(t, url, "rover-1")
	r.waitFor(t, "the demo mission running", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeRunning && s.Mission != nil && s.Mission.Name == "patrol"
	})
	r.waitFor(t, "status deltas of the demo", func(r *groundRec) bool { return len(r.status) > 3 })

	rep := r.send(t, "rover-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: readMission(t, "hello.json"), Start: true, Replace: true})
	if !rep.OK {
		t.Fatalf("load hello: %+v", rep.Error)
	}
	r.waitFor(t, "hello to finish", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mission != nil && s.Mission.Name == "hello" && s.Mission.Status == protocol.RunSucceeded && s.Mode == protocol.ModeIdle
	})
	r.waitFor(t, "the events of both missions", func(r *groundRec) bool {
		return r.hasEvent("mission.aborted") && r.hasEvent("mission.finished") && r.hasEvent("log")
	})
	r.mu.Lock()
	tree := r.trees[len(r.trees)-1]
	var sawKeyframe bool
	for _, s := range r.status {
		sawKeyframe = sawKeyframe || (s.IsKeyframe() && len(s.Keyframe) == len(tree.Nodes))
	}
	r.mu.Unlock()
	if !sawKeyframe {
		t.Error("no status keyframe matching the tree")
	}

	// A duplicate command id does nothing twice.
	c := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: readMission(t, "timers.yaml"), Start: true}
	first, second := r.send(t, "rover-1", c), r.send(t, "rover-1", c)
	if !first.OK || fmt.Sprint(first) != fmt.Sprint(second) {
		t.Fatalf("duplicate id: %+v / %+v", first, second)
	}
	// A bad command changes nothing.
	bad := r.send(t, "rover-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(`{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Drive","params":{"linear":9}}}}`), Start: true, Replace: true})
	if bad.OK || bad.Error.Code != protocol.ErrLimitExceeded || bad.Error.Path != "/trees/m/params/linear" {
		t.Fatalf("over-limit drive: %+v", bad.Error)
	}
	startedTimers := func(r *groundRec) int {
		n := 0
		for _, e := range r.events {
			if e.Kind == "mission.started" && strings.Contains(e.Message, `"timers"`) {
				n++
			}
		}
		return n
	}
	r.waitFor(t, "timers started", func(r *groundRec) bool { return startedTimers(r) > 0 })
	// Commands are applied in order and events arrive in order: once the
	// pause sent after the duplicate is seen, a second start would have
	// been seen before it.
	if rep := r.send(t, "rover-1", protocol.Command{Op: protocol.OpMissionPause}); !rep.OK {
		t.Fatalf("pause: %+v", rep.Error)
	}
	r.waitFor(t, "the pause after the duplicate", func(r *groundRec) bool { return r.hasEvent("mission.paused") })
	r.mu.Lock()
	n := startedTimers(r)
	r.mu.Unlock()
	if n != 1 {
		t.Fatalf("timers started %d times", n)
	}
	p.stop(t)
	if !strings.Contains(p.out.String(), "botd stopped; actuators safe") {
		t.Errorf("no clean shutdown in the log")
	}
}

// waitJournal waits until the daemon's journal in stateDir holds what.
func waitJournal(t *testing.T, stateDir, what string) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("the journal in %s to record %s", stateDir, what), func() bool {
		b, err := os.ReadFile(filepath.Join(stateDir, "missions", "journal.jsonl"))
		return err == nil && strings.Contains(string(b), what)
	})
}

// waitBroker waits until something listens on addr.
func waitBroker(t *testing.T, addr string) {
	t.Helper()
	waitUntil(t, "a listener on "+addr, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// An external broker (the embedded one, in the test process): the last
// will fires when the daemon is killed, and a clean stop says OFFLINE.
func TestDaemonLastWillOnKill(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	p := startDaemonProc(t, "-broker", b.URL(), "-state-dir", dir, "-robot", "rover-kill")
	r := newGround(t, b.URL(), "rover-kill")
	r.waitFor(t, "ONLINE", func(r *groundRec) bool { return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOnline })
	r.waitFor(t, "the patrol running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })
	waitJournal(t, dir, `"event":"started"`)
	p.cmd.Process.Kill()
	p.cmd.Wait()
	r.waitFor(t, "the last will", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnBroken })

	// Restarted, it reports the interrupted mission and comes back ONLINE;
	// the configured mission (the demo patrol) does not drive off in its
	// place: the robot stays idle, and an event says why and what to send.
	r.mu.Lock()
	before := len(r.events)
	r.mu.Unlock()
	p2 := startDaemonProc(t, "-broker", b.URL(), "-state-dir", dir, "-robot", "rover-kill")
	r.waitFor(t, "ONLINE again", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnOnline })
	r.waitFor(t, "the interrupted patrol", func(r *groundRec) bool { return r.hasEvent("mission.interrupted") })
	r.waitFor(t, "the configured mission held back", func(r *groundRec) bool { return r.hasEvent("mission.not_started") })
	r.mu.Lock()
	var boot uint64 // the restarted daemon's (events of the first may come again)
	for _, e := range r.events[before:] {
		if e.Kind == "mission.not_started" {
			boot = e.Boot
		}
	}
	for _, e := range r.events[before:] {
		if e.Kind == "mission.started" && e.Boot == boot {
			t.Errorf("after the restart a mission started by itself: %s", e.Message)
		}
		if e.Kind == "mission.not_started" && !strings.Contains(e.Message, "mission.resume") {
			t.Errorf("mission.not_started does not say what to send: %s", e.Message)
		}
	}
	r.mu.Unlock()
	r.waitFor(t, "the state naming the interrupted mission", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeIdle && s.Mission != nil && s.Mission.Status == protocol.RunInterrupted
	})
	p2.stop(t)
	r.waitFor(t, "OFFLINE", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnOffline })
}

// Debian's mosquitto: a broker restart in the middle of a mission loses no
// event, and telemetry resumes with a keyframe.
func TestDaemonMosquittoBrokerRestart(t *testing.T) {
	mosq, err := exec.LookPath("mosquitto")
	if err != nil {
		t.Skip("mosquitto is not installed (CI installs it: apt-get install mosquitto)")
	}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	conf := filepath.Join(t.TempDir(), "mosquitto.conf")
	os.WriteFile(conf, []byte("listener "+port+" 127.0.0.1\nallow_anonymous true\npersistence false\n"), 0o644)
	startMosq := func() *exec.Cmd {
		cmd := exec.Command(mosq, "-c", conf)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitBroker(t, addr)
		return cmd
	}
	m := startMosq()
	defer func() { m.Process.Kill(); m.Wait() }()
	url := "tcp://" + addr
	p := startDaemonProc(t, "-broker", url, "-state-dir", t.TempDir(), "-robot", "rover-m")
	r := newGround(t, url, "rover-m")
	r.waitFor(t, "the patrol running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })
	pause := r.send(t, "rover-m", protocol.Command{Op: protocol.OpMissionPause})
	if !pause.OK {
		t.Fatalf("pause: %+v", pause.Error)
	}
	r.waitFor(t, "paused", func(r *groundRec) bool { return r.hasEvent("mission.paused") })

	// Restart mosquitto; while it is down, the daemon makes events.
	m.Process.Kill()
	m.Wait()
	r.waitFor(t, "the ground to see the broker gone", func(r *groundRec) bool { return !r.g.Conn().IsUp() })
	m = startMosq()
	r.mu.Lock()
	nStatus := len(r.status)
	r.mu.Unlock()
	r.waitFor(t, "the ground back", func(r *groundRec) bool { return r.g.Conn().IsUp() })
	resume := r.send(t, "rover-m", protocol.Command{Op: protocol.OpMissionResume})
	if !resume.OK {
		t.Fatalf("resume after the restart: %+v", resume.Error)
	}
	r.waitFor(t, "a keyframe after the restart", func(r *groundRec) bool {
		for _, s := range r.status[nStatus:] {
			if s.IsKeyframe() {
				return true
			}
		}
		return false
	})
	r.waitFor(t, "the resume event", func(r *groundRec) bool { return r.hasEvent("mission.resumed") })
	// Events arrive in order with no gap in seq (duplicates allowed).
	r.mu.Lock()
	var last uint64
	for _, e := range r.events {
		if e.Seq > last+1 && last != 0 {
			t.Errorf("event seq jumps from %d to %d", last, e.Seq)
		}
		if e.Seq > last {
			last = e.Seq
		}
	}
	r.mu.Unlock()
	p.stop(t)
}

// metrics.listen serves Prometheus metrics.
func TestDaemonMetricsEndpoint(t *testing.T) {
	dir := t.TempDir()
	metricsAddr := freeAddr(t)
	conf := filepath.Join(dir, "botd.yaml")
	os.WriteFile(conf, []byte(fmt.Sprintf("robot: rover-m\nhardware: %s\nmission: %s\nstate_dir: %s\nmetrics: {listen: %q}\nbroker: {embedded: {listen: %q}}\n",
		mustAbs(t, "../../configs/sim.yaml"), mustAbs(t, "../../configs/missions/patrol.json"), dir, metricsAddr, freeAddr(t))), 0o644)
	p := startDaemonProc(t, "-config", conf)
	deadline := time.Now().Add(20 * time.Second)
	var body string
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + metricsAddr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if strings.Contains(body, `botd_mode{mode="RUNNING",robot="rover-m"} 1`) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := parseExposition(t, body)
	// the daemon set the collector from the config's default (memory.gc_percent)
	if os.Getenv("GOGC") == "" && got["go_gc_gogc_percent"] != defaultGCPercent {
		t.Errorf("go_gc_gogc_percent = %v, want the default %d", got["go_gc_gogc_percent"], defaultGCPercent)
	}
	if got["botd_ticks_total|robot=rover-m"] < 1 || got["process_resident_memory_bytes"] <= 0 {
		t.Errorf("ticks %v, resident memory %v", got["botd_ticks_total|robot=rover-m"], got["process_resident_memory_bytes"])
	}
	for _, want := range []string{`botd_mode{mode="RUNNING",robot="rover-m"} 1`, "botd_ticks_total", "botd_tick_jitter_seconds", "botd_battery_percent", "go_goroutines"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	p.stop(t)
}

// A client that knows nothing but PROTOCOL.md — mosquitto_pub and
// mosquitto_sub — loads, starts, watches, pauses, resumes, aborts and
// e-stops a mission.
func TestDaemonWithMosquittoClients(t *testing.T) {
	pub, err1 := exec.LookPath("mosquitto_pub")
	sub, err2 := exec.LookPath("mosquitto_sub")
	if err1 != nil || err2 != nil {
		t.Skip("mosquitto-clients is not installed (apt-get install mosquitto-clients)")
	}
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	p := startDaemonProc(t, "-listen", addr, "-state-dir", t.TempDir(), "-robot", "rover-q")
	waitBroker(t, addr)

	// Everything the robot says, as text lines "topic payload".
	watch := exec.Command(sub, "-h", host, "-p", port, "-t", "botd/v1/rover-q/#", "-v")
	out := &syncBuffer{}
	watch.Stdout = out
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { watch.Process.Kill(); watch.Wait() }()
	waitText := func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(out.String(), what) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		o := out.String()
		t.Fatalf("never saw %q; mosquitto_sub printed (last 3000 bytes):\n%s", what, o[max(0, len(o)-3000):])
	}
	send := func(cmd string) {
		t.Helper()
		if b, err := exec.Command(pub, "-h", host, "-p", port, "-q", "1", "-t", "botd/v1/rover-q/cmd", "-m", cmd).CombinedOutput(); err != nil {
			t.Fatalf("mosquitto_pub: %v %s", err, b)
		}
	}
	waitText(`"state":"ONLINE"`)
	mission := `{"format":"botd/mission@1","id":"6d0c2b4e-61f8-4b8e-9b52-3b8f2f0a7d11","name":"quiet","main":"m","trees":{"m":{"type":"MemSequence","children":[{"type":"Log","params":{"message":"hello from mosquitto"}},{"type":"Wait","params":{"ms":60000}}]}}}`
	send(`{"id":"c1","op":"mission.load","start":true,"replace":true,"mission":` + mission + `}`)
	waitText(`"id":"c1","ok":true`)
	waitText(`hello from mosquitto`)
	waitText(`"keyframe":"`)
	for i, step := range []struct{ op, mode string }{
		{"mission.pause", `"mode":"PAUSED"`},
		{"mission.resume", `"mode":"RUNNING"`},
		{"estop", `"mode":"ESTOP"`},
		{"estop.reset", `"mode":"PAUSED"`},
		{"mission.abort", `"status":"ABORTED"`},
	} {
		id := fmt.Sprintf("s%d", i)
		send(fmt.Sprintf(`{"id":%q,"op":%q}`, id, step.op))
		waitText(`"id":"` + id + `","ok":true`)
		waitText(step.mode)
	}
	send(`{"id":"bad","op":"mission.load","mission":{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Nope"}}}}`)
	waitText(`"id":"bad","ok":false,"error":{"code":"UNKNOWN_NODE_TYPE"`)
	p.stop(t)
	waitText(`"state":"OFFLINE"`)
}

// A clean stop (SIGINT) of botd with its embedded broker: OFFLINE is the
// last word on the connection topic, never followed by a stale
// CONNECTION_BROKEN, and the log says so. Twenty times in a row.
func TestDaemonCleanStopOfflineLast(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	if testing.Short() {
		t.Skip("starts botd twenty times")
	}
	for i := range 20 {
		addr := freeAddr(t)
		p := startDaemonProc(t, "-listen", addr, "-state-dir", t.TempDir(), "-robot", "rover-stop")
		waitBroker(t, addr)
		rec := mqtttest.NewRecorder(t, "tcp://"+addr, "botd/v1/rover-stop/connection")
		mqtttest.Eventually(t, "ONLINE", func() bool {
			for _, m := range rec.On("botd/v1/rover-stop/connection") {
				if c, err := protocol.DecodeConnection(m.Payload); err == nil && c.State == protocol.ConnOnline {
					return true
				}
			}
			return false
		})
		p.cmd.Process.Signal(os.Interrupt)
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("run %d: botd exit: %v\n%s", i, err, p.out.String())
		}
		var states []string
		mqtttest.Eventually(t, "OFFLINE", func() bool {
			states = states[:0]
			for _, m := range rec.On("botd/v1/rover-stop/connection") {
				if c, err := protocol.DecodeConnection(m.Payload); err == nil {
					states = append(states, c.State)
				}
			}
			return slices.Contains(states, protocol.ConnOffline)
		})
		first := slices.Index(states, protocol.ConnOffline)
		if slices.Contains(states[first:], protocol.ConnBroken) || states[len(states)-1] != protocol.ConnOffline {
			t.Fatalf("run %d: connection states %v: a stale last will after OFFLINE", i, states)
		}
		if !strings.Contains(p.out.String(), "final state and OFFLINE published; disconnected") {
			t.Fatalf("run %d: the log does not say OFFLINE was published:\n%s", i, p.out.String())
		}
	}
}
