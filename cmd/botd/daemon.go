package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/configs"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/drivers/sim/multicopter"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/groot2"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
	"github.com/botd-project/botd/telemetry/vda5050"
)

// runDaemon is `botd [flags]`: the daemon. With no -config it runs the
// embedded default: the simulated rover, the embedded broker and the demo
// mission.
func runDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := daemonFlags(stderr)
	configFile, broker, robot, mission, stateDir, listen := f.config, f.broker, f.robot, f.mission, f.stateDir, f.listen
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd [-config FILE] [-broker URL] [-robot ID] [-mission FILE] [-state-dir DIR] [-listen ADDR] [-groot2 HOST:PORT]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\nother commands: botd check | sim | nodes | check-config | version (botd help)")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var cfg *Config
	var err error
	if *configFile != "" {
		cfg, err = loadConfig(*configFile)
	} else {
		cfg, err = defaultConfig()
	}
	if err != nil {
		fmt.Fprintln(stderr, "botd:", err)
		return 1
	}
	if *robot != "" {
		cfg.Robot = *robot
		cfg.Broker.ClientID = "botd-" + *robot
	}
	if *broker != "" {
		if err := cfg.setBrokerFlag(*broker); err != nil {
			fmt.Fprintln(stderr, "botd:", err)
			return 2
		}
	}
	if *mission != "" {
		abs, _ := filepath.Abs(*mission)
		cfg.Mission = abs
	}
	if *stateDir != "" {
		cfg.StateDir = *stateDir
	}
	if *listen != "" {
		cfg.Broker.Embedded.Listen = *listen
	}
	if *f.groot2 != "" {
		cfg.Groot2.Listen = *f.groot2
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "botd:", err)
		return 1
	}
	log := newLogger(cfg.Log, stderr)
	slog.SetDefault(log) // Gobot logs through the standard logger
	applyMemory(cfg.Memory, os.Getenv, log)
	if err := serve(ctx, cfg, log, stdout); err != nil {
		if errors.Is(err, errLocked) {
			fmt.Fprintln(stderr, "botd: not started:", err)
			return 1
		}
		log.Error("botd stopped", "err", err)
		return 1
	}
	return 0
}

// daemonFlagValues are the daemon's flags.
type daemonFlagValues struct {
	config, broker, robot, mission, stateDir, listen *string
	groot2                                           *string
}

// daemonFlags defines the daemon's flags (botd -h lists them too).
func daemonFlags(out io.Writer) (*flag.FlagSet, daemonFlagValues) {
	fs := flag.NewFlagSet("botd", flag.ContinueOnError)
	fs.SetOutput(out)
	return fs, daemonFlagValues{
		config:   fs.String("config", "", "config file (default: the built-in simulated rover)"),
		broker:   fs.String("broker", "", "broker URL, or several comma-separated (the nodes of a cluster), overriding the config (tcp://host:1883); with none here or in the config, botd runs its embedded broker"),
		robot:    fs.String("robot", "", "robot id, overriding the config"),
		mission:  fs.String("mission", "", "mission file to load and start, overriding the config"),
		stateDir: fs.String("state-dir", "", "state directory (journal, event outbox), overriding the config (default: $BOTD_STATE_DIR, else $XDG_STATE_HOME/botd/ROBOT, else ~/.local/state/botd/ROBOT)"),
		listen:   fs.String("listen", "", "embedded broker address, overriding the config (default 127.0.0.1:1883)"),
		groot2:   fs.String("groot2", "", groot2Usage),
	}
}

func defaultConfig() (*Config, error) {
	data, err := configs.FS.ReadFile(configs.Default)
	if err != nil {
		return nil, err
	}
	return parseConfig(data, configs.FS, "built-in "+configs.Default)
}

