package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// botd fleet: N simulated robots in one process, each the daemon as
// `botd` builds it (build, then run: the runner, the simulated board and
// world, telemetry with its two MQTT connections, the event outbox and
// journal in a state directory of its own), so a broker and the ground
// stations can be loaded with a fleet from one machine.

const (
	// maxFleet bounds -n.
	maxFleet = 5000
	// fdsPerRobot is what one robot holds open: two MQTT connections, the
	// state directory lock, the journal and a few files the outbox opens
	// while it writes (measured: 4 a robot, 2026-11-24), with room to spare.
	fdsPerRobot = 8
	// fdsSpare is kept for the process itself (stdio, the embedded broker's
	// listener, Go's runtime).
	fdsSpare = 64
)

// fdLimitNow is fdLimit (a test lowers it).
var fdLimitNow = fdLimit

// fleetFlags are botd fleet's flags.
type fleetFlags struct {
	n, first                int
	listen                  string
	config, broker, pattern string
	stateDir, mission       string
	labels                  string
	every, duration, slow   time.Duration
	ramp                    float64
	outboxBehind            int
	quiet                   bool
	logLevel                string
	cpuProfile              string
	labelMap                map[string]string
	ids                     []string
}

func runFleet(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("botd fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f fleetFlags
	fs.IntVar(&f.n, "n", 10, fmt.Sprintf("how many simulated robots (1 to %d, and as many as the open-file limit allows)", maxFleet))
	fs.StringVar(&f.config, "config", "", "config every robot starts from (default: the built-in simulated rover with its demo mission)")
	fs.StringVar(&f.broker, "broker", "", "broker URL, or several comma-separated (each robot orders them its own way), overriding the config; with none, one embedded broker serves the fleet")
	fs.StringVar(&f.pattern, "robot", "rover-%04d", "robot id pattern: one integer verb, numbered from -first")
	fs.IntVar(&f.first, "first", 1, "the first robot's number (several fleet processes on one broker: -n 500 -first 1, -n 500 -first 501)")
	fs.StringVar(&f.listen, "listen", "", "the embedded broker's address (host:port) when no broker is given (default: the config's broker.embedded.listen)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directories go in DIR/ROBOT (default: a temporary directory in memory, /dev/shm, where there is one, else in $TMPDIR; removed at exit)")
	fs.StringVar(&f.mission, "mission", "", "mission file every robot loads and starts, overriding the config")
	fs.StringVar(&f.labels, "labels", "", "labels added to every robot's: KEY=VALUE,... (the robot's index is label fleet.index)")
	fs.DurationVar(&f.every, "report", 5*time.Second, "report interval")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (default: run until interrupted)")
	fs.DurationVar(&f.slow, "slow", 500*time.Millisecond, "a robot whose slowest broker acknowledgement in a report interval took longer is reported as falling behind")
	fs.IntVar(&f.outboxBehind, "outbox-behind", 16, "a robot with more events waiting for the broker than this is reported as falling behind")
	fs.Float64Var(&f.ramp, "ramp", 100, "robots started per second (a gentler connect storm)")
	fs.BoolVar(&f.quiet, "quiet", false, "no report lines, only the summary")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write the fleet process's CPU profile (pprof) over the run to this file")
	fs.StringVar(&f.logLevel, "log", "error", "the robots' log level (debug, info, warn, error): a fleet's warnings are many")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd fleet -n N [-config FILE] [-broker URL] [flags]\n\nruns N simulated robots in one process, each the full daemon with its own MQTT connections, id, state directory and mission, and reports their traffic and any robot that falls behind")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if err := f.validate(); err != nil {
		fmt.Fprintln(stderr, "botd fleet:", err)
		return 2
	}
	var base *Config
	var err error
	if f.config != "" {
		base, err = loadConfig(f.config)
	} else {
		base, err = defaultConfig()
	}
	if err != nil {
		fmt.Fprintln(stderr, "botd fleet:", err)
		return 1
	}
	if err := simulatedOnly(base); err != nil {
		fmt.Fprintln(stderr, "botd fleet:", err)
		return 1
	}
	if err := runFleetWith(ctx, &f, base, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "botd fleet:", err)
		return 1
	}
	return 0
}

// simulatedOnly refuses a config with real boards: N robots in one process
// would drive the same pins N times.
func simulatedOnly(c *Config) error {
	data, name, err := c.hardwareYAML()
	if err != nil {
		return fmt.Errorf("hardware: %w", err)
	}
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		return fmt.Errorf("hardware (%s): %w", name, err)
	}
	var real []string
	for n, a := range hw.Adaptors {
		if a.Kind != drivers.BoardSim {
			real = append(real, fmt.Sprintf("%s (%s)", n, a.Kind))
		}
	}
	if len(real) > 0 {
		sort.Strings(real)
		return fmt.Errorf("runs simulated robots only; %s has real boards: %s", c.source, strings.Join(real, ", "))
	}
	return nil
}

