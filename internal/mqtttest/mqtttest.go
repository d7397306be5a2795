// Package mqtttest holds what the MQTT tests of several packages share: an
// embedded broker on a free loopback port, client options tuned for tests,
// a recording subscriber that sees the retain flag, a network gate that
// severs connections, and a goroutine-leak check. Only tests import it.
package mqtttest

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

	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/transport"
)

// WaitLong bounds every wait: generous, only for waiting for an event,
// never to assert speed.
const WaitLong = 20 * time.Second

// Main runs the tests of a package, then fails them if goroutines whose
// stacks mention one of markers (or the MQTT libraries) outlive them.
func Main(m *testing.M, markers ...string) {
	code := m.Run()
	if code == 0 {
		if err := CheckGoroutines(markers...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// CheckGoroutines fails when goroutines of the given packages (or of the
// MQTT libraries) outlive the tests. paho finishes some reconnect sleeps
// after Disconnect returns, so this waits for them to end.
func CheckGoroutines(markers ...string) error {
	markers = append(markers, "paho.mqtt.golang", "mochi-mqtt")
	deadline := time.Now().Add(15 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "CheckGoroutines") || strings.Contains(g, "testing.(*M)") {
				continue
			}
			for _, m := range markers {
				if strings.Contains(g, m) {
					left = append(left, g)
					break
				}
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

// Eventually is testutil.Eventually bounded by WaitLong, the MQTT tests'
// bound.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, WaitLong, what, cond)
}

// StartBroker starts the embedded broker on addr ("" picks a free
// loopback port) and closes it when the test ends.
func StartBroker(t testing.TB, addr string, hooks ...mqtt.Hook) *broker.Broker {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var b *broker.Broker
	var err error
	// Restarting on the same port right after a close can race the kernel
	// releasing it: retry until it is free, within WaitLong.
	deadline := time.Now().Add(WaitLong)
	for {
		// Room for a thousand robots' retained topics sent to one ground
		// station at once (the fleet tests' botctl).
		b, err = broker.Start(context.Background(), broker.Config{Addr: addr, Hooks: hooks, MaxQueueMessages: 8192})
		if err == nil || time.Now().After(deadline) {
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

// Blackhole is a broker hook that, while On, swallows publishes to Topic:
// no acknowledgement, no delivery (a broker dying mid-flight).
type Blackhole struct {
	mqtt.HookBase
	Topic     string
	On        atomic.Bool
	Swallowed atomic.Int64
}

func (h *Blackhole) ID() string { return "blackhole" }

func (h *Blackhole) Provides(b byte) bool { return b == mqtt.OnPublish }

func (h *Blackhole) OnPublish(_ *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	if h.On.Load() && pk.TopicName == h.Topic {
		h.Swallowed.Add(1)
		return pk, packets.ErrRejectPacket
	}
	return pk, nil
}

// Options returns client options for url that reconnect quickly.
func Options(url string) transport.Options {
	return transport.Options{
		Brokers:              []string{url},
		ConnectRetryInterval: 50 * time.Millisecond,
		MaxReconnectInterval: 200 * time.Millisecond,
		ConnectTimeout:       2 * time.Second,
		PublishTimeout:       3 * time.Second,
		KeepAlive:            5 * time.Second,
	}
}

// NetGate refuses new connections while closed and can sever the ones it
// let through: the socket closes without a DISCONNECT, and the client sees
// a network error (paho ignores "use of closed network connection", which
// it takes for its own doing, and would only notice at the next missed
// ping). Install it as transport.Options.WrapConn.
type NetGate struct {
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

// Wrap lets c through, or refuses it while the gate is closed.
func (g *NetGate) Wrap(c net.Conn) (net.Conn, error) {
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

// Set opens or closes the gate for new connections.
func (g *NetGate) Set(closed bool) {
	g.mu.Lock()
	g.closed = closed
	g.mu.Unlock()
}

// Sever cuts every connection the gate let through.
func (g *NetGate) Sever() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		c.cut.Store(true)
		_ = c.Conn.Close()
	}
	g.conns = nil
}

// Msg is one message a Recorder saw.
type Msg struct {
	Topic    string
	Payload  []byte
	Retained bool
}

// Recorder is a subscriber on raw paho (to see the retain flag) that keeps
// every message it receives.
type Recorder struct {
	client   paho.Client
	mu       sync.Mutex
	msgs     []Msg
	ready    atomic.Uint64 // connections whose subscriptions are in place
	connects atomic.Uint64
}

// NewRecorder subscribes to filters at QoS 1 and waits until it has.
func NewRecorder(t testing.TB, url string, filters ...string) *Recorder {
	t.Helper()
	r := &Recorder{}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("rec-%d", time.Now().UnixNano())).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(50 * time.Millisecond).
		SetMaxReconnectInterval(200 * time.Millisecond).SetOrderMatters(true)
	o.SetDefaultPublishHandler(func(paho.Client, paho.Message) {})
	o.SetOnConnectHandler(func(c paho.Client) {
		n := r.connects.Add(1)
		for _, f := range filters {
			tok := c.Subscribe(f, 1, func(_ paho.Client, m paho.Message) {
				r.mu.Lock()
				r.msgs = append(r.msgs, Msg{m.Topic(), slices.Clone(m.Payload()), m.Retained()})
				r.mu.Unlock()
			})
			tok.WaitTimeout(5 * time.Second)
		}
		r.ready.Store(n)
	})
	r.client = paho.NewClient(o)
	r.client.Connect()
	t.Cleanup(func() { r.client.Disconnect(100) })
	Eventually(t, "recorder subscribed", func() bool { return r.ready.Load() > 0 })
	return r
}

// Connects counts the recorder's connections (reconnects included).
func (r *Recorder) Connects() uint64 { return r.connects.Load() }

// Ready reports whether the subscriptions of the n-th connection are in place.
func (r *Recorder) Ready(n uint64) bool { return r.ready.Load() >= n }

// All returns every message so far.
func (r *Recorder) All() []Msg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

// On returns the messages on topic.
func (r *Recorder) On(topic string) []Msg {
	var out []Msg
	for _, m := range r.All() {
		if m.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// Reset forgets the messages so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.msgs = nil
	r.mu.Unlock()
}

// NewPublisher returns a plain connected client for sending raw payloads.
func NewPublisher(t testing.TB, url string) transport.Conn {
	t.Helper()
	o := Options(url)
	o.ClientID = fmt.Sprintf("pub-%d", time.Now().UnixNano())
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	Eventually(t, "publisher connected", c.IsUp)
	return c
}
