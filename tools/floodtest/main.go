// Command floodtest measures command intake under a flood, as
// docs/RELIABILITY.md reports it: a runner and telemetry on the embedded
// broker take ordinary commands on cmd at a fixed rate while e-stops come,
// one at a time, alternately on cmd and on the estop topic (from a client
// of their own). For every e-stop it measures, from the moment it is
// published: the hardware e-stop gate closing (the runner calls
// Hardware.EStop; the tool's hardware records when), its reply, the state
// topic showing mode ESTOP, and the estop.engaged event. After each, the
// e-stop is reset directly on the runner, and the next follows once the
// state has left ESTOP. At the end it counts the flood's replies by id
// (every command must have exactly one), and the messages the broker
// dropped because a subscriber's queue was full (a command it drops never
// reaches the daemon; a reply, never the client).
//
//	go run ./tools/floodtest                       # 10,000 commands/s for 10 s
//	go run ./tools/floodtest -rate 1000 -seconds 30
//
// With -raw it runs the slow-consumer attack of docs/RELIABILITY.md
// instead of a polite flood: -stalled subscribers to # that never read,
// and the commands (-size bytes each, at -qos) written by a raw socket,
// as botd runs the broker (the daemon's connections hold its reserved
// ids). It then also reports this process's resident memory (idle, peak,
// after) and, with -profile, writes heap and goroutine profiles at the
// flood's peak heap; an e-stop not seen in full is reported, not fatal.
//
//	go run ./tools/floodtest -raw -stalled 20 -rate 5000 -size 30000 -qos 0 -seconds 20 -profile /tmp/flood
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
	"github.com/mochi-mqtt/server/v2/system"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

