package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// botd fleet refuses what it cannot run, before it builds anything.
func TestFleetFlags(t *testing.T) {
	lim := fdLimitNow
	t.Cleanup(func() { fdLimitNow = lim })
	fdLimitNow = func() uint64 { return 1024 }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n 0: want 1 to 5000"},
		{[]string{"-n", "5001"}, "-n 5001: want 1 to 5000"},
		{[]string{"-n", "200"}, "-n 200 needs about 1664 open files (8 a robot), the limit is 1024"},
		{[]string{"-robot", "rover"}, "want exactly one integer verb"},
		{[]string{"-robot", "rover-%d-%d"}, "want exactly one integer verb"},
		{[]string{"-robot", "rover-%s"}, "want exactly one integer verb"},
		{[]string{"-robot", "rover %d"}, `makes "rover 1"`},
		{[]string{"-labels", "site"}, `"site" is not KEY=VALUE`},
		{[]string{"-labels", "Site=a"}, `label key "Site"`},
		{[]string{"-report", "0s"}, "must be positive"},
		{[]string{"-log", "loud"}, `-log "loud"`},
		{[]string{"extra"}, "usage: botd fleet"},
		{[]string{"-broker", "tcp://127.0.0.1:1,udp://127.0.0.1:2"}, `-broker: "udp://127.0.0.1:2": unknown scheme "udp"`},
		{[]string{"-broker", ","}, "-broker: no broker URL"},
		{[]string{"-first", "-1"}, "-first -1: want 0 to"},
		{[]string{"-listen", "1883"}, `-listen "1883": want host:port`},
		{[]string{"-listen", "127.0.0.1:1", "-broker", "tcp://127.0.0.1:2"}, "-listen is the embedded broker's address: not with -broker"},
	} {
		var out, errb syncBuffer
		// A case that validated would run a fleet: the context bounds it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code := run(ctx, append([]string{"fleet"}, tc.args...), &out, &errb)
		cancel()
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, errb.String())
		}
	}
}

