package main

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// The cluster tests (cluster_rabbitmq_test.go, cluster_aedes_test.go) run
// a fleet from `botd fleet` on three nodes of a real clustered broker on
// loopback, kill -9 the node holding the most robots, and check what a
// fleet must survive: every robot back online in the ground station's
// view (the time is logged: FLEET.md's figures), no event lost, no
// command applied twice, an e-stop sent mid-failover obeyed, and the dead
// node's last wills as that broker promises them.

// clusterFleet is how many robots the cluster tests run (the 30;
// CLUSTER_ROBOTS overrides it for a measurement).
func clusterFleet(t *testing.T) int {
	if s := os.Getenv("CLUSTER_ROBOTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 3 || n > 300 {
			t.Fatalf("CLUSTER_ROBOTS=%q: want 3 to 300", s)
		}
		return n
	}
	return 30
}

// brokerCluster is a running cluster: one MQTT URL per node.
type brokerCluster struct {
	kind string
	urls []string
	// kill kills the node serving url at once (SIGKILL: nothing it
	// promised on a clean stop happens).
	kill func(url string)
	// willsOfTheDead says what the broker promises for the last wills of
	// the clients of a node that died: true, that a surviving node
	// publishes them (aedes, after the dead one's heartbeats stop); false,
	// that nobody does (RabbitMQ: the will lives in the dead node's
	// connection process).
	willsOfTheDead bool
	// settle bounds the wait for what the cluster does on its own after a
	// node's death (aedes: the heartbeat timeout).
	settle time.Duration
}

// fleetView is the ground station's view of every robot.
type fleetView struct {
	g  *ground.Client
	mu sync.Mutex
	// per robot
	states  map[string][]timedState
	conns   map[string][]string
	broken  map[string]time.Time // the first CONNECTION_BROKEN
	events  map[string]map[uint64]protocol.EventMsg
	pausedS map[string]map[uint64]bool
}

type timedState struct {
	at time.Time // when the ground station had it
	m  protocol.StateMsg
}

