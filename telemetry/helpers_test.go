package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/botd-project/botd/missions"
)

// Generous: only for waiting, never to assert speed.
const waitLong = 20 * time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := checkGoroutines(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// checkGoroutines fails when goroutines of this package (or of the MQTT
// libraries it started) outlive the tests. paho finishes some reconnect
// sleeps after Disconnect returns, so this waits for them.
func checkGoroutines() error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "checkGoroutines") || strings.Contains(g, "testing.(*M)") {
				continue
			}
			if strings.Contains(g, "botd/telemetry.") || strings.Contains(g, "paho.mqtt.golang") || strings.Contains(g, "mochi-mqtt") {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d goroutines left behind:\n\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---- brokers ----

func startTestBroker(t *testing.T, addr string, hooks ...mqtt.Hook) *Broker {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var b *Broker
	var err error
	// Restarting on the same port right after a close can race the
	// kernel releasing it.
	for range 50 {
		b, err = StartBroker(context.Background(), BrokerConfig{Addr: addr, hooks: hooks})
		if err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("broker: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// blackhole is a broker hook that, while on, swallows publishes to one
// topic: no acknowledgement, no delivery (a broker dying mid-flight).
type blackhole struct {
	mqtt.HookBase
	topic     string
	on        atomic.Bool
	swallowed atomic.Int64
}

func (h *blackhole) ID() string { return "blackhole" }
func (h *blackhole) Provides(b byte) bool {
	return b == mqtt.OnPublish
}
func (h *blackhole) OnPublish(_ *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	if h.on.Load() && pk.TopicName == h.topic {
		h.swallowed.Add(1)
		return pk, packets.ErrRejectPacket
	}
	return pk, nil
}

// ---- client options ----

func testConn(url string) ConnOptions {
	return ConnOptions{
		Brokers:              []string{url},
		ConnectRetryInterval: 50 * time.Millisecond,
		MaxReconnectInterval: 200 * time.Millisecond,
		ConnectTimeout:       2 * time.Second,
		PublishTimeout:       3 * time.Second,
		KeepAlive:            5 * time.Second,
	}
}

// netGate refuses new connections while closed and can sever the ones
// it let through: the socket closes without a DISCONNECT, and the client
// sees a network error (paho ignores "use of closed network connection",
// which it takes for its own doing, and would only notice at the next
// missed ping).
type netGate struct {
	mu     sync.Mutex
	closed bool
	conns  []*severable
}

type severable struct {
	net.Conn
	cut atomic.Bool
}

var errSevered = errors.New("connection severed")

func (c *severable) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.cut.Load() {
		return n, errSevered
	}
	return n, err
}

func (c *severable) Write(b []byte) (int, error) {
	if c.cut.Load() {
		return 0, errSevered
	}
	return c.Conn.Write(b)
}

func (g *netGate) wrap(c net.Conn) (net.Conn, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		_ = c.Close()
		return nil, errors.New("gate closed")
	}
	s := &severable{Conn: c}
	g.conns = append(g.conns, s)
	return s, nil
}

func (g *netGate) set(closed bool) {
	g.mu.Lock()
	g.closed = closed
	g.mu.Unlock()
}

func (g *netGate) sever() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		c.cut.Store(true)
		_ = c.Conn.Close()
	}
	g.conns = nil
}

// ---- a recording subscriber on raw paho (to see the retain flag) ----

type rmsg struct {
	topic    string
	payload  []byte
	retained bool
}

type recorder struct {
	client   paho.Client
	mu       sync.Mutex
	msgs     []rmsg
	ready    atomic.Uint64 // connections whose subscriptions are in place
	connects atomic.Uint64
}

func newRecorder(t *testing.T, url string, filters ...string) *recorder {
	t.Helper()
	r := &recorder{}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("rec-%d", time.Now().UnixNano())).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(50 * time.Millisecond).
		SetMaxReconnectInterval(200 * time.Millisecond).SetOrderMatters(true)
	o.SetDefaultPublishHandler(func(paho.Client, paho.Message) {})
	o.SetOnConnectHandler(func(c paho.Client) {
		n := r.connects.Add(1)
		for _, f := range filters {
			tok := c.Subscribe(f, 1, func(_ paho.Client, m paho.Message) {
				r.mu.Lock()
				r.msgs = append(r.msgs, rmsg{m.Topic(), slices.Clone(m.Payload()), m.Retained()})
				r.mu.Unlock()
			})
			tok.WaitTimeout(5 * time.Second)
		}
		r.ready.Store(n)
	})
	r.client = paho.NewClient(o)
	r.client.Connect()
	t.Cleanup(func() { r.client.Disconnect(100) })
	eventually(t, "recorder subscribed", func() bool { return r.ready.Load() > 0 })
	return r
}

func (r *recorder) all() []rmsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