// A config with real boards is refused: the robots would share the pins.
func TestFleetSimulatedOnly(t *testing.T) {
	var out, errb syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conf := filepath.Join(t.TempDir(), "pi.yaml")
	if err := os.WriteFile(conf, []byte("robot: r\nhardware: "+mustAbs(t, "../../configs/rover-raspi.yaml")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := run(ctx, []string{"fleet", "-n", "2", "-config", conf}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "runs simulated robots only; "+conf+" has real boards: pi (raspi)") {
		t.Errorf("exit %d:\n%s", code, errb.String())
	}
}

// botd fleet -n 3: three daemons in one process, each with its own id,
// MQTT connections, state directory, labels and running mission; the
// report counts their traffic; a cancel (SIGINT in the command) stops each
// cleanly: OFFLINE last.
func TestFleetRunsAndReports(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	g, err := ground.New(ground.Config{GCS: "fleet-test", Conn: transport.Options{Brokers: []string{b.URL()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer wcancel()
	if err := g.WaitUp(wctx); err != nil {
		t.Fatal(err)
	}
	// Subscribed before any robot publishes: mochi-mqtt v2 races (the
	// race detector says) when it stores a retained message while it
	// scans the retained ones for a new subscription.
	f := ground.NewFleet(g)
	if err := f.FollowLabels(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	var code int
	var wg sync.WaitGroup
	wg.Go(func() {
		code = run(ctx, []string{"fleet", "-n", "3", "-broker", b.URL(), "-robot", "fr-%02d", "-first", "7", "-labels", "site=yard-a,kind=rover",
			"-report", "300ms", "-state-dir", t.TempDir()}, &out, &errb)
	})
	ids := []string{"fr-07", "fr-08", "fr-09"}
	mqtttest.Eventually(t, "three robots online, each with its labels and its mission running", func() bool {
		rs := g.Robots()
		if len(rs) != 3 {
			return false
		}
		for i, r := range rs {
			l, ok := f.Labels(r.ID)
			if r.ID != ids[i] || r.Connection != protocol.ConnOnline || r.State == nil || r.State.Mode != protocol.ModeRunning || !ok ||
				l["site"] != "yard-a" || l["kind"] != "rover" || l["fleet.index"] != strconv.Itoa(i+7) {
				return false
			}
		}
		return true
	})
	// A report taken with the three online shows what they send.
	line := regexp.MustCompile(`fleet \d\d:\d\d:\d\d: 3/3 online; out ([0-9.]+) msg/s ([0-9.]+ [kM]?B)/s, in [0-9.]+ msg/s [0-9.]+ [kM]?B/s; broker ack p50 \S+ p99 \S+; tick overruns \+\d+; outbox unsent max \d+; behind: `)
	mqtttest.Eventually(t, "a report line with the fleet online and sending", func() bool {
		for _, m := range line.FindAllStringSubmatch(out.String(), -1) {
			if v, _ := strconv.ParseFloat(m[1], 64); v > 0 {
				return true
			}
		}
		return false
	})
	cancel()
	wg.Wait()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "botd fleet: 3 robots started, all 3 stopped") || !strings.Contains(out.String(), "messages") {
		t.Errorf("no summary:\n%s", out.String())
	}
	mqtttest.Eventually(t, "every robot OFFLINE", func() bool {
		for _, r := range g.Robots() {
			if r.Connection != protocol.ConnOffline {
				return false
			}
		}
		return true
	})
}

// The wire meter follows MQTT framing across any split of the stream: it
// counts PUBLISH packets each way and times a QoS 1 publish to its PUBACK.
func TestWireMeterScanner(t *testing.T) {
	now := time.Unix(0, 0)
	m := &wireMeter{acks: &latencyHist{}, now: func() time.Time { return now }}
	c := &meteredConn{m: m, pending: map[uint16]time.Time{}}
	c.out.onPacket, c.in.onPacket = c.sent, c.received
	topic := "botd/v1/r/state"
	pub := func(qos byte, id uint16, payload string) []byte {
		body := []byte{byte(len(topic) >> 8), byte(len(topic))}
		body = append(body, topic...)
		if qos > 0 {
			body = append(body, byte(id>>8), byte(id))
		}
		body = append(body, payload...)
		return append([]byte{0x30 | qos<<1, byte(len(body))}, body...)
	}
	stream := append(pub(0, 0, "status"), pub(1, 0x1234, "state")...)
	stream = append(stream, 0xc0, 0x00) // PINGREQ
	for i := range stream {             // one byte at a time
		c.out.feed(stream[i : i+1])
	}
	if m.pubOut.Load() != 2 || len(c.pending) != 1 {
		t.Fatalf("%d publishes out, %d pending", m.pubOut.Load(), len(c.pending))
	}
	now = now.Add(7 * time.Millisecond)
	in := append([]byte{0x40, 0x02, 0x12, 0x34}, pub(0, 0, "cmd")...)
	c.in.feed(in[:3])
	c.in.feed(in[3:])
	if m.pubIn.Load() != 1 || len(c.pending) != 0 {
		t.Fatalf("%d publishes in, %d pending", m.pubIn.Load(), len(c.pending))
	}
	if d := m.takeAckMax(); d != 7*time.Millisecond {
		t.Errorf("ack max %v", d)
	}
	if q := histQuantile(m.acks.take(), 0.5); q < 7*time.Millisecond || q > 9*time.Millisecond {
		t.Errorf("ack p50 %v", q)
	}
}

// paho writes from two goroutines (its outgoing packets, its keepalive's
// PINGREQ): the meter reads their packets whole and in order (-race
// caught the two writers feeding one scanner at once).
func TestWireMeterTwoWriters(t *testing.T) {
	m := &wireMeter{acks: &latencyHist{}, now: time.Now}
	a, b := net.Pipe()
	go io.Copy(io.Discard, b)
	defer a.Close()
	mc, _ := m.wrap(a)
	topic := "botd/v1/r/status"
	pub := append([]byte{0x30, byte(2 + len(topic) + 2), 0, byte(len(topic))}, topic+"ok"...)
	const each = 200
	var wg sync.WaitGroup
	for _, pkt := range [][]byte{pub, {0xc0, 0x00}} {
		wg.Go(func() {
			for range each {
				if _, err := mc.Write(pkt); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := m.pubOut.Load(); got != each {
		t.Errorf("%d publishes counted, want %d", got, each)
	}
}

// `botd fleet -broker A,B`: each robot orders the list its own way, so the
// fleet spreads over both brokers, each robot's state naming the one it
// is on.
func TestFleetSpreadsOverBrokers(t *testing.T) {
	brokers := []string{mqtttest.StartBroker(t, "").URL(), mqtttest.StartBroker(t, "").URL()}
	const n = 8
	ids := make([]string, n)
	want := map[string]string{} // robot → the broker it should be on
	for i := range ids {
		ids[i] = fmt.Sprintf("spread-%02d", i+1)
		want[ids[i]] = transport.Order(brokers, ids[i])[0]
	}
	var grounds []*ground.Client
	for _, b := range brokers {
		g, err := ground.New(ground.Config{GCS: "spread-test", Conn: transport.Options{Brokers: []string{b}}})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = g.WaitUp(wctx)
		wcancel()
		if err != nil {
			t.Fatal(err)
		}
		grounds = append(grounds, g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	var wg sync.WaitGroup
	wg.Go(func() {
		run(ctx, []string{"fleet", "-n", strconv.Itoa(n), "-broker", strings.Join(brokers, ","), "-robot", "spread-%02d",
			"-quiet", "-state-dir", t.TempDir()}, &out, &errb)
	})
	mqtttest.Eventually(t, "every robot online on the broker of its order", func() bool {
		seen := 0
		for i, g := range grounds {
			for _, r := range g.Robots() {
				if r.Connection == protocol.ConnOnline && r.State != nil && r.State.Link.URL == brokers[i] && want[r.ID] == brokers[i] {
					seen++
				}
			}
		}
		return seen == n
	})
	on := map[string]int{}
	for _, b := range want {
		on[b]++
	}
	if len(on) != 2 {
		t.Errorf("the fleet is on %d broker(s): %v", len(on), on)
	}
	cancel()
	wg.Wait()
}

// With no broker given the fleet runs one embedded broker, on -listen:
// its robots come online there for a ground station, and stop OFFLINE.
func TestFleetOnItsEmbeddedBroker(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	var code int
	var wg sync.WaitGroup
	wg.Go(func() {
		code = run(ctx, []string{"fleet", "-n", "2", "-listen", addr, "-quiet", "-state-dir", t.TempDir()}, &out, &errb)
	})
	mqtttest.Eventually(t, "the embedded broker on "+addr, func() bool { return strings.Contains(out.String(), "embedded broker tcp://"+addr) })
	g, err := ground.New(ground.Config{GCS: "fleet-embedded-test", Conn: transport.Options{Brokers: []string{"tcp://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	mqtttest.Eventually(t, "both robots online with their mission running", func() bool {
		rs := g.Robots()
		n := 0
		for _, r := range rs {
			if r.Connection == protocol.ConnOnline && r.State != nil && r.State.Mode == protocol.ModeRunning {
				n++
			}
		}
		return n == 2
	})
	cancel()
	wg.Wait()
	if code != 0 || !strings.Contains(out.String(), "botd fleet: 2 robots started, all 2 stopped") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}