func newFleetView(t *testing.T, c *brokerCluster, urls []string, ids []string) *fleetView {
	t.Helper()
	gcs := "cluster-" + uuid.NewString()[:8]
	g, err := ground.New(ground.Config{GCS: gcs, Conn: transport.Options{Brokers: urls, ClientID: gcs, MaxReconnectInterval: 2 * time.Second,
		SubscribeAtMostOnce: c.kind == "rabbitmq"},
		ResendEvery: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	v := &fleetView{g: g, states: map[string][]timedState{}, conns: map[string][]string{}, broken: map[string]time.Time{},
		events: map[string]map[uint64]protocol.EventMsg{}, pausedS: map[string]map[uint64]bool{}}
	for _, id := range ids {
		v.events[id] = map[uint64]protocol.EventMsg{}
		v.pausedS[id] = map[uint64]bool{}
		if _, err := g.Watch(id, ground.RobotHandlers{
			Connection: func(m protocol.ConnectionMsg) {
				v.mu.Lock()
				v.conns[id] = append(v.conns[id], m.State)
				if _, ok := v.broken[id]; !ok && m.State == protocol.ConnBroken {
					v.broken[id] = time.Now()
				}
				v.mu.Unlock()
			},
			State: func(m protocol.StateMsg) {
				v.mu.Lock()
				v.states[id] = append(v.states[id], timedState{time.Now(), m})
				v.mu.Unlock()
			},
			Event: func(m protocol.EventMsg) {
				v.mu.Lock()
				v.events[id][m.Seq] = m
				if m.Kind == "mission.paused" {
					v.pausedS[id][m.Seq] = true
				}
				v.mu.Unlock()
			},
		}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return v
}

// last is robot id's latest state and when it came (locked by the caller).
func (v *fleetView) last(id string) timedState {
	s := v.states[id]
	if len(s) == 0 {
		return timedState{}
	}
	return s[len(s)-1]
}

// until waits for cond over the whole view, as long as bound.
func (v *fleetView) until(t *testing.T, bound time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	var why string
	testutil.Eventually(t, bound, what, func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		ok, w := cond()
		why = w
		return ok
	}, func() string { return why })
}

// runClusterFailover is the test every cluster gets.
func runClusterFailover(t *testing.T, c *brokerCluster) {
	n := clusterFleet(t)
	prefix := c.kind + "-"
	ids := make([]string, n)
	home := map[string][]string{} // node URL -> robots whose first choice it is
	for i := range ids {
		ids[i] = fmt.Sprintf("%s%02d", prefix, i+1)
		first := transport.Order(c.urls, ids[i])[0]
		home[first] = append(home[first], ids[i])
	}
	// The node with the most robots is the one to kill; the ground
	// station starts on another (it is not what is measured).
	victim := slices.MaxFunc(c.urls, func(a, b string) int { return len(home[a]) - len(home[b]) })
	var groundURLs []string
	for _, u := range c.urls {
		if u != victim {
			groundURLs = append(groundURLs, u)
		}
	}
	groundURLs = append(groundURLs, victim)
	for _, u := range c.urls {
		t.Logf("%s: %d robots", u, len(home[u]))
	}

	cfg := writeClusterConfig(t, c)
	fleet := startDaemonProc(t, "fleet", "-n", strconv.Itoa(n), "-config", cfg, "-robot", prefix+"%02d",
		"-state-dir", t.TempDir(), "-quiet", "-report", "1h", "-log", "warn")
	v := newFleetView(t, c, groundURLs, ids)

	// Every robot online and running its patrol, each on the node its
	// own order puts first.
	bound := 60*time.Second + time.Duration(n)*100*time.Millisecond
	v.until(t, bound, "fleet online on its nodes", func() (bool, string) {
		for _, id := range ids {
			s := v.last(id).m
			if !s.Link.Broker || s.Mode != protocol.ModeRunning || s.Link.URL != transport.Order(c.urls, id)[0] {
				return false, fmt.Sprintf("%s: broker %v mode %q on %q", id, s.Link.Broker, s.Mode, s.Link.URL)
			}
		}
		return true, ""
	})
	// A connection that ends within the link grace of its start counts as
	// a takeover's (link.go): the robots' must have lasted longer.
	time.Sleep(telemetry.DefaultLinkGrace)

	doomed := home[victim]
	estopped := doomed[0]
	others := doomed[1:]
	v.mu.Lock()
	wills := 0
	for _, id := range doomed {
		wills -= countOf(v.conns[id], protocol.ConnBroken)
	}
	v.mu.Unlock()

	// kill -9 the node; at once, an e-stop to one of its robots and a
	// mission.pause to each of the others, sent while they are nowhere
	// (the ground station resends until answered).
	killed := time.Now()
	c.kill(victim)
	failover := 3*defaultReconnectMax + c.settle
	type sent struct {
		id  string
		cmd protocol.Command
		rep protocol.Reply
		err error
	}
	replies := make(chan sent, len(doomed))
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), failover)
		defer cancel()
		rep, err := v.g.SendEStop(ctx, estopped, protocol.Command{ID: uuid.NewString(), Op: protocol.OpEStop})
		replies <- sent{id: estopped, rep: rep, err: err}
	}()
	for _, id := range others {
		go func() {
			cmd := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionPause}
			ctx, cancel := context.WithTimeout(context.Background(), failover)
			defer cancel()
			rep, err := v.g.Send(ctx, id, cmd)
			replies <- sent{id: id, cmd: cmd, rep: rep, err: err}
		}()
	}

	// Every robot back online in the ground station's view: a state
	// received after the kill, with the broker link up on a live node.
	back := map[string]time.Duration{}
	v.until(t, failover, "every robot back online", func() (bool, string) {
		for _, id := range ids {
			if _, ok := back[id]; ok {
				continue
			}
			s := v.last(id)
			if s.at.After(killed) && s.m.Link.Broker && s.m.Link.URL != victim && s.m.Link.URL != "" {
				back[id] = s.at.Sub(killed)
			}
		}
		var missing []string
		for _, id := range ids {
			if _, ok := back[id]; !ok {
				s := v.last(id)
				missing = append(missing, fmt.Sprintf("%s (last state %v after the kill, link %v on %q)", id, s.at.Sub(killed).Round(time.Millisecond), s.m.Link.Broker, s.m.Link.URL))
			}
		}
		return len(missing) == 0, fmt.Sprintf("%d of %d back; not: %s", len(back), len(ids), strings.Join(missing, ", "))
	})
	var slowest time.Duration
	for _, id := range doomed {
		slowest = max(slowest, back[id])
	}
	t.Logf("%s: node %s (%d of %d robots) killed; all %d robots online again in the ground station's view after %v (slowest of the dead node's robots)",
		c.kind, victim, len(doomed), n, n, slowest.Round(time.Millisecond))

	// The commands sent mid-failover: the e-stop obeyed, each pause
	// answered; the same pause again (as a broker redelivering it would)
	// answers the same and pauses nothing twice.
	var pauses []sent
	for range doomed {
		s := <-replies
		if s.err != nil || !s.rep.OK {
			t.Fatalf("%s: %+v %v sent during the failover", s.id, s.rep, s.err)
		}
		if s.id != estopped {
			pauses = append(pauses, s)
		}
	}
	t.Logf("%s: e-stop and %d pauses sent at the kill all answered", c.kind, len(pauses))
	v.until(t, failover, "ESTOP in the e-stopped robot's state", func() (bool, string) {
		s := v.last(estopped).m
		return s.EStop && s.Mode == protocol.ModeEStop, fmt.Sprintf("mode %q", s.Mode)
	})
	for _, s := range pauses {
		ctx, cancel := context.WithTimeout(context.Background(), failover)
		rep, err := v.g.Send(ctx, s.id, s.cmd)
		cancel()
		if err != nil || !reflect.DeepEqual(rep, s.rep) {
			t.Fatalf("%s: the repeated pause: %+v %v, the first %+v", s.id, rep, err, s.rep)
		}
	}

	// No event lost: each robot's events 1..last with no gap, what the
	// dead node took and never delivered sent again on events.request.
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), failover)
		hist, err := v.g.Send(ctx, id, protocol.Command{ID: uuid.NewString(), Op: protocol.OpEventsRequest})
		cancel()
		if err != nil || !hist.OK {
			t.Fatalf("%s: events.request: %+v %v", id, hist, err)
		}
		last := uint64(hist.Result["last_seq"].(float64))
		v.until(t, failover, id+"'s every event", func() (bool, string) {
			seqs := slices.Sorted(maps.Keys(v.events[id]))
			return len(seqs) > 0 && seqs[len(seqs)-1] >= last && firstGap(seqs) == 0, fmt.Sprintf("%d events, last %d, want %d", len(seqs), len(seqs), last)
		})
	}
	v.mu.Lock()
	for _, s := range pauses {
		if k := len(v.pausedS[s.id]); k > 1 {
			t.Errorf("%s: %d mission.paused events for one pause", s.id, k)
		}
	}
	for _, id := range ids {
		if !slices.Contains(doomed, id) && len(v.pausedS[id]) > 0 {
			t.Errorf("%s was never sent a pause and paused", id)
		}
	}
	for _, id := range doomed {
		wills += countOf(v.conns[id], protocol.ConnBroken)
	}
	v.mu.Unlock()

	// The dead node's wills, as this broker promises them.
	if c.willsOfTheDead {
		v.until(t, failover, "the dead node's wills published by the survivors", func() (bool, string) {
			got := 0
			for _, id := range doomed {
				if countOf(v.conns[id], protocol.ConnBroken) > 0 {
					got++
				}
			}
			return got == len(doomed), fmt.Sprintf("%d of %d robots' wills", got, len(doomed))
		})
		var last time.Duration
		v.mu.Lock()
		for _, id := range doomed {
			last = max(last, v.broken[id].Sub(killed))
		}
		v.mu.Unlock()
		t.Logf("%s: every will of the dead node's %d robots published by a survivor, the last %v after the kill", c.kind, len(doomed), last.Round(time.Millisecond))
	} else {
		if wills != 0 {
			t.Errorf("%d wills of the dead node's robots arrived; %s publishes none", wills, c.kind)
		}
		t.Logf("%s: no will of the dead node's robots published (as documented): the ground station judged them by telemetry age", c.kind)
	}
	// Whatever the wills did, the broker's retained word on every robot
	// ends ONLINE: a fresh ground station is told so.
	fresh := newFleetView(t, c, groundURLs, ids)
	fresh.until(t, failover, "ONLINE retained (or in the answer to state.request) for every robot", func() (bool, string) {
		for _, id := range ids {
			cs := fresh.conns[id]
			if s := fresh.last(id).m; len(cs) > 0 && cs[len(cs)-1] != protocol.ConnOnline || !s.Link.Broker {
				return false, fmt.Sprintf("%s: connection %v, link %v", id, cs, s.Link.Broker)
			}
		}
		return true, ""
	})
	fleet.stop(t)
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// writeClusterConfig is the fleet's config: the simulated rover on the
// cluster's nodes, of the cluster's broker kind, running a mission that
// never ends. The overrun failsafe is off: a fleet on a loaded test
// machine misses tick deadlines, and a hold would pause robots the test
// never paused (what is tested here is the brokers' part).
func writeClusterConfig(t *testing.T, c *brokerCluster) string {
	t.Helper()
	urls := make([]string, len(c.urls))
	for i, u := range c.urls {
		urls[i] = strconv.Quote(u)
	}
	text := fmt.Sprintf("robot: r\nhardware: %s\nmission: %s\nbroker: {kind: %s, urls: [%s], reconnect_max: 2s}\nfailsafe: {require_gcs: false, max_overruns: -1}\n",
		mustAbs(t, "../../configs/sim.yaml"), mustAbs(t, "testdata/forever.yaml"), c.kind, strings.Join(urls, ", "))
	return writeBadConfig(t, t.TempDir(), "cluster", text)
}

// killGroup kills cmd's process group (kill -9) and waits until every
// process of it is gone, the ones its leader left behind too.
func killGroup(cmd *exec.Cmd) {
	pg := cmd.Process.Pid
	syscall.Kill(-pg, syscall.SIGKILL)
	cmd.Wait()
	for range 500 {
		if syscall.Kill(-pg, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// canDial reports whether url's host:port accepts a TCP connection.
func canDial(u string) bool {
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(u, "tcp://"), time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}
