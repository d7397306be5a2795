package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// A broker list botd would never connect with is refused at start, not
// taken for one strange URL (`-broker "tcp://A,tcp://B"` used to start,
// say "botd running" and never connect).
func TestBrokerFlagRefused(t *testing.T) {
	for flag, want := range map[string]string{
		",":                             "no broker URL",
		"tcp://127.0.0.1:1,ftp://x:21":  `unknown scheme "ftp"`,
		"tcp://127.0.0.1:1,127.0.0.1:2": "needs a scheme",
	} {
		code, _, errOut := runCmd(t, "-broker", flag, "-state-dir", t.TempDir())
		if code == 0 || !strings.Contains(errOut, "-broker") || !strings.Contains(errOut, want) {
			t.Errorf("-broker %q: exit %d, %q; want a refusal with %q", flag, code, errOut, want)
		}
	}
}

// newGroundOn is newGround on several brokers, tried in the given order.
func newGroundOn(t *testing.T, urls []string, robot string) *groundRec {
	t.Helper()
	g, err := ground.New(ground.Config{GCS: "test-" + uuid.NewString()[:8],
		Conn: transport.Options{Brokers: urls, MaxReconnectInterval: defaultReconnectMax}, ResendEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	r := &groundRec{g: g}
	if _, err := g.Watch(robot, ground.RobotHandlers{
		Connection: func(m protocol.ConnectionMsg) { r.mu.Lock(); r.conn = append(r.conn, m.State); r.mu.Unlock() },
		State:      func(m protocol.StateMsg) { r.mu.Lock(); r.states = append(r.states, m); r.mu.Unlock() },
		Event:      func(m protocol.EventMsg) { r.mu.Lock(); r.events = append(r.events, m); r.mu.Unlock() },
		Tree:       func(m protocol.TreeMsg) { r.mu.Lock(); r.trees = append(r.trees, m); r.mu.Unlock() },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return r
}

// within waits for cond as long as bound.
func (r *groundRec) within(t *testing.T, bound time.Duration, what string, cond func(r *groundRec) bool) {
	t.Helper()
	testutil.Eventually(t, bound, what, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return cond(r)
	}, func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		return fmt.Sprintf("connection %v, %d states, %d events", r.conn, len(r.states), len(r.events))
	})
}

// countEvents counts the events of kind, each seq once (the outbox may
// send one twice).
func (r *groundRec) countEvents(kind string) int {
	seen := map[uint64]bool{}
	for _, e := range r.events {
		if e.Kind == kind {
			seen[e.Seq] = true
		}
	}
	return len(seen)
}

// The first "done when": a robot given two brokers (two
// independent mosquittos: nothing is shared between them, the hardest
// case for retained messages) survives the loss of the one it is on. It
// is back online with its state on the other (its retained connection,
// factsheet, state and tree republished there), says so with an event,
// obeys an e-stop sent there; no event is lost (the outbox keeps them
// for events.request) and no command runs twice.
func TestFailoverToTheOtherBroker(t *testing.T) {
	if _, err := exec.LookPath("mosquitto"); err != nil && os.Getenv("CI") != "" {
		t.Fatal("CI must run the failover test: install mosquitto (apt-get install mosquitto)")
	}
	addrs := []string{freeAddr(t), freeAddr(t)}
	procs := map[string]*exec.Cmd{}
	var urls []string
	for i, a := range addrs {
		_, port, _ := net.SplitHostPort(a)
		u := "tcp://" + a
		procs[u] = startMosquitto(t, fmt.Sprintf("broker-%d", i), fmt.Sprintf("listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n", port), a)
		urls = append(urls, u)
	}
	const robot = "rover-failover"
	order := transport.Order(urls, robot) // the robot's own order of the list
	first, other := order[0], order[1]

	p := startDaemonProc(t, "-broker", strings.Join(urls, ","), "-state-dir", t.TempDir(), "-robot", robot)
	r := newGroundOn(t, order, robot)
	r.waitFor(t, "the patrol running on the first broker of its order", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeRunning && s.Link.Broker && s.Link.URL == first
	})
	for _, op := range []string{protocol.OpMissionPause, protocol.OpMissionResume} {
		if rep := r.send(t, robot, protocol.Command{Op: op}); !rep.OK {
			t.Fatalf("%s: %+v", op, rep.Error)
		}
	}
	r.waitFor(t, "the events before the loss", func(r *groundRec) bool { return r.hasEvent("mission.paused") && r.hasEvent("mission.resumed") })

	// A connection that ends within the link grace of its start counts as
	// a takeover's (link.go), and the next one is believed only after the
	// grace: the robot's must have lasted longer to measure a failover.
	time.Sleep(telemetry.DefaultLinkGrace)

	// Kill the broker the robot is on (SIGKILL: no will reaches anyone),
	// and send a command at once: it goes out when the ground station is
	// on the other broker, resent until answered.
	killed := time.Now()
	procs[first].Process.Kill()
	pause := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionPause}
	paused := make(chan protocol.Reply, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*defaultReconnectMax)
		defer cancel()
		rep, err := r.g.Send(ctx, robot, pause)
		if err != nil {
			rep = protocol.Reply{Error: &protocol.ReplyError{Message: err.Error()}}
		}
		paused <- rep
	}()

	// Bounds from the config, generous: a reconnect round may wait
	// reconnect_max; nothing here asserts a time.
	bound := 3 * defaultReconnectMax
	r.within(t, bound, "state on the other broker", func(r *groundRec) bool {
		s := r.lastState()
		return s.Link.Broker && s.Link.URL == other
	})
	t.Logf("broker killed: the ground station had the robot's state from the other broker %v later", time.Since(killed))
	first1 := <-paused
	if !first1.OK {
		t.Fatalf("mission.pause sent during the failover: %+v", first1.Error)
	}
	// The same command again, as a broker redelivering it would: the same
	// reply, nothing done twice.
	if rep := r.send(t, robot, pause); !reflect.DeepEqual(rep, first1) {
		t.Fatalf("the repeated mission.pause: %+v, the first time %+v", rep, first1)
	}

	// Rebirth: the other broker now holds the robot's retained topics,
	// though it never had them before (no ground station asked for them:
	// a plain subscriber sees what the broker kept).
	rec := mqtttest.NewRecorder(t, other, "botd/v1/"+robot+"/#")
	mqtttest.Eventually(t, "retained connection, factsheet, state and tree on the other broker", func() bool {
		got := map[string]bool{}
		for _, m := range rec.All() {
			if m.Retained {
				got[m.Topic[strings.LastIndex(m.Topic, "/")+1:]] = true
			}
		}
		return got[protocol.LeafConnection] && got[protocol.LeafFactsheet] && got[protocol.LeafState] && got[protocol.LeafTree]
	})

	// An e-stop sent there is obeyed.
	estopAt := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	rep, err := r.g.SendEStop(ctx, robot, protocol.Command{Op: protocol.OpEStop})
	if err != nil || !rep.OK {
		t.Fatalf("e-stop on the other broker: %+v, %v", rep, err)
	}
	r.within(t, bound, "ESTOP in the state from the other broker", func(r *groundRec) bool {
		s := r.lastState()
		return s.EStop && s.Mode == protocol.ModeEStop && s.Link.URL == other
	})
	t.Logf("e-stop on the other broker: reply after %v", time.Since(estopAt))

	// No event lost: what the dead broker took and never delivered comes
	// again on request (the outbox keeps it); seq runs 1.. without a gap.
	hist := r.send(t, robot, protocol.Command{Op: protocol.OpEventsRequest})
	if !hist.OK {
		t.Fatalf("events.request: %+v", hist.Error)
	}
	last, _ := hist.Result["last_seq"].(float64)
	r.within(t, bound, fmt.Sprintf("every event up to seq %v", last), func(r *groundRec) bool {
		seqs, _ := r.eventSeqs()
		return len(seqs) > 0 && seqs[len(seqs)-1] >= uint64(last) && firstGap(seqs) == 0
	})
	// The robot said it moved: link.broker, from the first broker to the
	// other. Live when the ground station was on the other broker before
	// the robot published it, else through events.request above (which
	// of the two reconnects first is a race, and a loaded machine loses it
	// either way).
	var movedAt time.Time // by the robot's clock (the same machine's)
	r.mu.Lock()
	for _, e := range r.events {
		if e.Kind == telemetry.EventBrokerChanged && e.Data["from"] == first && e.Data["to"] == other {
			movedAt, _ = e.Header.Time()
		}
	}
	r.mu.Unlock()
	if movedAt.IsZero() {
		t.Fatalf("no link.broker event from %s to %s", first, other)
	}
	t.Logf("the robot on the other broker %v after the kill (its link.broker event's time)", movedAt.Sub(killed.Truncate(time.Millisecond)))

	// No command applied twice: two pauses sent (one before the loss, one
	// during it and once more with its id), two paused events; one, when
	// a failsafe hold had paused the mission already (a loaded machine
	// can stall the tick into the overrun failsafe), never three.
	r.mu.Lock()
	n := r.countEvents("mission.paused")
	held := r.hasEvent("failsafe.entered")
	moves := r.countEvents(telemetry.EventBrokerChanged)
	seqs, _ := r.eventSeqs()
	r.mu.Unlock()
	if n > 2 || n < 2 && !held {
		t.Errorf("%d mission.paused events, want 2 (one per command)", n)
	}
	if moves != 1 {
		t.Errorf("%d link.broker events, want 1", moves)
	}
	t.Logf("events 1..%d, no gap", slices.Max(seqs))
	p.cmd.Process.Kill()
	p.cmd.Wait()
	if testing.Verbose() {
		t.Logf("daemon:\n%s", p.out.String())
	}
}
