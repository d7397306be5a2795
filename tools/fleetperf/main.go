// Command fleetperf measures a fleet from a ground station's seat: one
// telemetry/ground client follows every robot online (a Watch each, every
// message decoded as botctl decodes it) and reports the end-to-end status
// latency (the robot's timestamp on each status change against the time it
// is decoded here), messages and bytes a second, its own CPU per message,
// and the broker's CPU and RSS read from /proc. docs/FLEET.md and
// docs/PERFORMANCE.md give the runs it produced:
//
//	botd fleet -n 300 -broker tcp://127.0.0.1:21883 &
//	go run ./tools/fleetperf -broker tcp://127.0.0.1:21883 -robots 300 -broker-pid $(pidof mosquitto) -gen-pid $!
//
// tools/fleetperf/table.sh runs the broker, the fleet, this and an e-stop
// of the whole fleet for each fleet size.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

func main() {
	brokerList := flag.String("broker", "tcp://127.0.0.1:1883", "broker URL, or a cluster's nodes comma-separated (the ground station is given them all; the probe publishes on the first and subscribes on the last)")
	kind := flag.String("broker-kind", "", "rabbitmq: subscriptions at QoS 0, as botctl --broker-kind rabbitmq (a clean session's QoS 1 subscription lives in a durable queue on one node)")
	robots := flag.Int("robots", 1, "wait until this many robots are online before measuring")
	duration := flag.Duration("duration", 30*time.Second, "measurement length")
	warmup := flag.Duration("warmup", 5*time.Second, "following every robot this long before measuring (retained messages, keyframes)")
	brokerPIDs := flag.String("broker-pid", "", "the broker's pid, or several comma-separated (a cluster's nodes, its redis): their CPU and RSS from /proc, summed")
	genPIDs := flag.String("gen-pid", "", "the fleet generator's pid, or several comma-separated (a fleet in several processes): their CPU from /proc")
	wildcard := flag.Bool("wildcard", false, "follow the robots through one wildcard subscription (ground.WatchAll) instead of a Watch each")
	cpuProfile := flag.String("cpuprofile", "", "write the ground client's CPU profile over the measurement to this file")
	wait := flag.Duration("wait", 2*time.Minute, "how long to wait for the broker and for every robot to be online before giving up")
	probeEvery := flag.Duration("probe", 20*time.Millisecond, "a probe client publishes a timestamped QoS 1 message this often to a second one through the broker, timing the broker's delivery under the fleet's load apart from the generator's (0: no probe)")
	flag.Parse()
	urls, err := transport.ParseBrokers(*brokerList)
	if err != nil {
		log.Fatalf("-broker: %v", err)
	}
	atMostOnce := false
	switch *kind {
	case "", "mosquitto", "aedes", "embedded":
	case "rabbitmq":
		atMostOnce = true
	default:
		log.Fatalf("-broker-kind %q: want rabbitmq, or none", *kind)
	}
	gens, brokers := pids("-gen-pid", *genPIDs), pids("-broker-pid", *brokerPIDs)
	sum := func(ps []int) (s float64) {
		for _, pid := range ps {
			s += cpuSeconds(pid)
		}
		return s
	}

	var (
		measuring atomic.Bool
		msgs      atomic.Uint64
		bytes     atomic.Uint64
		statuses  atomic.Uint64
		mu        sync.Mutex
		lat       []time.Duration
	)
	// Bytes as they come off the wire (MQTT framing included).
	wrap := func(c net.Conn) (net.Conn, error) {
		return &countingConn{Conn: c, measuring: &measuring, n: &bytes}, nil
	}
	g, err := ground.New(ground.Config{GCS: "fleetperf", Conn: transport.Options{Brokers: urls, WrapConn: wrap, SubscribeAtMostOnce: atMostOnce}, Queue: 65536})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *wait)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		log.Fatal(err)
	}
	var online []string
	for {
		online = online[:0]
		for _, r := range g.Robots() {
			// Online by its retained connection, or (RabbitMQ delivers no
			// retained message to a wildcard subscription) by live
			// telemetry.
			if r.Connection == protocol.ConnOnline || (r.Connection == "" && time.Since(r.LiveAt) < 5*time.Second) {
				online = append(online, r.ID)
			}
		}
		if len(online) >= *robots {
			break
		}
		if ctx.Err() != nil {
			log.Fatalf("%d robots online, waited for %d", len(online), *robots)
		}
		time.Sleep(200 * time.Millisecond)
	}

	count := func() {
		if measuring.Load() {
			msgs.Add(1)
		}
	}
	watchStart := time.Now()
	handlers := &ground.RobotHandlers{
		Status: func(m protocol.StatusMsg) {
			now := time.Now()
			count()
			if !measuring.Load() {
				return
			}
			statuses.Add(1)
			if ts, err := m.Time(); err == nil {
				mu.Lock()
				lat = append(lat, now.Sub(ts))
				mu.Unlock()
			}
		},
		// The others decoded and dropped, as a fleet view would.
		State: func(protocol.StateMsg) { count() }, Event: func(protocol.EventMsg) { count() }, Connection: func(protocol.ConnectionMsg) { count() },
		Factsheet: func(protocol.FactsheetMsg) { count() }, Tree: func(protocol.TreeMsg) { count() }, Blackboard: func(protocol.BlackboardMsg) { count() },
		Metrics: func(protocol.MetricsMsg) { count() }, Reply: func(protocol.ReplyMsg) { count() },
		Error: func(string, error) { count() },
	}
	mode := "Watch subscriptions"
	if *wildcard {
		mode = "robots through one wildcard subscription (WatchAll)"
		if _, err := g.WatchAll(func(string) *ground.RobotHandlers { return handlers }); err != nil {
			log.Fatal(err)
		}
	} else {
		for _, id := range online {
			if _, err := g.Watch(id, *handlers); err != nil {
				log.Fatalf("watch %s: %v", id, err)
			}
		}
	}
	subscribed := time.Since(watchStart)
	var probe *probeLat
	if *probeEvery > 0 {
		if probe, err = startProbe(ctx, urls[0], urls[len(urls)-1], atMostOnce, *probeEvery, &measuring); err != nil {
			log.Fatalf("probe: %v", err)
		}
		defer probe.close()
	}
	time.Sleep(*warmup)

	load0 := loadavg()
	selfCPU0 := cpuSeconds(os.Getpid())
	brokerCPU0 := sum(brokers)
	genCPU0 := sum(gens)
	dropped0 := g.Dropped()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	start := time.Now()
	measuring.Store(true)
	time.Sleep(*duration)
	measuring.Store(false)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	wall := time.Since(start).Seconds()
	selfCPU := cpuSeconds(os.Getpid()) - selfCPU0
	brokerCPU := sum(brokers) - brokerCPU0
	genSecs := sum(gens) - genCPU0
	dropped := g.Dropped() - dropped0

	mu.Lock()
	slices.Sort(lat)
	q := func(f float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(f*float64(len(lat))))]
	}
	p50, p99, pmax := q(0.5), q(0.99), q(1)
	mu.Unlock()
	n := msgs.Load()
	perMsg := time.Duration(0)
	if n > 0 {
		perMsg = time.Duration(selfCPU / float64(n) * 1e9)
	}
	follow := 0.0
	if selfCPU > 0 {
		follow = float64(len(online)) * wall / selfCPU // robots per fully used core
	}
	fmt.Printf("fleetperf %s: %d robots online, %d %s in %s; measured %.0f s (after %s warm-up); load average %s at start, %s at end; %d CPUs\n",
		time.Now().UTC().Format(time.RFC3339), len(online), len(online), mode, subscribed.Round(time.Millisecond), wall, *warmup, load0, loadavg(), runtime.NumCPU())
	genPct, genPerRobot := "-", "-"
	if len(gens) > 0 && len(online) > 0 {
		genPct = fmt.Sprintf("%.0f %%", 100*genSecs/wall)
		genPerRobot = fmt.Sprintf("%.3f %%", 100*genSecs/wall/float64(len(online)))
	}
	fmt.Println("| robots | messages/s | bytes/s | status latency p50 | p99 | max | broker CPU | broker RSS (peak) | ground client CPU | CPU per message | robots per client core | dropped | generator CPU | generator CPU a robot |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| %d | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %d | %s | %s |\n",
		len(online), float64(n)/wall, human(float64(bytes.Load())/wall), ms(p50), ms(p99), ms(pmax),
		pct(brokerCPU, wall, len(brokers)), rss(brokers), pct(selfCPU, wall, 1), perMsg.Round(100*time.Nanosecond),
		follow, dropped, genPct, genPerRobot)
	fmt.Printf("(%d status messages timed)\n", statuses.Load())
	if probe != nil {
		fmt.Println(probe.summary())
	}
}

