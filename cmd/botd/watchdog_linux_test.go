package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
)

// supervisor runs a service the way systemd runs deploy/botd.service
// (Type=notify, NotifyAccess=main, WatchdogSec, Restart=on-failure), after
// the contract of systemd.service(5), sd_notify(3) and
// sd_watchdog_enabled(3): the service gets NOTIFY_SOCKET and WATCHDOG_USEC;
// only datagrams whose sender (SCM_CREDENTIALS) is the main process count;
// READY=1 ends the start-up and arms the watchdog; every WATCHDOG=1 resets
// it; when WatchdogSec passes without one, the service gets the watchdog
// signal (SIGABRT) and, TimeoutAbortSec later, SIGKILL; a service that
// failed (a watchdog timeout, a signal, a non-zero exit) is started again
// after RestartSec. It stands in for systemd where there is none to run
// the unit under (a container, a CI job); it is not a replacement.
type supervisor struct {
	t            *testing.T
	args         []string // the daemon's arguments
	watchdog     time.Duration
	abortAfter   time.Duration
	restartDelay time.Duration
	maxStarts    int

	sock *net.UnixConn
	path string
	out  *syncBuffer

	mu       sync.Mutex
	events   []supEvent
	main     int // pid of the main process, 0 between runs
	lastPing time.Time
	ready    bool
	stopping bool
	changed  chan struct{}
	done     chan struct{}
}

type supEvent struct {
	kind string // start, ready, watchdog, timeout, exit
	pid  int
	info string
}

func (e supEvent) String() string { return fmt.Sprintf("%s(%d%s)", e.kind, e.pid, e.info) }

// unitValue returns a [Service] setting of deploy/botd.service.
func unitValue(t *testing.T, unit, key string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(unit))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && k == key {
			return v
		}
	}
	t.Fatalf("deploy/botd.service has no %s", key)
	return ""
}

func newSupervisor(t *testing.T, args ...string) *supervisor {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "botd.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for key, want := range map[string]string{"Type": "notify", "NotifyAccess": "main", "Restart": "on-failure"} {
		if got := unitValue(t, unit, key); got != want {
			t.Fatalf("deploy/botd.service: %s=%s, this test follows %s=%s", key, got, key, want)
		}
	}
	parse := func(key string) time.Duration {
		v := unitValue(t, unit, key)
		if _, err := strconv.Atoi(v); err == nil {
			v += "s"
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("deploy/botd.service: %s=%s: %v", key, v, err)
		}
		return d
	}
	s := &supervisor{t: t, args: args,
		watchdog:     parse("WatchdogSec"),
		restartDelay: parse("RestartSec"),
		// systemd waits TimeoutAbortSec (the unit's TimeoutStopSec) for
		// the watchdog signal to end the service; a stopped process cannot
		// act on it, so the test waits less.
		abortAfter: 2 * time.Second,
		maxStarts:  3,
		out:        &syncBuffer{},
		changed:    make(chan struct{}),
		done:       make(chan struct{}),
	}
	s.path = filepath.Join(t.TempDir(), "notify")
	s.sock, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: s.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := s.sock.SyscallConn()
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1) }); err != nil || serr != nil {
		t.Fatalf("SO_PASSCRED: %v %v", err, serr)
	}
	go s.listen()
	go s.run()
	t.Cleanup(func() {
		s.stop()
		_ = s.sock.Close()
		if t.Failed() {
			t.Logf("supervisor: %v\ndaemon output:\n%s", s.history(), s.out.String())
		}
	})
	return s
}

func (s *supervisor) record(kind string, pid int, info string) {
	s.mu.Lock()
	s.events = append(s.events, supEvent{kind, pid, info})
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *supervisor) history() []supEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]supEvent(nil), s.events...)
}