func main() {
	rate := flag.Int("rate", 10000, "ordinary commands per second on cmd")
	seconds := flag.Float64("seconds", 10, "length of the flood")
	every := flag.Duration("estop-every", 50*time.Millisecond, "pause between an e-stop's reset and the next e-stop")
	hz := flag.Float64("tick", 20, "tick rate of the mission")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	stalled := flag.Int("stalled", 0, "subscribers to # that never read, connected before the flood")
	raw := flag.Bool("raw", false, "flood from a raw socket (no client library in this process)")
	size := flag.Int("size", 0, "with -raw: bytes of each command (padded with a long key)")
	qos := flag.Int("qos", 1, "with -raw: QoS of the flood (0 or 1)")
	maxQueue := flag.Int("max-queue-bytes", 0, "the embedded broker's max_queue_bytes (0: its default)")
	maxTotal := flag.Int("max-total-queue-bytes", 0, "the embedded broker's max_total_queue_bytes (0: its default)")
	profile := flag.String("profile", "", "write heap and goroutine profiles to PREFIX.heap and PREFIX.goroutine at the flood's peak heap")
	flag.Parse()
	log.SetFlags(0)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	quiet := slog.New(slog.DiscardHandler)
	drops := &dropCounter{by: map[string]int{}}
	brokerLog := quiet
	if *raw { // the broker's warnings say whom it let go
		brokerLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	robot := "flood-" + uuid.NewString()[:8]
	// As botd runs it: the daemon's connections hold its reserved ids
	// and are never let go as slow consumers.
	secret := broker.NewSecret()
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", Logger: brokerLog, Hooks: []mqtt.Hook{drops},
		Identity: &broker.Identity{IDs: []string{"botd-" + robot}, Secret: secret}, MaxQueueBytes: *maxQueue, MaxTotalQueueBytes: *maxTotal})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	url := b.URL()
	dir, err := os.MkdirTemp("", "floodtest")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	m := &meter{}
	hw := &gateHW{m: m}
	var sink telemetry.EventSink // set before the runner runs
	r, err := runner.New(runner.Config{Robot: robot, TickHz: *hz, Hardware: hw, Logger: quiet,
		Failsafe: runner.FailsafeConfig{LinkLossTimeout: -1}, Events: func(e protocol.Event) { sink(e) }})
	if err != nil {
		log.Fatal(err)
	}
	tele, err := telemetry.NewDaemon(telemetry.DaemonConfig{Robot: robot, Conn: transport.Options{Brokers: []string{url}, Username: "botd-" + robot, Password: secret},
		StateDir: dir, Source: r, Commands: r, Link: r.SetLink, Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	sink = tele.EventSink()
	tp := tele.Topics()
	ctx, cancel := context.WithCancel(context.Background())
	teleCtx, stopTele := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.Run(ctx) })
	wg.Go(func() { _ = tele.Run(teleCtx) })
	defer func() { cancel(); stopTele(); wg.Wait() }()

	watch := dial(url, "floodtest-watch", []transport.Subscription{
		{Filter: tp.Reply(), QoS: 1, Handler: m.onReply},
		{Filter: tp.State(), QoS: 1, Handler: m.onState},
		{Filter: tp.Events(), QoS: 1, Handler: m.onEvent},
	})
	defer watch.Close()
	flood := dial(url, "floodtest-flood", nil)
	defer flood.Close()
	stopper := dial(url, "floodtest-estop", nil)
	defer stopper.Close()
	for _, c := range []transport.Conn{watch, flood, stopper} {
		waitFor("clients connected", 10*time.Second, c.IsUp)
	}
	waitFor("the robot online", 10*time.Second, func() bool { return m.mode() == protocol.ModeIdle })
	doc := `{"format":"botd/mission@1","id":"` + uuid.NewString() + `","name":"flood","revision":0,"main":"main",` +
		`"trees":{"main":{"type":"Repeater","params":{"count":-1},"children":[{"type":"Wait","params":{"ms":1000}}]}}}`
	if rep := r.Do(ctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: []byte(doc), Start: true}); !rep.OK {
		log.Fatalf("mission refused: %+v", rep.Error)
	}
	waitFor("the mission running", 10*time.Second, func() bool { return m.mode() == protocol.ModeRunning })

	fmt.Printf("floodtest: %d commands/s on cmd for %v s, tick %v Hz, GOMAXPROCS default, %s, load average %s\n\n",
		*rate, *seconds, *hz, time.Now().UTC().Format(time.RFC3339), loadavg())
	for i := range *stalled {
		c, err := stalledSubscriber(b.Addr(), fmt.Sprintf("floodtest-stalled-%d", i))
		if err != nil {
			log.Fatalf("stalled subscriber: %v", err)
		}
		defer c.Close()
	}
	runtime.GC()
	idle := rssBytes()
	var timeline func() string
	if *raw {
		timeline = func() string {
			mt := tele.Metrics()
			return fmt.Sprintf("broker_queued=%dKiB broker_inflight=%dKiB intake=%d replies=%d", b.QueuedBytes()>>10, b.InflightBytes()>>10, mt.Queues.Commands, m.replied())
		}
	}
	mem := watchMemory(50*time.Millisecond, *profile, timeline)
	start := time.Now()
	end := start.Add(time.Duration(*seconds * float64(time.Second)))
	flooded := make(chan floodResult, 1)
	go func() {
		if *raw {
			n := rawFlood(b.Addr(), tp.Cmd(), *rate, *size, byte(*qos), start, end)
			flooded <- floodResult{n: n, took: time.Since(start)}
			return
		}
		d := floodCmd(flood, tp.Cmd(), *rate, start, end)
		flooded <- floodResult{sent: d, n: len(d), took: time.Since(start)}
	}()

	var cycles []*cycle
	var incomplete []string // e-stops not seen in full within 10 s (-raw)
	for i := 0; time.Now().Before(end); i++ {
		time.Sleep(*every)
		c := &cycle{topic: protocol.LeafCmd, id: fmt.Sprintf("estop-%d", i)}
		topic := tp.Cmd()
		if i%2 == 1 {
			c.topic, topic = protocol.LeafEStop, tp.EStop()
		}
		payload := fmt.Appendf(nil, `{"id":%q,"op":"estop","ts":%q}`, c.id, protocol.FormatTS(time.Now()))
		m.arm(c)
		if _, err := stopper.PublishAsync(topic, 1, false, payload); err != nil {
			log.Fatalf("e-stop not sent: %v", err)
		}
		if *raw { // the attack: an e-stop not seen in full is reported, not fatal
			if !within(10*time.Second, func() bool { return m.done(c) }) {
				m.arm(nil)
				incomplete = append(incomplete, fmt.Sprintf("%s on %s: %s", c.id, c.topic, m.seen(c)))
				_ = r.Do(ctx, protocol.Command{ID: "reset-" + c.id, Op: protocol.OpEStopReset})
				continue
			}
		}
		waitFor("e-stop "+c.id, 10*time.Second, func() bool { return m.done(c) }, func() string { return m.seen(c) })
		m.arm(nil)
		cycles = append(cycles, c)
		if rep := r.Do(ctx, protocol.Command{ID: "reset-" + c.id, Op: protocol.OpEStopReset}); !rep.OK {
			log.Fatalf("reset refused: %+v", rep.Error)
		}
		if *raw {
			if !within(10*time.Second, func() bool { return m.mode() != protocol.ModeEStop }) {
				incomplete = append(incomplete, fmt.Sprintf("%s: the state never left ESTOP after the reset", c.id))
			}
			continue
		}
		waitFor("ESTOP left", 10*time.Second, func() bool { return m.mode() != protocol.ModeEStop })
	}
	fr := <-flooded
	sent, took := fr.n, fr.took
	// Wait for the replies still on their way (bounded).
	settle := time.Now().Add(30 * time.Second)
	for time.Now().Before(settle) && m.replied() < sent {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // a late duplicate would show now, and the broker's figures

	fmt.Println("| e-stop on | measured to | e-stops | p50 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, topic := range []string{protocol.LeafCmd, protocol.LeafEStop} {
		for _, what := range []string{"hardware gate closed", "reply", "state shows ESTOP", "estop.engaged event"} {
			var lat []time.Duration
			for _, c := range cycles {
				if c.topic == topic {
					lat = append(lat, c.latency(what))
				}
			}
			p50, p99, mx := quantiles(lat)
			fmt.Printf("| `%s` | %s | %d | %.1f ms | %.1f ms | %.1f ms |\n", topic, what, len(lat), ms(p50), ms(p99), ms(mx))
		}
	}
	for _, e := range incomplete {
		fmt.Printf("e-stop not seen in full within 10 s: %s\n", e)
	}
	missing, dup, codes := m.tally(sent)
	fmt.Printf("\nflood: %d commands in %.1f s (%.0f/s); replies: %s\n", sent, took.Seconds(), float64(sent)/took.Seconds(), codes)
	fmt.Printf("commands without a reply: %d; with more than one: %d; daemon's dropped.commands: %d\n",
		missing, dup, tele.Metrics().Dropped.Commands)
	fmt.Printf("messages the broker dropped: %s, %d shed for the daemon's connection (its queue over max_own_queue_bytes); commands without a reply that these do not explain: %d\n",
		drops.String(), b.OwnShed(), max(0, missing-drops.total()-int(b.OwnShed())))
	if !*raw {
		fmt.Printf("flood messages the broker did not acknowledge: %d\n", fr.notAcked())
	}
	mem.end()
	runtime.GC()
	fmt.Printf("memory: idle RSS %.0f MiB; during the flood peak RSS %.0f MiB (+%.0f), peak heap in use %.0f MiB, peak goroutines %d; after it RSS %.0f MiB\n",
		mib(idle), mib(mem.peakRSS.Load()), mib(mem.peakRSS.Load()-idle), mib(mem.peakHeap.Load()), mem.peakGo.Load(), mib(rssBytes()))
	fmt.Printf("broker: max_queue_bytes %d, max_total_queue_bytes %d, own bound %d; slow consumers let go %d, queued %d bytes, in flight %d bytes\n",
		b.MaxQueueBytes(), b.MaxTotalQueueBytes(), b.MaxOwnQueueBytes(), b.SlowConsumers(), b.QueuedBytes(), b.InflightBytes())
}