// pids parses a flag's comma-separated pids.
func pids(name, list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" || f == "0" {
			continue
		}
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			log.Fatalf("%s: %q is not a pid", name, f)
		}
		out = append(out, pid)
	}
	return out
}

// cpuSeconds is a process's user+system CPU time from /proc (0 for pid 0).
func cpuSeconds(pid int) float64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+2:])
	// fields after the command: state(0) ... utime(11) stime(12)
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// rss is the processes' current and peak resident size, summed.
func rss(pids []int) string {
	if len(pids) == 0 {
		return "-"
	}
	var cur, peak float64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return "-"
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				cur += kb(v)
			}
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				peak += kb(v)
			}
		}
	}
	return fmt.Sprintf("%.1f MB (%.1f MB)", cur/1024, peak/1024)
}

func kb(v string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
	return f
}

// pct is cpu seconds over wall as a percentage of a core ("-" with no
// process to measure).
func pct(cpu, wall float64, procs int) string {
	if procs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*cpu/wall)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

func human(b float64) string {
	switch {
	case b >= 1e6:
		return fmt.Sprintf("%.2f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

// countingConn counts the bytes read while measuring.
type countingConn struct {
	net.Conn
	measuring *atomic.Bool
	n         *atomic.Uint64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.measuring.Load() {
		c.n.Add(uint64(n))
	}
	return n, err
}

// probeLat times the broker's delivery apart from the fleet generator: a
// publisher and a subscriber of this process's own, a message every
// interval (QoS 1, its send time in the payload), each timed from the
// publish to its arrival.
type probeLat struct {
	pub, sub transport.Conn
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	lat      []time.Duration
	sent     atomic.Uint64
	every    time.Duration
}

func startProbe(ctx context.Context, pubURL, subURL string, atMostOnce bool, every time.Duration, measuring *atomic.Bool) (*probeLat, error) {
	topic := fmt.Sprintf("fleetperf/probe/%d", os.Getpid())
	p := &probeLat{every: every, done: make(chan struct{})}
	var err error
	if p.sub, err = transport.Dial(transport.Options{Brokers: []string{subURL}, ClientID: fmt.Sprintf("fleetperf-probe-sub-%d", os.Getpid()), SubscribeAtMostOnce: atMostOnce}); err != nil {
		return nil, err
	}
	if err := p.sub.Subscribe(topic, 1, func(_ string, payload []byte) {
		now := time.Now()
		ns, err := strconv.ParseInt(string(payload), 10, 64)
		if err != nil || !measuring.Load() {
			return
		}
		p.mu.Lock()
		p.lat = append(p.lat, now.Sub(time.Unix(0, ns)))
		p.mu.Unlock()
	}); err != nil {
		p.sub.Close()
		return nil, err
	}
	if p.pub, err = transport.Dial(transport.Options{Brokers: []string{pubURL}, ClientID: fmt.Sprintf("fleetperf-probe-pub-%d", os.Getpid())}); err != nil {
		p.sub.Close()
		return nil, err
	}
	for !p.sub.IsUp() || !p.pub.IsUp() {
		select {
		case <-ctx.Done():
			p.sub.Close()
			p.pub.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	pctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-t.C:
				if measuring.Load() {
					p.sent.Add(1)
				}
				_, _ = p.pub.PublishAsync(topic, 1, false, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)))
			}
		}
	}()
	return p, nil
}

func (p *probeLat) close() {
	p.cancel()
	<-p.done
	p.pub.Close()
	p.sub.Close()
}

func (p *probeLat) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	lat := slices.Clone(p.lat)
	slices.Sort(lat)
	q := func(f float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(f*float64(len(lat))))]
	}
	return fmt.Sprintf("broker probe (a QoS 1 message every %s from a client of this process to another, through the broker; on a cluster from its first node to its last): %d sent, %d timed; p50 %s, p99 %s, max %s",
		p.every, p.sent.Load(), len(lat), ms(q(0.5)), ms(q(0.99)), ms(q(1)))
}