// waitFor waits until cond holds on the events.
func (s *supervisor) waitFor(what string, timeout time.Duration, cond func([]supEvent) bool) []supEvent {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		ev, ch := append([]supEvent(nil), s.events...), s.changed
		s.mu.Unlock()
		if cond(ev) {
			return ev
		}
		select {
		case <-ch:
		case <-deadline:
			s.t.Fatalf("timed out waiting for %s: %v", what, ev)
		}
	}
}

// listen reads notifications; those not from the main process are
// ignored (NotifyAccess=main).
func (s *supervisor) listen() {
	buf := make([]byte, 4096)
	oob := make([]byte, syscall.CmsgSpace(syscall.SizeofUcred))
	for {
		n, oobn, _, _, err := s.sock.ReadMsgUnix(buf, oob)
		if err != nil {
			return
		}
		pid := 0
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if c, err := syscall.ParseUnixCredentials(&m); err == nil {
					pid = int(c.Pid)
				}
			}
		}
		s.mu.Lock()
		main := s.main
		s.mu.Unlock()
		if pid == 0 || pid != main {
			s.record("ignored", pid, " "+strings.ReplaceAll(string(buf[:n]), "\n", " "))
			continue
		}
		for _, line := range strings.Split(string(buf[:n]), "\n") {
			switch line {
			case "READY=1":
				s.mu.Lock()
				s.ready, s.lastPing = true, time.Now()
				s.mu.Unlock()
				s.record("ready", pid, "")
			case "WATCHDOG=1":
				s.mu.Lock()
				s.lastPing = time.Now()
				s.mu.Unlock()
				s.record("watchdog", pid, "")
			}
		}
	}
}

// run starts the service, watches it, and starts it again after a
// failure, until stop or maxStarts.
func (s *supervisor) run() {
	defer close(s.done)
	exe, err := os.Executable()
	if err != nil {
		s.t.Error(err)
		return
	}
	js, _ := json.Marshal(s.args)
	for starts := 0; starts < s.maxStarts; starts++ {
		cmd := selfCommand(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "BOTD_TEST_DAEMON="+string(js),
			"NOTIFY_SOCKET="+s.path, fmt.Sprintf("WATCHDOG_USEC=%d", s.watchdog.Microseconds()))
		cmd.Stdout, cmd.Stderr = s.out, s.out
		if err := cmd.Start(); err != nil {
			s.t.Error(err)
			return
		}
		s.mu.Lock()
		s.main, s.ready = cmd.Process.Pid, false
		s.mu.Unlock()
		s.record("start", cmd.Process.Pid, "")
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		failed := s.watch(cmd, exited)
		s.mu.Lock()
		s.main = 0
		stopping := s.stopping
		s.mu.Unlock()
		if stopping || !failed {
			return
		}
		time.Sleep(s.restartDelay)
	}
}

// watch waits for the main process to end, enforcing the watchdog; it
// reports whether the service failed.
func (s *supervisor) watch(cmd *exec.Cmd, exited <-chan error) bool {
	pid := cmd.Process.Pid
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var abortAt time.Time
	timedOut := false
	for {
		select {
		case err := <-exited:
			info := " ok"
			if err != nil {
				info = " " + err.Error()
			}
			s.record("exit", pid, info)
			return timedOut || err != nil
		case now := <-tick.C:
			s.mu.Lock()
			late := s.ready && !timedOut && now.Sub(s.lastPing) > s.watchdog
			s.mu.Unlock()
			if late {
				timedOut, abortAt = true, now.Add(s.abortAfter)
				s.record("timeout", pid, "")
				_ = cmd.Process.Signal(syscall.SIGABRT)
			}
			if timedOut && now.After(abortAt) {
				_ = cmd.Process.Kill()
			}
		}
	}
}

// stop ends the service as systemctl stop does (SIGTERM, then SIGKILL).
func (s *supervisor) stop() {
	s.mu.Lock()
	s.stopping = true
	pid := s.main
	s.mu.Unlock()
	if pid != 0 {
		_ = syscall.Kill(pid, syscall.SIGCONT)
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-s.done
	}
}