func newLogger(c LogConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// resolveStateDir picks the state directory: state_dir (or -state-dir),
// else $BOTD_STATE_DIR, else a directory of the user's own:
// $XDG_STATE_HOME/botd/ROBOT, ~/.local/state/botd/ROBOT, or, with no home,
// botd-UID/ROBOT in the temporary directory. Two users never share one;
// two daemons of one user with the same robot id would, and the lock
// (lockStateDir) stops the second.
func resolveStateDir(c *Config) (string, error) {
	dir := c.StateDir
	if dir == "" {
		dir = os.Getenv("BOTD_STATE_DIR")
	}
	if dir == "" {
		base := os.Getenv("XDG_STATE_HOME")
		if base == "" {
			if home, err := os.UserHomeDir(); err == nil && home != "" {
				base = filepath.Join(home, ".local", "state")
			} else {
				base = filepath.Join(os.TempDir(), fmt.Sprintf("botd-%d", os.Getuid()))
			}
		}
		dir = filepath.Join(base, "botd", c.Robot)
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// system is the assembled daemon.
type system struct {
	cfg    *Config
	btlog  *groot2.Recorder // btlog.go; nil when off
	log    *slog.Logger
	hw     *drivers.Config
	world  *sim.World
	robot  *drivers.Robot
	reg    *bt.Registry
	runner *runner.Runner
	tele   *telemetry.Daemon
	vda    *vda5050.Adapter // nil without a vda5050 section
	broker *broker.Broker
	// urls are the brokers in the order this robot tries them; url is
	// the first (devices that subscribe on the robot's broker use it).
	urls   []string
	url    string
	clock  clockwork.Clock
	lock   *stateLock
	nonces *auth.NonceStore
	// mission is the configured mission, decoded, validated and ready to
	// load (nil when the config names none).
	mission   json.RawMessage
	missionID string
	fence     *drivers.Fence
	// emit publishes a daemon event (through the runner's event stream).
	emit func(protocol.Event)
	// copter is the simulated multicopter the config asked for (nil: none).
	copter *multicopter.Vehicle
	// stopCopter stops it (close calls it after closing the robot).
	stopCopter func()
}

// The runner is what telemetry reads and commands.
var (
	_ telemetry.Source         = (*runner.Runner)(nil)
	_ telemetry.StatusNotifier = (*runner.Runner)(nil)
	_ telemetry.CommandHandler = (*runner.Runner)(nil)
)

// build wires the parts together without starting anything that runs.
// Everything that can be checked is checked here, the configured mission
// included, so a bad config stops the daemon before it moves anything. On
// error it closes what it had already opened.
func build(cfg *Config, log *slog.Logger) (_ *system, err error) {
	s := &system{cfg: cfg, log: log, clock: clockwork.NewRealClock()}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	// The state directory first: a second daemon of the same robot must
	// not touch its hardware either.
	stateDir, err := resolveStateDir(cfg)
	if err != nil {
		return nil, err
	}
	if s.lock, err = lockStateDir(stateDir, cfg.Robot, s.clock.Now()); err != nil {
		return nil, err
	}
	hwData, hwName, err := cfg.hardwareYAML()
	if err != nil {
		return nil, fmt.Errorf("hardware: %w", err)
	}
	s.hw, err = deviceKinds.ParseConfig(hwData)
	if err != nil {
		return nil, fmt.Errorf("hardware (%s): %w", hwName, err)
	}
	if err := cfg.checkHardware(s.hw); err != nil { // as check-config does
		return nil, err
	}
	subs, _ := cfg.substitutions() // validated with the config
	for _, a := range s.hw.Adaptors {
		if a.Kind == drivers.BoardSim && s.world == nil {
			if s.world, err = loadWorld(cfg); err != nil {
				return nil, err
			}
		}
	}
	events := &eventForwarder{}
	s.emit = events.emit
	// The robot steps its world from the goroutine that samples the sim
	// board's sensors (one timer for both), unless the world is stepped
	// for it (botd fleet).
	step := worldStep
	if cfg.stepWorld != nil {
		step = 0
	}
	s.robot, err = drivers.Build(s.hw, drivers.Options{World: s.world, WorldStep: step, Name: cfg.Robot, Logger: log,
		Events: events.device, MQTT: mqttDialer(cfg, func() string { return s.url }, log)})
	if err != nil {
		return nil, fmt.Errorf("hardware (%s): %w", hwName, err)
	}
	s.reg = catalog.NewRegistry()
	drivers.Register(s.reg, deviceKinds, s.hw)
	var keys []string
	for _, d := range s.robot.Devices() {
		keys = append(keys, d.Keys()...)
	}
	if s.fence, err = compileFence(cfg, s.hw); err != nil {
		return nil, err
	}
	if s.fence != nil {
		s.robot.SetFence(s.fence)
	}
	if cfg.Mission != "" {
		if s.mission, s.missionID, err = configuredMission(cfg, s.reg, append(keys, cfg.Writable...), s.fence); err != nil {
			return nil, err
		}
	}
	verifier, nonces, err := commandAuth(cfg, stateDir, log, s.clock.Now)
	if err != nil {
		return nil, err
	}
	s.nonces = nonces
	authorize := authorizer(verifier, log.With("part", "auth"))
	rec, err := s.recorder(cfg, stateDir) // btlog.go
	if err != nil {
		return nil, err
	}
	s.runner, err = runner.New(withFence(runner.Config{
		Robot: cfg.Robot, TickHz: cfg.Tick.Hz, MinTickHz: cfg.Tick.MinHz, MaxTickHz: cfg.Tick.MaxHz, Spin: cfg.Tick.Spin,
		DeadmanPeriods: cfg.Tick.DeadmanPeriods, DeadmanMin: cfg.Tick.DeadmanMin,
		Registry: s.reg, Keys: keys, Writable: cfg.Writable, Hardware: hardware{s.robot},
		StateDir: filepath.Join(stateDir, "missions"), Failsafe: cfg.Failsafe.FailsafeConfig,
		Limits: cfg.Limits.Limits, MaxStored: cfg.Limits.StoredMissions, MaxStoredBytes: cfg.Limits.StoredBytes,
		Events: events.emit, Logger: log, Clock: s.clock, Substitutions: subs,
		Recorder: rec, Imports: cfg.imports(),
	}, s.fence, s.hw, s.robot))
	if err != nil {
		return nil, err
	}
	s.urls = cfg.brokers()
	if len(s.urls) == 0 {
		// The broker outlives ctx: telemetry publishes the final state and
		// OFFLINE through it after the mission stopped; close() stops it.
		cfg.brokerSecret = broker.NewSecret()
		s.broker, err = broker.Start(context.Background(), broker.Config{Addr: cfg.Broker.Embedded.Listen,
			Credentials: cfg.Broker.Embedded.CredentialsFile, MaxPacketBytes: cfg.Broker.Embedded.MaxPacketBytes, MaxClients: cfg.Broker.Embedded.MaxClients, MaxQueueBytes: cfg.Broker.Embedded.MaxQueueBytes,
			MaxTotalQueueBytes: cfg.Broker.Embedded.MaxTotalQueueBytes, Identity: cfg.brokerIdentity(), Logger: slog.New(minLevel{log.Handler(), slog.LevelWarn}).With("part", "broker")})
		if err != nil {
			return nil, fmt.Errorf("embedded broker on %s: %w (another broker running, perhaps another botd's? to join it, give this daemon a robot id of its own: -broker tcp://%s -robot NAME; or move this broker with -listen)",
				cfg.Broker.Embedded.Listen, err, cfg.Broker.Embedded.Listen)
		}
		s.urls = []string{s.broker.URL()}
	}
	s.url = s.urls[0]
	s.tele, err = telemetry.NewDaemon(telemetry.DaemonConfig{
		Robot: cfg.Robot, Prefix: cfg.Broker.TopicPrefix,
		Conn: cfg.ownConn(transport.Options{Brokers: s.urls, ClientID: cfg.Broker.ClientID, MaxReconnectInterval: cmp.Or(cfg.Broker.ReconnectMax, defaultReconnectMax),
			CAFile: cfg.Broker.CAFile, CertFile: cfg.Broker.CertFile, KeyFile: cfg.Broker.KeyFile, WrapConn: cfg.wrapConn}),
		EStopUsername: cfg.estopUsername(),
		StateDir:      stateDir, Source: s.runner, Commands: s.runner, Authorize: authorize, Factsheet: s.factsheet(),
		TelemetryHz: cfg.Telemetry.StatusHz, KeyframeEvery: cfg.Telemetry.KeyframeEvery, MaxPayload: cfg.Telemetry.MaxPayload,
		CommandRate: cfg.Telemetry.CommandRate, CommandBurst: cfg.Telemetry.CommandBurst, StaleAfter: cfg.Telemetry.StaleAfter,
		ReplyCache:  cfg.Telemetry.ReplyCache,
		StatusMaxHz: cfg.Telemetry.StatusMaxHz, BlackboardHz: cfg.Telemetry.BlackboardHz, BlackboardFullEvery: cfg.Telemetry.BlackboardFullEvery,
		Deadbands: deadbands(cfg.Telemetry.Deadbands), MetricsEvery: cfg.Telemetry.MetricsEvery,
		Link: s.runner.SetLink, Fault: s.runner.SetError, Logger: log.With("part", "telemetry"), Clock: s.clock,
		// The keepalive follows the link-loss timeout (0: the runner's 10 s).
		LinkLossTimeout: cmp.Or(cfg.Failsafe.LinkLossTimeout, 10*time.Second),
	})
	if err != nil {
		return nil, err
	}
	events.set(s.tele.EventSink())
	if err := s.buildVDA5050(stateDir); err != nil {
		return nil, err
	}
	if nonces != nil && nonces.Damaged() != "" {
		events.emit(noncesDamagedEvent(nonces.Damaged()))
	}
	return s, nil
}

func loadWorld(cfg *Config) (*sim.World, error) {
	if cfg.World == "" {
		return sim.DefaultWorld(), nil
	}
	data, err := cfg.readRelative(cfg.World)
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	w, err := sim.ParseWorld(data)
	if err != nil {
		return nil, fmt.Errorf("world %s: %w", cfg.World, err)
	}
	return w, nil
}

func (s *system) factsheet() protocol.FactsheetMsg {
	f := protocol.FactsheetMsg{Version: version, NodeTypes: s.reg.Catalog(),
		Limits: protocol.Limits{TickHz: s.cfg.Tick.Hz, MaxTickHz: s.cfg.Tick.MaxHz, MaxMissionBytes: missions.MaxDocumentBytes},
		Labels: maps.Clone(s.cfg.Labels)}
	for _, d := range s.robot.Devices() {
		f.Devices = append(f.Devices, protocol.Device{Name: d.Name(), Kind: d.Kind()})
	}
	f.Poses = poseSources(s.robot.Config())
	f.VehicleModes = vehicleModes(s.robot.Config())
	f.Geofence = fenceWire(s.fence)
	return f
}

// poseSources are the devices that write the robot's position, as the
// factsheet names them for a ground station's map: found by what their
// kind's spec can do, never by the kind's name.
func poseSources(cfg *drivers.Config) []protocol.PoseSource {
	var out []protocol.PoseSource
	for _, d := range cfg.Devices {
		switch spec := d.Spec.(type) {
		case drivers.VehicleFrame:
			out = append(out, protocol.PoseSource{Device: d.Name, Key: spec.VehicleKey(), Frame: protocol.PoseVehicle})
		case drivers.GeoReferenced:
			_, key := spec.GeoFrame()
			out = append(out, protocol.PoseSource{Device: d.Name, Key: key, Frame: protocol.PoseGeo})
		case drivers.PoseSource:
			if key := spec.PoseKey(); key != "" {
				out = append(out, protocol.PoseSource{Device: d.Name, Key: key, Frame: protocol.PoseLocal})
			}
		}
	}
	return out
}

// vehicleModes are the names of the mode numbers the robot's vehicles write
// (the first device whose spec names them: every vehicle kind names its
// modes the same way), nil when it has none.
func vehicleModes(cfg *drivers.Config) []string {
	for _, d := range cfg.Devices {
		if m, ok := d.Spec.(drivers.ModeNamer); ok {
			return m.ModeNames()
		}
	}
	return nil
}

// testBuilt, set by tests only, sees the assembled daemon before it runs.
var testBuilt func(*system)

// serve runs the daemon until ctx is done, then shuts down in order: halt
// the mission and make the robot safe, publish the final state and
// OFFLINE, disconnect, stop the broker.
func serve(ctx context.Context, cfg *Config, log *slog.Logger, stdout io.Writer) error {
	s, err := build(cfg, log)
	if err != nil {
		return err
	}
	defer s.close()
	if testBuilt != nil {
		testBuilt(s)
	}
	return s.run(ctx, stdout, true)
}

// run runs a built system until ctx is done and shuts it down in order
// (see serve). notify: this is the process's one daemon, which talks to
// systemd; the robots of `botd fleet` do not.
func (s *system) run(ctx context.Context, stdout io.Writer, notify bool) error {
	cfg, log := s.cfg, s.log
	if s.broker == nil && notify {
		// A broker others share: another daemon may already be this
		// robot. Two would take each other's client id forever; this one
		// says so and stops instead.
		if err := s.tele.ProbeOnline(ctx); err != nil {
			return err
		}
	}
	// The simulated multicopter stops in close, after the robot: the
	// vehicle's hold at shutdown must reach it.
	stopCopter, err := s.startCopter(ctx)
	if err != nil {
		return err
	}
	s.stopCopter = stopCopter
	if err := s.robot.Start(ctx); err != nil {
		return fmt.Errorf("starting the robot: %w", err)
	}
	teleCtx, stopTele := context.WithCancel(context.Background())
	defer stopTele()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.tele.Run(teleCtx); err != nil {
			errs <- fmt.Errorf("telemetry: %w", err)
		}
	}()
	s.startVDA5050(teleCtx, &wg, errs)
	if s.world != nil && cfg.stepWorld != nil {
		wg.Add(1)
		go func() { defer wg.Done(); cfg.stepWorld(ctx, s.world) }()
	}
	runnerDone := make(chan error, 1)
	go func() { runnerDone <- s.runner.Run(ctx) }()
	s.uploadFence(ctx, &wg)
	log.Info("botd running", "robot", cfg.Robot, "broker", strings.Join(s.urls, ","), "config", cfg.source)
	if s.broker != nil && stdout != nil {
		fmt.Fprintf(stdout, "botd: robot %q on the embedded broker %s; watch it with: go run ./cmd/botctl watch %s\n", cfg.Robot, s.url, cfg.Robot)
	}
	if s.mission != nil {
		wg.Add(1)
		go func() { defer wg.Done(); s.startMission(ctx) }()
	}
	if cfg.Metrics.Listen != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serveMetrics(ctx, s, cfg.Metrics.Listen); err != nil {
				log.Error("metrics endpoint", "err", err)
			}
		}()
	}
	s.enableDebug(cfg)
	if cfg.Groot2.Listen != "" {
		wg.Add(1)
		go func() { defer wg.Done(); s.serveGroot2(ctx) }()
	}
	if !notify {
		// not the process's daemon
	} else if n, err := newNotifier(s.runner.State, log); err != nil {
		log.Warn("systemd", "err", err)
	} else if n != nil {
		wg.Add(1)
		go func() { defer wg.Done(); n.run(ctx) }()
	}
	if cfg.Failsafe.EStopButton != "" {
		wg.Add(1)
		go func() { defer wg.Done(); s.watchEStopButton(ctx, cfg.Failsafe.EStopButton) }()
	}
	var runErr error
	select {
	case runErr = <-runnerDone:
	case err := <-errs:
		runErr = err
		<-ctx.Done()
		<-runnerDone
	}
	// The runner has halted the mission and made the robot safe; now
	// telemetry publishes the final state and OFFLINE, and disconnects.
	stopTele()
	wg.Wait()
	return runErr
}