func (r *recorder) on(topic string) []rmsg {
	var out []rmsg
	for _, m := range r.all() {
		if m.topic == topic {
			out = append(out, m)
		}
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.msgs = nil
	r.mu.Unlock()
}

// ---- a fake runner ----

type fakeSource struct {
	mu        sync.Mutex
	state     missions.State
	tree      missions.TreeInfo
	hasTree   bool
	statuses  []byte
	pending   map[int32]byte
	tick      uint64
	keyframes int
	bb        []missions.BlackboardValue
	ch        chan struct{}
}

func newFakeSource(nodes int) *fakeSource {
	f := &fakeSource{ch: make(chan struct{}, 1), pending: map[int32]byte{}}
	f.state = missions.State{Mode: missions.ModeIdle, RequestedMode: missions.ModeIdle, Errors: []missions.StateError{}}
	if nodes > 0 {
		f.hasTree = true
		f.tree = missions.TreeInfo{Mission: "m1", Revision: 1}
		for i := range nodes {
			f.tree.Nodes = append(f.tree.Nodes, missions.TreeNode{Index: int32(i), ID: fmt.Sprint("n", i), Type: "Sequence", Name: fmt.Sprint("node", i), Parent: int32(i - 1)})
		}
		f.statuses = []byte(strings.Repeat("I", nodes))
		f.state.Mission = &missions.MissionState{ID: "m1", Name: "patrol", Revision: 1, Status: missions.RunRunning}
	}
	return f
}

func (f *fakeSource) State() missions.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

func (f *fakeSource) Tree() (missions.TreeInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tree, f.hasTree
}

func (f *fakeSource) Status(keyframe bool) (missions.StatusUpdate, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.hasTree {
		return missions.StatusUpdate{}, false
	}
	u := missions.StatusUpdate{Mission: f.tree.Mission, Tick: f.tick}
	if keyframe {
		f.keyframes++
		u.Keyframe = string(f.statuses)
	} else {
		for n, s := range f.pending {
			u.Changes = append(u.Changes, missions.StatusChange{Node: n, Status: s})
		}
		slices.SortFunc(u.Changes, func(a, b missions.StatusChange) int { return int(a.Node - b.Node) })
	}
	clear(f.pending)
	return u, true
}

func (f *fakeSource) Blackboard() []missions.BlackboardValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bb)
}

func (f *fakeSource) Changed() <-chan struct{} { return f.ch }

func (f *fakeSource) signal() {
	select {
	case f.ch <- struct{}{}:
	default:
	}
}

func (f *fakeSource) setStatus(node int32, s byte) {
	f.mu.Lock()
	f.tick++
	f.statuses[node] = s
	f.pending[node] = s
	f.mu.Unlock()
}

func (f *fakeSource) setMode(mode string) {
	f.mu.Lock()
	f.state.Mode = mode
	f.mu.Unlock()
	f.signal()
}

type fakeHandler struct {
	mu    sync.Mutex
	calls []missions.Command
}

func (h *fakeHandler) Do(_ context.Context, c missions.Command) missions.Reply {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	n := len(h.calls)
	h.mu.Unlock()
	return missions.Reply{ID: c.ID, OK: true, Result: map[string]any{"call": n, "op": c.Op}}
}

func (h *fakeHandler) count(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if id == "" || c.ID == id {
			n++
		}
	}
	return n
}

type linkLog struct {
	mu  sync.Mutex
	all []missions.LinkState
}

func (l *linkLog) add(s missions.LinkState) {
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
}

func (l *linkLog) last() (missions.LinkState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return missions.LinkState{}, false
	}
	return l.all[len(l.all)-1], true
}

// ---- a running daemon ----

type harness struct {
	d      *Daemon
	src    *fakeSource
	cmds   *fakeHandler
	links  *linkLog
	gate   *netGate
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func startDaemon(t *testing.T, url string, edit func(*DaemonConfig)) *harness {
	t.Helper()
	h := &harness{src: newFakeSource(4), cmds: &fakeHandler{}, links: &linkLog{}, gate: &netGate{}}
	cfg := DaemonConfig{
		Robot:     "rover-1",
		Conn:      testConn(url),
		StateDir:  t.TempDir(),
		Source:    h.src,
		Commands:  h.cmds,
		Factsheet: FactsheetMsg{Version: "test"},
		Link:      h.links.add,
	}
	cfg.Conn.wrap = h.gate.wrap
	if edit != nil {
		edit(&cfg)
	}
	if s, ok := cfg.Source.(*fakeSource); ok {
		h.src = s
	}
	d, err := NewDaemon(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.d = d
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- d.Run(ctx) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

func (h *harness) stop(t *testing.T) {
	h.once.Do(func() {
		h.cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(waitLong):
			t.Errorf("Run did not return")
		}
	})
}

func (h *harness) waitUp(t *testing.T) {
	t.Helper()
	eventually(t, "daemon connected", func() bool {
		c := h.d.currentConn()
		return c != nil && c.IsUp()
	})
}

func (h *harness) connects() uint64 {
	if c := h.d.currentConn(); c != nil {
		return c.Connects()
	}
	return 0
}

func newTestGround(t *testing.T, url string, edit func(*GroundConfig)) *Ground {
	t.Helper()
	cfg := GroundConfig{GCS: "ops", Conn: testConn(url), ResendEvery: 500 * time.Millisecond, ReplyTimeout: waitLong}
	if edit != nil {
		edit(&cfg)
	}
	g, err := NewGround(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return g
}

// publisher is a plain client for sending raw payloads.
func newPublisher(t *testing.T, url string) Conn {
	t.Helper()
	o := testConn(url)
	o.ClientID = fmt.Sprintf("pub-%d", time.Now().UnixNano())
	c, err := Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	eventually(t, "publisher connected", c.IsUp)
	return c
}