// dropCounter counts, by client, the messages the broker dropped because
// the client's queue of pending writes was full (the daemon's connection
// is botd-{robot}; floodtest-watch receives the replies).
type dropCounter struct {
	mqtt.HookBase
	mu       sync.Mutex
	by       map[string]int
	inflight int64
}

func (h *dropCounter) ID() string { return "floodtest-drops" }

func (h *dropCounter) Provides(b byte) bool {
	return b == mqtt.OnPublishDropped || b == mqtt.OnSysInfoTick
}

// OnSysInfoTick keeps the broker's count of QoS 1 messages it dropped
// because a client had too many unacknowledged (no hook tells which).
func (h *dropCounter) OnSysInfoTick(info *system.Info) {
	h.mu.Lock()
	h.inflight = info.InflightDropped
	h.mu.Unlock()
}

func (h *dropCounter) OnPublishDropped(cl *mqtt.Client, _ packets.Packet) {
	h.mu.Lock()
	h.by[cl.ID]++
	h.mu.Unlock()
}

func (h *dropCounter) total() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := int(h.inflight)
	for _, k := range h.by {
		n += k
	}
	return n
}

func (h *dropCounter) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	parts := []string{fmt.Sprintf("%d for too many unacknowledged (any client)", h.inflight)}
	for id, n := range h.by {
		parts = append(parts, fmt.Sprintf("%d to %s", n, id))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// cycle is one e-stop and when each of its effects was seen.
type cycle struct {
	topic, id                string
	sent, gate, reply, state time.Time
	event                    time.Time
}

func (c *cycle) latency(what string) time.Duration {
	t := map[string]time.Time{"hardware gate closed": c.gate, "reply": c.reply, "state shows ESTOP": c.state, "estop.engaged event": c.event}[what]
	return t.Sub(c.sent)
}

// meter collects what the clients and the hardware see.
type meter struct {
	mu      sync.Mutex
	cur     *cycle
	last    string // mode on the state topic
	replies map[string]int
	codes   map[string]int
}

func (m *meter) arm(c *cycle) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c != nil {
		c.sent = time.Now()
	}
	m.cur = c
}