func (s *system) close() {
	if s.btlog != nil {
		s.btlog.Wait() // the last run's file written and closed
	}
	if s.robot != nil {
		if err := s.robot.Close(); err != nil {
			s.log.Warn("closing the robot", "err", err)
		}
	}
	if s.stopCopter != nil {
		s.stopCopter()
	}
	if s.broker != nil {
		s.broker.Close()
	}
	if s.nonces != nil {
		if err := s.nonces.Close(); err != nil {
			s.log.Warn("closing the nonce store", "err", err)
		}
	}
	if err := s.lock.Close(); err != nil {
		s.log.Warn("releasing the state directory lock", "err", err)
	}
}

// worldStep is the longest the daemon's simulated world waits for a step
// on the real clock: the sim board's sampler also steps it before every
// read, so a sensor read at 50 Hz steps it every 20 ms. At 20 Hz, the
// default rover's rates, the world is stepped as often as the mission
// reads it; each step is a wake-up of the daemon.
const worldStep = 50 * time.Millisecond

// stepWorld advances the simulated world on the real clock (the hardware
// test, whose robot does not step it).
func stepWorld(ctx context.Context, w *sim.World) {
	t := time.NewTicker(worldStep)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			w.Step(now.Sub(last))
			last = now
		}
	}
}

