package telemetry

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

type faultLog struct {
	mu  sync.Mutex
	all []string // "key code" or "key cleared"
}

func (f *faultLog) add(key string, e *protocol.StateError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e == nil {
		f.all = append(f.all, key+" cleared")
		return
	}
	f.all = append(f.all, key+" "+e.Code)
}

func (f *faultLog) has(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range f.all {
		if x == s {
			return true
		}
	}
	return false
}

// On a broker that does not keep client ids (mosquitto, anonymous), a
// client that keeps taking the robot's main id makes the robot's
// connection flap. The flapping is reported once as CLIENT_ID_TAKEN, and
// the link stays down for the failsafe all the while: no brief
// connection resets its timer. Once the client is gone the link comes
// back.
func TestTakeoverKeepsTheLinkDown(t *testing.T) {
	url := "tcp://" + mqtttest.StartMosquitto(t)
	faults := &faultLog{}
	// A grace well above the other client's reconnect interval (200 ms),
	// so a slow machine does not let a connection hold it.
	h := startDaemon(t, url, func(c *DaemonConfig) { c.Fault, c.LinkGrace = faults.add, 5*time.Second })
	h.waitUp(t)
	mqtttest.Eventually(t, "the link reported up", func() bool { ls, ok := h.links.last(); return ok && ls.Broker })
	h.links.mu.Lock()
	before := len(h.links.all)
	h.links.mu.Unlock()

	attacker := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("botd-rover-1").
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(50 * time.Millisecond).SetMaxReconnectInterval(200 * time.Millisecond))
	attacker.Connect()
	mqtttest.Eventually(t, "the takeover reported in the state errors", func() bool { return faults.has("link.takeover.main " + CodeClientIDTaken) })
	mqtttest.Eventually(t, "six quick drops", func() bool { return h.d.Takeovers() >= 6 })
	h.links.mu.Lock()
	during := append([]protocol.LinkState(nil), h.links.all[before:]...)
	h.links.mu.Unlock()
	attacker.Disconnect(0)
	down := -1
	for i, ls := range during {
		if !ls.Broker {
			down = i
			break
		}
	}
	if down < 0 {
		t.Fatalf("the link was never reported down: %v", during)
	}
	for _, ls := range during[down:] {
		if ls.Broker {
			t.Fatalf("the link was reported up during the takeover: %v", during)
		}
	}
	if n := strings.Count(strings.Join(faultsOf(faults), "\n"), "link.takeover.main "+CodeClientIDTaken); n != 1 {
		t.Errorf("takeover reported %d times, want once per burst: %v", n, faultsOf(faults))
	}
	mqtttest.Eventually(t, "the link back once the other client left", func() bool { ls, _ := h.links.last(); return ls.Broker })
}

func faultsOf(f *faultLog) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.all...)
}

// The watch's rules on a made-up timeline: three quick drops in a row are
// a burst, reported once; gains are held while drops are recent; a
// connection that holds takeoverQuiet clears the report.
func TestFlapWatch(t *testing.T) {
	faults := &faultLog{}
	var total = new(atomicU64)
	w := &flapWatch{name: "main", clientID: "botd-r", grace: 2 * time.Second, log: slog.New(slog.NewTextHandler(io.Discard, nil)), fault: faults.add, total: &total.v}
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	w.observe(at(0), true, 1)
	w.observe(at(time.Minute), false, 1) // a long connection ended: not quick
	if w.flapping(at(time.Minute)) || total.v.Load() != 0 {
		t.Fatal("a long connection counted as a quick drop")
	}
	conns := uint64(1)
	now := time.Minute
	for i := range 5 {
		conns++
		now += time.Second
		w.observe(at(now), true, conns)
		now += 500 * time.Millisecond
		w.observe(at(now), false, conns)
		if i == 1 && faults.has("link.takeover.main "+CodeClientIDTaken) {
			t.Fatal("reported after two quick drops")
		}
	}
	// Two more came and went unseen between two looks.
	conns += 3
	now += time.Second
	w.observe(at(now), true, conns)
	if total.v.Load() != 7 {
		t.Fatalf("%d quick drops, want 7", total.v.Load())
	}
	if got := faultsOf(faults); len(got) != 1 || got[0] != "link.takeover.main "+CodeClientIDTaken {
		t.Fatalf("faults %v, want one report", got)
	}
	if !w.flapping(at(now)) {
		t.Fatal("not flapping after quick drops")
	}
	if want := at(now + 2*time.Second); !w.wake().Equal(want) {
		t.Fatalf("wake %v, want %v", w.wake(), want)
	}
	w.observe(at(now+takeoverQuiet), true, conns)
	if got := faultsOf(faults); len(got) != 2 || got[1] != "link.takeover.main cleared" {
		t.Fatalf("faults %v, want the report cleared", got)
	}
}

type atomicU64 struct{ v atomic.Uint64 }