// validate bounds the flags before anything is built.
func (f *fleetFlags) validate() error {
	if f.n < 1 || f.n > maxFleet {
		return fmt.Errorf("-n %d: want 1 to %d", f.n, maxFleet)
	}
	if lim := fdLimitNow(); lim > 0 && uint64(f.n)*fdsPerRobot+fdsSpare > lim {
		return fmt.Errorf("-n %d needs about %d open files (%d a robot), the limit is %d: raise it (ulimit -n) or run fewer",
			f.n, f.n*fdsPerRobot+fdsSpare, fdsPerRobot, lim)
	}
	if strings.Count(strings.ReplaceAll(f.pattern, "%%", ""), "%") != 1 {
		return fmt.Errorf("-robot %q: want exactly one integer verb, such as rover-%%04d", f.pattern)
	}
	if f.broker != "" {
		if _, err := transport.ParseBrokers(f.broker); err != nil {
			return fmt.Errorf("-broker: %w", err)
		}
	}
	seen := make(map[string]bool, f.n)
	f.ids = make([]string, f.n)
	for i := range f.n {
		id := fmt.Sprintf(f.pattern, f.first+i)
		if strings.Contains(id, "%!") {
			return fmt.Errorf("-robot %q: want exactly one integer verb, such as rover-%%04d", f.pattern)
		}
		if err := protocol.ValidRobotID(id); err != nil {
			return fmt.Errorf("-robot %q makes %q: %v", f.pattern, id, err)
		}
		if seen[id] {
			return fmt.Errorf("-robot %q makes %q twice", f.pattern, id)
		}
		seen[id] = true
		f.ids[i] = id
	}
	switch f.logLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("-log %q: want debug, info, warn or error", f.logLevel)
	}
	if f.first < 0 || f.first > 1_000_000_000 {
		return fmt.Errorf("-first %d: want 0 to 1000000000", f.first)
	}
	if f.listen != "" {
		if _, _, err := net.SplitHostPort(f.listen); err != nil {
			return fmt.Errorf("-listen %q: want host:port", f.listen)
		}
		if f.broker != "" {
			return errors.New("-listen is the embedded broker's address: not with -broker")
		}
	}
	if f.every <= 0 || f.duration < 0 || f.slow <= 0 || f.ramp <= 0 || f.outboxBehind < 0 {
		return errors.New("-report, -slow and -ramp must be positive, -duration and -outbox-behind not negative")
	}
	f.labelMap = map[string]string{}
	if f.labels != "" {
		for _, kv := range strings.Split(f.labels, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("-labels: %q is not KEY=VALUE", kv)
			}
			f.labelMap[k] = v
		}
		if err := protocol.ValidLabels(f.labelMap); err != nil {
			return fmt.Errorf("-labels: %w", err)
		}
	}
	return nil
}