// configuredMission reads, decodes and validates the config's mission
// against the robot's node types and keys, and returns it ready to load.
func configuredMission(cfg *Config, reg *bt.Registry, keys []string, fence *drivers.Fence) (_ json.RawMessage, id string, _ error) {
	data, err := cfg.readRelative(cfg.Mission)
	if err != nil {
		return nil, "", fmt.Errorf("%s: mission: %w", cfg.source, err)
	}
	subs, _ := cfg.substitutions() // validated with the config
	opts := missions.Options{Registry: reg, Keys: keys, MinTickHz: cfg.Tick.MinHz, MaxTickHz: cfg.Tick.MaxHz,
		Limits: cfg.Limits.Limits, Substitutions: subs, Imports: cfg.imports()}
	m, err := missions.Load(data, opts)
	if err == nil && fence != nil {
		err = fenceMissionCheck(fence)(m)
	}
	if err == nil {
		err = cfg.checkFailsafeTrees(m.Doc, opts)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: mission %s: %w", cfg.source, cfg.Mission, err)
	}
	// Its own form, with a BehaviorTree.CPP file's stand-ins in place:
	// what the runner loads (strictly) and keeps in its journal.
	doc, err := m.Resolved()
	if err != nil {
		return nil, "", fmt.Errorf("%s: mission %s: %w", cfg.source, cfg.Mission, err)
	}
	if doc.ID == "" {
		// A stable id per mission name, so restarts update the same mission.
		doc.ID = uuid.NewSHA1(uuid.NameSpaceURL, []byte("botd:mission:"+doc.Name)).String()
	}
	js, err := doc.JSON()
	if err != nil {
		return nil, "", fmt.Errorf("%s: mission %s: %w", cfg.source, cfg.Mission, err)
	}
	return js, doc.ID, nil
}