func (m *meter) done(c *cycle) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !c.gate.IsZero() && !c.reply.IsZero() && !c.state.IsZero() && !c.event.IsZero()
}

func (m *meter) seen(c *cycle) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("gate %v, reply %v, state %v, event %v (mode %s)", !c.gate.IsZero(), !c.reply.IsZero(), !c.state.IsZero(), !c.event.IsZero(), m.last)
}

func (m *meter) mode() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

func (m *meter) gateClosed() {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != nil && m.cur.gate.IsZero() {
		m.cur.gate = now
	}
}

func (m *meter) onReply(_ string, payload []byte) {
	now := time.Now()
	rm, err := protocol.DecodeReply(payload)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replies == nil {
		m.replies, m.codes = map[string]int{}, map[string]int{}
	}
	if m.cur != nil && rm.ID == m.cur.id && m.cur.reply.IsZero() {
		m.cur.reply = now
	}
	if !strings.HasPrefix(rm.ID, "f") {
		return
	}
	m.replies[rm.ID]++
	code := "ok"
	if rm.Error != nil {
		code = rm.Error.Code
	}
	m.codes[code]++
}

func (m *meter) onState(_ string, payload []byte) {
	now := time.Now()
	s, err := protocol.DecodeState(payload)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = s.Mode
	if m.cur != nil && s.Mode == protocol.ModeEStop && m.cur.state.IsZero() {
		m.cur.state = now
	}
}

func (m *meter) onEvent(_ string, payload []byte) {
	now := time.Now()
	e, err := protocol.DecodeEvent(payload)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != nil && e.Kind == "estop.engaged" && m.cur.event.IsZero() {
		m.cur.event = now
	}
}

func (m *meter) replied() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.replies)
}

func (m *meter) tally(sent int) (missing, dup int, codes string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range sent {
		switch n := m.replies[fmt.Sprint("f", i)]; {
		case n == 0:
			missing++
		case n > 1:
			dup++
		}
	}
	var parts []string
	for c, n := range m.codes {
		parts = append(parts, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(parts)
	return missing, dup, strings.Join(parts, ", ")
}

type floodResult struct {
	sent []transport.Delivery // not with -raw
	n    int
	took time.Duration
}

func (f floodResult) notAcked() int {
	n := 0
	for _, d := range f.sent {
		if !d.Acked() {
			n++
		}
	}
	return n
}

// floodCmd publishes rate commands a second until end, catching up when
// behind. Ids are f0, f1, ...
func floodCmd(c transport.Conn, topic string, rate int, start, end time.Time) []transport.Delivery {
	ops := []string{protocol.OpStateRequest, protocol.OpMissionPause, protocol.OpMissionResume}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var sent []transport.Delivery
	for now := range tick.C {
		if now.After(end) {
			return sent
		}
		for target := int(now.Sub(start).Seconds() * float64(rate)); len(sent) < target; {
			i := len(sent)
			p := fmt.Appendf(nil, `{"id":"f%d","op":%q}`, i, ops[i%len(ops)])
			d, err := c.PublishAsync(topic, 1, false, p)
			if err != nil {
				log.Fatalf("flood: %v", err)
			}
			sent = append(sent, d)
		}
	}
	return sent
}

func dial(url, id string, subs []transport.Subscription) transport.Conn {
	c, err := transport.Dial(transport.Options{Brokers: []string{url}, ClientID: id, Subscriptions: subs,
		ConnectRetryInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// within reports whether cond came true within limit.
func within(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Microsecond)
	}
	return true
}

func waitFor(what string, limit time.Duration, cond func() bool, detail ...func() string) {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			for _, d := range detail {
				what += ": " + d()
			}
			log.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func quantiles(d []time.Duration) (p50, p99, mx time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	return q(0.5), q(0.99), d[len(d)-1]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// gateHW is the robot's hardware as far as the e-stop goes: it records
// when the runner closes the e-stop gate.
type gateHW struct{ m *meter }

func (h *gateHW) Bind(*bt.Tree) runner.Binding              { return nopBinding{} }
func (h *gateHW) Apply() error                              { return nil }
func (h *gateHW) Safe() error                               { return nil }
func (h *gateHW) EStop(string)                              { h.m.gateClosed() }
func (h *gateHW) ReleaseEStop()                             {}
func (h *gateHW) Faults() []runner.Fault                    { return nil }
func (h *gateHW) Reading(string) (float64, time.Time, bool) { return 0, time.Time{}, false }
func (h *gateHW) Env() any                                  { return nil }

type nopBinding struct{}

func (nopBinding) Snapshot(*bt.Blackboard) {}