// memTempDir is /dev/shm when it is a directory this process may write
// (a tmpfs on Linux), else "" (os.TempDir).
func memTempDir() string {
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err != nil || !fi.IsDir() {
		return ""
	}
	f, err := os.CreateTemp(shm, "botd-fleet-probe-")
	if err != nil {
		return ""
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return shm
}

// fleetRobot is one robot of the fleet.
type fleetRobot struct {
	id    string
	s     *system
	meter *wireMeter
	done  chan struct{}
	err   error

	// previous report's counters
	overruns uint64
}

// robotConfig is robot i's config: the base one with its own id, client
// id, state directory, labels and broker.
func (f *fleetFlags) robotConfig(base *Config, i int, urls []string, stateBase string) (*Config, error) {
	c := *base
	c.Robot = f.ids[i]
	c.Broker.ClientID = "botd-" + c.Robot
	c.Broker.URL, c.Broker.URLs = "", urls // each robot orders them its own way (build)
	c.StateDir = filepath.Join(stateBase, c.Robot)
	c.Labels = make(map[string]string, len(base.Labels)+len(f.labelMap)+1)
	for k, v := range base.Labels {
		c.Labels[k] = v
	}
	for k, v := range f.labelMap {
		c.Labels[k] = v
	}
	c.Labels["fleet.index"] = fmt.Sprint(f.first + i)
	c.Metrics.Listen = ""       // one endpoint per process at most: none
	c.Failsafe.EStopButton = "" // no one presses a simulated robot's button
	c.Writable = append([]string(nil), base.Writable...)
	if f.mission != "" {
		abs, err := filepath.Abs(f.mission)
		if err != nil {
			return nil, err
		}
		c.Mission = abs
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func runFleetWith(ctx context.Context, f *fleetFlags, base *Config, stdout, stderr io.Writer) (err error) {
	log := newLogger(LogConfig{Level: f.logLevel, Format: base.Log.Format}, stderr)
	slog.SetDefault(log)

	urls := base.Broker.URLs
	if base.Broker.URL != "" {
		urls = []string{base.Broker.URL}
	}
	if f.broker != "" {
		if urls, err = transport.ParseBrokers(f.broker); err != nil {
			return fmt.Errorf("-broker: %w", err)
		}
	}
	// On the broker the fleet runs itself, the robots' client ids are kept
	// for the robots (one secret for all: they share this process).
	secret := ""
	if len(urls) == 0 {
		secret = broker.NewSecret()
		ids := make([]string, len(f.ids))
		for i, id := range f.ids {
			ids[i] = "botd-" + id
		}
		listen := cmp.Or(f.listen, base.Broker.Embedded.Listen)
		b, err := broker.Start(context.Background(), broker.Config{Addr: listen,
			Credentials: base.Broker.Embedded.CredentialsFile, MaxPacketBytes: base.Broker.Embedded.MaxPacketBytes,
			MaxClients: 2*f.n + 16, MaxQueueBytes: base.Broker.Embedded.MaxQueueBytes,
			// A ground station gets every robot's retained topics at once.
			MaxQueueMessages:   max(1024, 4*f.n),
			MaxTotalQueueBytes: base.Broker.Embedded.MaxTotalQueueBytes, Identity: &broker.Identity{IDs: ids, Secret: secret},
			Logger: slog.New(minLevel{log.Handler(), slog.LevelWarn}).With("part", "broker")})
		if err != nil {
			return fmt.Errorf("embedded broker on %s: %w (give one with -broker, or another address with -listen)", listen, err)
		}
		defer b.Close()
		urls = []string{b.URL()}
		fmt.Fprintf(stdout, "botd fleet: embedded broker %s\n", b.URL())
	}
	stateBase := f.stateDir
	if stateBase == "" {
		// In memory where possible: a thousand robots' journals and
		// outboxes synced to one disk would measure that disk (and load
		// it for everyone else), where each real robot has its own.
		if stateBase, err = os.MkdirTemp(memTempDir(), "botd-fleet-"); err != nil {
			return err
		}
		defer os.RemoveAll(stateBase)
	}

	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := pf.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("-cpuprofile: %w", cerr)
			}
		}()
	}

	acks := &latencyHist{}
	stepCtx, stopStepping := context.WithCancel(context.Background())
	worlds := &worldStepper{ctx: stepCtx}
	defer func() { stopStepping(); worlds.running.Wait() }()
	robots := make([]*fleetRobot, 0, f.n)
	defer func() {
		for _, r := range robots {
			r.s.close()
		}
	}()
	for i := range f.n {
		cfg, err := f.robotConfig(base, i, urls, stateBase)
		if err != nil {
			return fmt.Errorf("%s: %w", f.ids[i], err)
		}
		m := &wireMeter{acks: acks, now: time.Now}
		cfg.wrapConn = m.wrap
		cfg.brokerSecret = secret
		cfg.stepWorld = worlds.step
		s, err := build(cfg, log.With("robot", cfg.Robot))
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.Robot, err)
		}
		robots = append(robots, &fleetRobot{id: cfg.Robot, s: s, meter: m, done: make(chan struct{})})
	}

	runCtx := ctx
	if f.duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, f.duration)
		defer cancel()
	}
	fmt.Fprintf(stdout, "botd fleet: %d robots (%s ... %s) on %s, started %g a second\n", f.n, f.ids[0], f.ids[f.n-1], strings.Join(urls, ","), f.ramp)

	var wg sync.WaitGroup
	rep := newFleetReport(f, robots, acks)
	repDone := make(chan struct{})
	go func() {
		defer close(repDone)
		rep.loop(runCtx, stdout)
	}()
	started := 0
	gap := time.Duration(float64(time.Second) / f.ramp)
	next := time.Now()
start:
	for _, r := range robots {
		if d := time.Until(next); d > 0 {
			select {
			case <-runCtx.Done():
				break start
			case <-time.After(d):
			}
		} else if runCtx.Err() != nil {
			break
		}
		next = next.Add(gap)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(r.done)
			r.err = r.s.run(runCtx, nil, false)
		}()
		started++
		rep.started.Store(int64(started))
	}
	<-runCtx.Done()
	stopping := time.Now()
	wg.Wait()
	<-repDone
	rep.summary(stdout, started, time.Since(stopping))
	var errs []error
	for _, r := range robots[:started] {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.id, r.err))
		}
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errors.Join(errs...)
	}
	return nil
}