// startMission loads and starts the configured mission, as a ground
// station would. It was validated at start; the runner may still refuse it
// (a stored mission with the same id and revision but other content).
func (s *system) startMission(ctx context.Context) {
	if m, ok := s.runner.Interrupted(); ok {
		// A mission was running when botd stopped (a crash, a power cut,
		// Ctrl-C): the configured one must not drive off in its place.
		msg := fmt.Sprintf("the configured mission (%s) was not started: mission %q (%s) was interrupted when botd stopped; send mission.resume to run it again, or mission.start with an id to run another",
			s.cfg.Mission, m.Name, m.ID)
		s.log.Warn("configured mission not started", "file", s.cfg.Mission, "interrupted", m.ID, "name", m.Name)
		s.emit(protocol.Event{Kind: "mission.not_started", Level: "warning", Mission: s.missionID, Message: msg,
			Data: map[string]any{"interrupted": m.ID, "file": s.cfg.Mission}})
		return
	}
	start := s.waitSensors(ctx) // sensorwait.go
	if ctx.Err() != nil {
		return
	}
	if start {
		s.waitVehicles(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep := s.runner.Do(cctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: s.mission, Start: start, Replace: true})
	if !rep.OK {
		s.log.Error("mission refused", "file", s.cfg.Mission, "code", rep.Error.Code, "err", rep.Error.Message)
		return
	}
	if start {
		s.log.Info("mission started", "file", s.cfg.Mission, "id", s.missionID)
	}
}

// watchEStopButton e-stops the robot while the configured button reads
// pressed.
func (s *system) watchEStopButton(ctx context.Context, device string) {
	key := "bump." + device
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if v, _, ok := s.robot.Reading(key); ok && v != 0 {
			if st := s.runner.State(); !st.EStop {
				s.log.Warn("e-stop button pressed", "device", device)
				s.runner.Do(ctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpEStop})
			}
		}
	}
}