// A hung botd is restarted by the watchdog. botd runs under the
// supervisor with the unit's WatchdogSec and RestartSec, a mission
// running; it says READY and feeds the watchdog. Frozen (SIGSTOP: neither
// the tick loop nor anything else runs), it stops the pings; the
// watchdog fires, the supervisor kills it and starts it again; the new
// process says READY again, and the robot comes back in its safe state:
// the interrupted mission reported, not running on its own.
func TestWatchdogRestartsAHungDaemon(t *testing.T) {
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := t.TempDir()
	const robot = "rover-wd"
	s := newSupervisor(t, "-broker", b.URL(), "-state-dir", dir, "-robot", robot)
	r := newGround(t, b.URL(), robot)
	r.waitFor(t, "the patrol running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })
	waitJournal(t, dir, `"event":"started"`)
	long := s.watchdog*3 + 30*time.Second
	ev := s.waitFor("READY and two watchdog pings", long, func(ev []supEvent) bool {
		return count(ev, "ready") == 1 && count(ev, "watchdog") >= 2
	})
	first := ev[0].pid
	if count(ev, "timeout") != 0 || count(ev, "start") != 1 {
		t.Fatalf("the watchdog fired on a healthy daemon: %v", ev)
	}

	r.mu.Lock()
	firstBoot := r.lastState().Boot
	r.mu.Unlock()
	if err := syscall.Kill(first, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	ev = s.waitFor("a second READY", long, func(ev []supEvent) bool { return count(ev, "ready") == 2 })
	if d := time.Since(stopped); d < s.watchdog {
		t.Errorf("restarted %v after the hang, before WatchdogSec %v", d, s.watchdog)
	}
	var kinds []string
	var second int
	for _, e := range ev {
		if e.kind == "watchdog" || e.kind == "ignored" {
			continue
		}
		kinds = append(kinds, e.kind)
		if e.kind == "start" && e.pid != first {
			second = e.pid
		}
	}
	if got := strings.Join(kinds, " "); got != "start ready timeout exit start ready" {
		t.Fatalf("events %q (%v), want the hung process timed out, killed, and a new one ready", got, ev)
	}
	if second == 0 || second == first {
		t.Fatalf("no new process: %v", ev)
	}
	for _, e := range ev {
		if e.kind == "exit" && !strings.Contains(e.info, "killed") {
			t.Errorf("the hung process ended with %q, want killed", e.info)
		}
	}

	// The new process: ONLINE again, the interrupted mission reported,
	// nothing running on its own; and it feeds the watchdog.
	r.waitFor(t, "ONLINE again", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnOnline && len(r.conn) >= 2 })
	r.waitFor(t, "the interrupted patrol", func(r *groundRec) bool { return r.hasEvent("mission.interrupted") })
	// The new process's own state (its boot), not the last one the frozen
	// process left retained: a slow start publishes it later.
	r.waitFor(t, "a state from the new process", func(r *groundRec) bool { return r.lastState().Boot != firstBoot })
	r.mu.Lock()
	st := r.lastState()
	r.mu.Unlock()
	if st.Mode == protocol.ModeRunning {
		t.Fatalf("the robot runs again on its own after the restart: %+v", st.State)
	}
	s.waitFor("the new process feeding the watchdog", long, func(ev []supEvent) bool {
		n := 0
		for _, e := range ev {
			if e.kind == "watchdog" && e.pid == second {
				n++
			}
		}
		return n >= 1
	})
	if c := count(s.history(), "ignored"); c != 0 {
		t.Errorf("%d notifications from other processes than the main one", c)
	}
	s.stop()
	if ev := s.history(); ev[len(ev)-1].kind != "exit" || !strings.HasSuffix(ev[len(ev)-1].info, " ok") {
		t.Errorf("a stop did not end cleanly: %v", ev[len(ev)-1])
	}
}

func count(ev []supEvent, kind string) int {
	n := 0
	for _, e := range ev {
		if e.kind == kind {
			n++
		}
	}
	return n
}
