// Command botperf measures the daemon the way docs/PERFORMANCE.md reports
// it: tick jitter and overruns at several rates with telemetry on, the
// latency from a node-status change to a subscriber through a broker,
// telemetry bytes per second, and the RSS and CPU of a botd process
// idle-ticking a 100-node tree.
//
//	go run ./tools/botperf -seconds 30                         # embedded broker
//	go run ./tools/botperf -seconds 30 -mosquitto              # also through Debian's mosquitto
//	go run ./tools/botperf -seconds 30 -botd /tmp/botd         # also RSS/CPU of a botd process
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

func main() {
	seconds := flag.Int("seconds", 30, "length of each measurement")
	rates := flag.String("rates", "50,100,500", "tick rates for the jitter runs")
	spin := flag.Duration("spin", 800*time.Microsecond, "also measure jitter with this tick.spin (0: skip)")
	useMosq := flag.Bool("mosquitto", false, "also measure through mosquitto (must be installed)")
	botdBin := flag.String("botd", "", "a botd binary: measure its RSS and CPU at 20 Hz")
	tree := flag.String("tree", "bt/testdata/reference-tree.json", "the 100-node reference tree")
	flag.Parse()
	ref, err := os.ReadFile(*tree)
	if err != nil {
		log.Fatal(err)
	}
	d := time.Duration(*seconds) * time.Second
	fmt.Printf("botperf: %v per run, GOMAXPROCS default, %s\n\n", d, time.Now().UTC().Format(time.RFC3339))

	fmt.Println("| tick rate | spin | ticks | jitter p50 | p99 | max | overruns | CPU (whole process) |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	spins := []time.Duration{0}
	if *spin > 0 {
		spins = append(spins, *spin)
	}
	for _, sp := range spins {
		for _, r := range strings.Split(*rates, ",") {
			hz, _ := strconv.ParseFloat(r, 64)
			if hz <= 0 {
				continue
			}
			spinFor = sp
			res := measure(ref, hz, 10, d, "")
			fmt.Printf("| %v Hz | %v | %d | %d µs | %d µs | %d µs | %d | %.1f %% |\n", hz, sp, res.ticks, res.p50, res.p99, res.max, res.overruns, res.cpu)
		}
	}
	spinFor = 0

	fmt.Println("\n| broker | tick / telemetry rate | status messages with a change | latency p50 | p99 | max | telemetry bytes/s |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	for _, tel := range []float64{10, 20} {
		res := measure(ref, 20, tel, d, "")
		res.printLatency("embedded", 20, tel)
	}
	if *useMosq {
		url, stop, err := startMosquitto()
		if err != nil {
			log.Fatal(err)
		}
		for _, tel := range []float64{10, 20} {
			res := measure(ref, 20, tel, d, url)
			res.printLatency("mosquitto", 20, tel)
		}
		stop()
	}
	if *botdBin != "" {
		rss, cpu, err := measureProcess(*botdBin, ref, d)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("\nbotd process at 20 Hz idle-ticking a %d-node tree (sim rover, embedded broker, telemetry on): RSS %.1f MiB, CPU %.2f %% of one core\n",
			101, float64(rss)/(1<<20), cpu)
	}
}

// spinFor is the tick.spin of the next measurement.
var spinFor time.Duration

type result struct {
	cpu             float64 // % of one core used by this process during the run
	ticks, overruns uint64
	p50, p99, max   int64
	lat             []time.Duration
	msgs            int // status messages with a change
	keyframes       int // periodic keyframes (not latencies unless they carry a change)
	bytesPerSec     float64
}

func (r result) printLatency(broker string, hz, tel float64) {
	sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	q := func(p float64) time.Duration {
		if len(r.lat) == 0 {
			return 0
		}
		return r.lat[min(len(r.lat)-1, int(p/100*float64(len(r.lat))))]
	}
	fmt.Printf("| %s | %v / %v Hz | %d (+%d keyframes) | %.1f ms | %.1f ms | %.1f ms | %.0f |\n", broker, hz, tel, r.msgs, r.keyframes,
		ms(q(50)), ms(q(99)), ms(q(100)), r.bytesPerSec)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// countdown is the reference tree's benchmark leaf (BENCH-TREE.md).
type countdown struct {
	key   bt.Slot
	reset float64
}

func (c *countdown) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	v, _ := a.BB.Number(c.key)
	if v--; v > 0 {
		a.BB.SetNumber(c.key, v)
		return bt.Running
	}
	a.BB.SetNumber(c.key, c.reset)
	return bt.Success
}

func registry() *bt.Registry {
	r := catalog.NewRegistry()
	r.Register(bt.NodeType{Name: "Countdown", Kind: bt.Leaf,
		Params: []bt.Param{{Name: "key", Type: bt.TKey, Required: true}, {Name: "reset", Type: bt.TNumber, Required: true}},
		New: func(b *bt.Builder) bt.Behavior {
			return &countdown{key: b.KeyParam("key"), reset: b.Number("reset").V}
		}})
	return r
}

// forever wraps the reference tree in a Repeater so it never ends, sets
// its rate and gives it an id.
func forever(ref []byte, hz float64) json.RawMessage {
	var doc map[string]any
	json.Unmarshal(ref, &doc)
	trees := doc["trees"].(map[string]any)
	trees["main"] = map[string]any{"type": "Repeater", "params": map[string]any{"count": -1}, "children": []any{trees["main"]}}
	doc["tick_hz"] = hz
	doc["id"] = uuid.NewString()
	js, _ := json.Marshal(doc)
	return js
}

// measure runs a runner with telemetry for d and a ground subscriber.
func measure(ref []byte, hz, telHz float64, d time.Duration, brokerURL string) result {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	if brokerURL == "" {
		b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
		if err != nil {
			log.Fatal(err)
		}
		defer b.Close()
		brokerURL = b.URL()
	}
	dir, _ := os.MkdirTemp("", "botperf")
	defer os.RemoveAll(dir)
	robot := "perf-" + uuid.NewString()[:8]
	r, err := runner.New(runner.Config{Robot: robot, TickHz: hz, MaxTickHz: 1000, Registry: registry(), Logger: quiet, Spin: spinFor,
		Failsafe: runner.FailsafeConfig{LinkLossTimeout: -1}})
	if err != nil {
		log.Fatal(err)
	}
	tele, err := telemetry.NewDaemon(telemetry.DaemonConfig{Robot: robot, Conn: transport.Options{Brokers: []string{brokerURL}},
		StateDir: dir, Source: r, Commands: r, TelemetryHz: telHz, Link: r.SetLink, Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.Run(ctx) }()
	teleCtx, stopTele := context.WithCancel(context.Background())
	go func() { defer wg.Done(); tele.Run(teleCtx) }()

	g, err := ground.New(ground.Config{GCS: "perf", Conn: transport.Options{Brokers: []string{brokerURL}}, Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	var res result
	var mu sync.Mutex
	var measuring atomic.Bool
	var bytes atomic.Int64
	// A second client counts the bytes of everything the robot sends.
	topics, _ := protocol.NewTopics(protocol.DefaultPrefix, robot)
	counter, err := transport.Dial(transport.Options{Brokers: []string{brokerURL}, ClientID: "perf-bytes-" + robot,
		Subscriptions: []transport.Subscription{{Filter: topics.All(), QoS: 0, Handler: func(topic string, payload []byte) {
			if measuring.Load() {
				bytes.Add(int64(len(payload) + len(topic)))
			}
		}}}})
	if err != nil {
		log.Fatal(err)
	}
	defer counter.Close()
	// known is every node's status letter as the messages so far give it.
	var known []byte
	g.Watch(robot, ground.RobotHandlers{Status: func(m protocol.StatusMsg) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		// A keyframe is the periodic full copy (every 5 s): its tick_ts
		// is the last tick's, whether anything changed then or not, so
		// its age is not a latency. It counts only when it carries a
		// change no delta has (taken between a tick and that tick's
		// delta).
		carries := len(m.Changes) > 0
		if m.Keyframe != "" {
			carries = known != nil && m.Keyframe != string(known)
			known = []byte(m.Keyframe)
		} else {
			for _, c := range m.Changes {
				if c.Node >= 0 && int(c.Node) < len(known) {
					known[c.Node] = c.Status
				}
			}
		}
		if !measuring.Load() || m.TickTS == "" {
			return
		}
		if m.Keyframe != "" {
			res.keyframes++
		}
		if !carries {
			return
		}
		t, err := protocol.ParseTS(m.TickTS)
		if err != nil {
			return
		}
		res.lat = append(res.lat, now.Sub(t))
		res.msgs++
	}})
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	g.WaitUp(wctx)
	wcancel()
	rep := r.Do(ctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: forever(ref, hz), Start: true})
	if !rep.OK {
		log.Fatalf("mission refused: %+v", rep.Error)
	}
	time.Sleep(time.Second) // warm up
	_, _, _, t0, o0 := r.Stats().RunJitter()
	measuring.Store(true)
	start := time.Now()
	c0 := cpuTicks(os.Getpid())
	time.Sleep(d)
	measuring.Store(false)
	elapsed := time.Since(start)
	res.cpu = float64(cpuTicks(os.Getpid())-c0) / 100 / elapsed.Seconds() * 100
	res.p50, res.p99, res.max, res.ticks, res.overruns = r.Stats().RunJitter()
	res.ticks -= t0
	res.overruns -= o0
	res.bytesPerSec = float64(bytes.Load()) / elapsed.Seconds()
	cancel()
	time.Sleep(100 * time.Millisecond)
	stopTele()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return res
}

func startMosquitto() (string, func(), error) {
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		return "", nil, err
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	dir, _ := os.MkdirTemp("", "botperf-mosq")
	conf := filepath.Join(dir, "m.conf")
	// set_tcp_nodelay: mosquitto leaves Nagle's algorithm on by default,
	// which holds small QoS 0 messages back for up to ~40 ms.
	os.WriteFile(conf, []byte("listener "+port+" 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"), 0o644)
	cmd := exec.Command(bin, "-c", conf)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "tcp://127.0.0.1:" + port, func() { cmd.Process.Kill(); cmd.Wait(); os.RemoveAll(dir) }, nil
}

// measureProcess runs botd idle-ticking the reference tree (Countdown
// replaced by a 150 ms Wait: RUNNING three ticks at 20 Hz, then SUCCESS)
// and reads its RSS and CPU time from /proc.
func measureProcess(bin string, ref []byte, d time.Duration) (rss int64, cpuPct float64, err error) {
	dir, _ := os.MkdirTemp("", "botperf-proc")
	defer os.RemoveAll(dir)
	s := strings.ReplaceAll(string(forever(ref, 20)), `"type":"Countdown"`, `"type":"Wait"`)
	var doc map[string]any
	json.Unmarshal([]byte(s), &doc)
	replaceCountdown(doc)
	js, _ := json.Marshal(doc)
	mission := filepath.Join(dir, "ref.json")
	os.WriteFile(mission, js, 0o644)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-listen", addr, "-state-dir", dir, "-mission", mission)
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	time.Sleep(3 * time.Second)
	c0 := cpuTicks(cmd.Process.Pid)
	t0 := time.Now()
	time.Sleep(d)
	c1 := cpuTicks(cmd.Process.Pid)
	cpuPct = float64(c1-c0) / 100 / time.Since(t0).Seconds() * 100 // USER_HZ = 100
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss = kb * 1024
		}
	}
	return rss, cpuPct, nil
}

// replaceCountdown turns Countdown leaves into Waits of 150 ms.
func replaceCountdown(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "Wait" {
			x["params"] = map[string]any{"ms": 150}
		}
		for _, c := range x {
			replaceCountdown(c)
		}
	case []any:
		for _, c := range x {
			replaceCountdown(c)
		}
	}
}

func cpuTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}