// eventForwarder lets the runner be built before telemetry's sink exists.
type eventForwarder struct {
	mu   sync.Mutex
	sink telemetry.EventSink
}

func (f *eventForwarder) set(s telemetry.EventSink) { f.mu.Lock(); f.sink = s; f.mu.Unlock() }

func (f *eventForwarder) emit(e protocol.Event) {
	f.mu.Lock()
	sink := f.sink
	f.mu.Unlock()
	if sink != nil {
		sink(e)
	}
}

// The failsafe actions land and return_home reach the robot's vehicles, and
// the runner sets and rearms the robot's deadman.
var (
	_ runner.Vehicles = hardware{}
	_ runner.Deadman  = hardware{}
	_ runner.Settler  = hardware{}
)

// hardware adapts drivers.Robot to runner.Hardware.
type hardware struct{ r *drivers.Robot }

func (h hardware) Bind(t *bt.Tree) runner.Binding { return h.r.Bind(t) }
func (h hardware) Apply() error                   { return h.r.Apply() }
func (h hardware) Safe() error                    { return h.r.Safe() }
func (h hardware) ReleaseEStop()                  { h.r.ReleaseEStop() }
func (h hardware) Env() any                       { return h.r }
func (h hardware) SetDeadman(d time.Duration)     { h.r.SetDeadman(d) }
func (h hardware) Rearm()                         { h.r.Rearm() }

func (h hardware) Deadman() (bool, time.Time, uint64) { return h.r.Deadman() }
func (h hardware) Settle(ctx context.Context) error   { return h.r.Settle(ctx) }

func (h hardware) EStop(reason string) {
	if err := h.r.EStop(reason); err != nil {
		slog.Error("e-stop: an actuator did not reach its safe state", "err", err)
	}
}

// Failsafe carries out a vehicle failsafe action (runner.Vehicles).
func (h hardware) Failsafe(action string) (bool, error) { return h.r.Failsafe(action) }

func (h hardware) Reading(key string) (float64, time.Time, bool) { return h.r.Reading(key) }

func (h hardware) Faults() []runner.Fault {
	fs := h.r.Faults()
	out := make([]runner.Fault, len(fs))
	for i, f := range fs {
		out[i] = runner.Fault{Device: f.Device, Key: f.Key, Code: f.Code, Message: f.Message, Since: f.Since}
	}
	return out
}

// minLevel drops records below a level (the broker is chatty at INFO).
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.min} }
