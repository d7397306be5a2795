package runner

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/bt/fsm"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Hardware is what the runner needs from the robot (drivers.Robot behind
// an adapter): sensor snapshots, applying actuator commands, the safe
// state and the e-stop gate. EStop and ReleaseEStop may be called from
// any goroutine; the rest only from the tick goroutine.
type Hardware interface {
	// Bind resolves the sensor keys of a tree once.
	Bind(t *bt.Tree) Binding
	// Apply writes the actuator commands of this tick.
	Apply() error
	// Safe puts every actuator in its safe state.
	Safe() error
	// EStop forces the safe state and refuses commands until released.
	EStop(reason string)
	ReleaseEStop()
	// Faults lists current device problems (stale or failing sensors).
	Faults() []Fault
	// Reading returns the latest value of a sensor key.
	Reading(key string) (v float64, at time.Time, ok bool)
	// Env is what device leaves find in bt.Agent.Env.
	Env() any
}

// Binding copies the latest sensor samples into a blackboard.
type Binding interface {
	Snapshot(bb *bt.Blackboard)
}

// Fault is a device problem.
type Fault struct {
	Device  string
	Key     string
	Code    string
	Message string
	Since   time.Time
}

// Config configures a Runner.
type Config struct {
	Robot string
	// TickHz is the default rate; missions may ask for another within
	// [MinTickHz, MaxTickHz].
	TickHz, MinTickHz, MaxTickHz float64
	// Spin wakes the loop this long before each deadline and waits the
	// rest actively (runtime.Gosched), trading CPU for less jitter.
	Spin time.Duration
	// DeadmanPeriods and DeadmanMin set the deadman under the tick (a
	// Hardware that is also a Deadman): the actuators go to their safe
	// state on their own when no tick has applied commands for this many
	// periods of the current rate, and never sooner than DeadmanMin
	// [4 periods, 100 ms]. A tick running that long also shows in the
	// state as TICK_STALLED.
	DeadmanPeriods float64
	DeadmanMin     time.Duration
	// SettleTimeout bounds how long shutdown waits for the safe state to
	// be confirmed (a Hardware that is a Settler) [5 s].
	SettleTimeout time.Duration
	// Registry holds the node types missions may use.
	Registry *bt.Registry
	// Keys are the sensor and operator keys every mission can read.
	Keys []string
	// Writable keys may be set by the blackboard.set command.
	Writable []string
	// Hardware is the robot; nil runs missions of built-in nodes only.
	Hardware Hardware
	// StateDir holds the journal; "" keeps nothing across restarts.
	StateDir string
	// Limits bound every mission document and compiled tree (zero
	// fields: missions.DefaultLimits).
	Limits missions.Limits
	// Imports are the defaults for what an imported mission file leaves
	// out (who flies a plan without "fly"): the daemon config's.
	Imports missions.ImportDefaults
	// Substitutions stand scripted nodes in for others in every mission
	// (a simulated robot's config; botd refuses them on real hardware).
	Substitutions missions.Substitutions
	// Recorder, when set, records each run (recorder.go).
	Recorder Recorder
	// MaxStored and MaxStoredBytes bound the missions kept: past either,
	// the oldest that is not running is dropped, with an event [32, 16 MiB].
	MaxStored      int
	MaxStoredBytes int
	Failsafe       FailsafeConfig
	// Geofence, when set, is checked once per tick before the mission: a
	// breach halts it and runs the fence's action (geofence.go).
	Geofence Geofence
	// CheckMission, when set, checks a mission beyond its document and
	// tree (its targets against the geofence) when it is loaded; the
	// problems (bt.Problems) refuse it.
	CheckMission func(*missions.Mission) error
	// ReturnHome, when set, is botd's own return home: the tree a
	// return_home action runs for the running mission (returnhome.go).
	ReturnHome ReturnHomeFunc
	Events     func(protocol.Event)
	Logger     *slog.Logger
	// Clock is the one clock of the tick loop, the failsafes and the
	// journal [the real clock]; tests give a fake one.
	Clock clockwork.Clock
}

func (c *Config) setDefaults() {
	if c.TickHz == 0 {
		c.TickHz = 20
	}
	if c.MinTickHz == 0 {
		c.MinTickHz = 1
	}
	if c.MaxTickHz == 0 {
		c.MaxTickHz = 500
	}
	if c.DeadmanPeriods <= 0 {
		c.DeadmanPeriods = 4
	}
	if c.DeadmanMin <= 0 {
		c.DeadmanMin = 100 * time.Millisecond
	}
	if c.SettleTimeout <= 0 {
		c.SettleTimeout = 5 * time.Second
	}
	if c.MaxStored <= 0 {
		c.MaxStored = 32
	}
	if c.MaxStoredBytes <= 0 {
		c.MaxStoredBytes = 16 << 20
	}
	if c.Registry == nil {
		c.Registry = catalog.NewRegistry()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	c.Failsafe.setDefaults()
}

// Runner owns the tick loop: it runs one mission at a time for the robot,
// takes commands between ticks, supervises failsafes and exposes what
// telemetry publishes (it implements Source and CommandHandler).
type Runner struct {
	cfg   Config
	log   *slog.Logger
	cmds  chan *pending
	stats TickStats
	jrnl  *journal

	// Owned by the tick goroutine.
	store    map[string]*stored
	run      *activeRun
	mode     *fsm.Machine[*Runner]
	modeMem  fsm.Memory
	estop    bool
	fs       failsafe
	hz       float64
	reschedT bool
	operator map[string]bt.Value // blackboard.set values, applied to every mission
	stored   uint64              // missions stored so far (orders them for eviction)
	// interruptedAtStart is the mission the journal says was running when
	// the daemon stopped (set by New, read-only after).
	interruptedAtStart *protocol.MissionState
	// journalCorrupt counts journal lines found damaged at start.
	journalCorrupt int
	lastFlt        map[string]bool // fault codes already reported
	// requested is the mode the operator asked for (state.requested_mode).
	requested string
	// Buffers reused every tick, so the tick allocates nothing.
	errBuf     []protocol.StateError
	missionBuf protocol.MissionState // guarded by mu
	batteryBuf protocol.BatteryState // guarded by mu
	// pendingAbort is set when a failsafe's action is abort; the tick
	// ends the run after the mode machine stepped.
	pendingAbort bool
	abortWhy     string
	// fence is the latest geofence check.
	fence FenceStatus

	// Read by other goroutines.
	mu    sync.Mutex
	state protocol.State
	tree  *protocol.TreeInfo
	board *statusBoard
	// activeTree and activeDoc let commands validated off the tick
	// goroutine (mission.inject) see the running mission.
	activeTree *bt.Tree
	activeDoc  *missions.Document
	bbSnap     []bbEntry
	bbAt       time.Time
	link       protocol.LinkState
	external   map[string]protocol.StateError // SetError: problems others report
	// lastFailure is state.last_failure; a value is never changed once
	// set (the pointer is replaced), so State may share it.
	lastFailure *protocol.Failure
	changed     chan struct{}
	statusCh    chan struct{}
	// estops counts the e-stops engaged so far (any goroutine), for
	// estop.reset (applyReset).
	estops   atomic.Uint64
	estopReq chan struct{}
	// estopPending is an e-stop whose command found the queue full.
	estopPending atomic.Bool
	// tickStart is when the tick now running started, in ns after
	// tickBase, plus one (0 between ticks): State and the tick watch see a
	// stuck tick by it. An offset read on the monotonic clock (time.Time's
	// Sub), so a wall clock stepped back cannot hide a stuck tick.
	tickStart atomic.Int64
	tickBase  time.Time
	// deadman is the deadman time for the current rate (ns).
	deadman atomic.Int64
	// tickAlarm wakes the tick watch (watchTick; nil when it does not run).
	tickAlarm *time.Timer
	// hooks are a debugger's breakpoints (hooks.go).
	hooks hooksState
}

// stored is a mission the daemon accepted.
type stored struct {
	m    *missions.Mission
	hash string
	doc  []byte
	// order is when it was stored, in load order (for eviction).
	order uint64
	// interrupted marks the mission that was running when the daemon
	// stopped; it resumes only if it allows it and the operator asks.
	interrupted bool
}

// activeRun is the mission being run.
type activeRun struct {
	s        *stored
	agent    *bt.Agent
	binding  Binding
	board    *statusBoard
	status   string
	started  time.Time
	finished time.Time
	ticks    uint64
	// failsafe tree, when the failsafe action runs one.
	fsAgent   *bt.Agent
	fsBinding Binding
	fsTree    string
	// returning is the target of botd's own return while its tree runs
	// as the failsafe tree ("" otherwise), returnWhy the failsafe it
	// serves (returnhome.go).
	returning, returnWhy string
	// lastErr is the latest node error of this run; end is why the run
	// ended (nil: it succeeded or still runs).
	lastErr *protocol.Failure
	end     *protocol.Failure
	// recEnd ends the run's recording (recorder.go).
	recEnd func(status string)
}

// New makes a runner and reads the journal of its state directory.
func New(cfg Config) (*Runner, error) {
	cfg.setDefaults()
	if cfg.TickHz < cfg.MinTickHz || cfg.TickHz > cfg.MaxTickHz {
		return nil, fmt.Errorf("tick rate %v Hz is outside the allowed range [%v, %v]", cfg.TickHz, cfg.MinTickHz, cfg.MaxTickHz)
	}
	r := &Runner{
		tickBase: cfg.Clock.Now(),
		cfg:      cfg, log: cfg.Logger, cmds: make(chan *pending, 64),
		store: map[string]*stored{}, operator: map[string]bt.Value{}, lastFlt: map[string]bool{}, external: map[string]protocol.StateError{},
		changed: make(chan struct{}, 1), statusCh: make(chan struct{}, 1), estopReq: make(chan struct{}, 1),
		hz: cfg.TickHz, requested: protocol.ModeIdle,
	}
	r.hooks.ch = make(chan *hookReq, 16)
	mode, err := newModeMachine()
	if err != nil {
		return nil, err
	}
	r.mode = mode
	j, st, err := openJournal(cfg.StateDir, cfg.Logger, cfg.Clock.Now())
	if err != nil {
		return nil, err
	}
	r.jrnl = j
	r.journalCorrupt = st.corrupt
	for id, doc := range st.docs {
		m, err := missions.Load(doc, r.loadOptions())
		if err == nil && cfg.CheckMission != nil {
			err = cfg.CheckMission(m) // a geofence configured since it was stored
		}
		if err != nil {
			r.log.Warn("stored mission no longer loads; dropped", "mission", id, "err", err)
			continue
		}
		r.stored++
		r.store[id] = &stored{m: m, hash: m.Doc.Hash(), doc: doc, interrupted: id == st.interrupted, order: r.stored}
	}
	for _, st := range r.store {
		if st.interrupted {
			d := st.m.Doc
			r.interruptedAtStart = &protocol.MissionState{ID: d.ID, Name: d.Name, Revision: d.Revision, Status: protocol.RunInterrupted}
		}
	}
	r.state = protocol.State{Mode: protocol.ModeStarting, RequestedMode: protocol.ModeIdle, Errors: []protocol.StateError{}}
	r.modeMem = fsm.Memory{}
	return r, nil
}

func (r *Runner) loadOptions() missions.Options {
	return missions.Options{Registry: r.cfg.Registry, Keys: r.keys(), MinTickHz: r.cfg.MinTickHz, MaxTickHz: r.cfg.MaxTickHz, Limits: r.cfg.Limits,
		Substitutions: r.cfg.Substitutions, Imports: r.cfg.Imports}
}

func (r *Runner) keys() []string {
	return append(append([]string(nil), r.cfg.Keys...), r.cfg.Writable...)
}

// Run ticks until ctx is done, then halts the mission, puts the robot in
// its safe state and returns. It must be called once.
func (r *Runner) Run(ctx context.Context) error {
	r.jrnl.start()
	defer r.jrnl.close()
	now := r.cfg.Clock.Now()
	if hw := r.cfg.Hardware; hw != nil {
		if err := hw.Safe(); err != nil {
			return fmt.Errorf("putting the robot in its safe state: %w", err)
		}
	}
	r.mode.Start(r, &r.modeMem, now.UnixNano())
	r.emit(protocol.Event{Kind: "daemon.started", Level: "info", Message: fmt.Sprintf("botd started for robot %q at %v Hz", r.cfg.Robot, r.hz)})
	if n := r.journalCorrupt; n > 0 {
		r.emit(protocol.Event{Kind: "journal.corrupt", Level: "warning", Data: map[string]any{"lines": n},
			Message: fmt.Sprintf("%d damaged lines in the mission journal were skipped (kept in journal.jsonl.corrupt); missions they described may be forgotten", n)})
	}
	for _, s := range r.store {
		if s.interrupted {
			r.emit(protocol.Event{Kind: "mission.interrupted", Level: "warning", Mission: s.m.Doc.ID, Revision: s.m.Doc.Revision,
				Message: interruptedMessage(s)})
			r.jrnl.add(journalRecord{TS: now.UTC(), Event: "interrupted", Mission: s.m.Doc.ID, Revision: s.m.Doc.Revision}, nil)
		}
	}
	r.stepMode(now)
	r.publishState()

	sched := newSchedule(now, r.hz)
	due, _ := sched.next(now)
	timer := r.cfg.Clock.NewTimer(r.cfg.Clock.Until(due) - r.cfg.Spin)
	defer timer.Stop()
	r.setDeadman()
	stopWatch := r.watchTick()
	defer stopWatch()
	for {
		select {
		case <-ctx.Done():
			r.shutdown()
			return nil
		case <-r.estopReq:
			// An e-stop arrived between ticks: act on it now, not at the
			// next deadline.
			r.drainCommands(r.cfg.Clock.Now())
			r.stepMode(r.cfg.Clock.Now())
			r.publishState()
			continue
		case <-timer.Chan():
		}
		for r.cfg.Spin > 0 && r.cfg.Clock.Until(due) > 0 {
			runtime.Gosched()
		}
		start := r.cfg.Clock.Now()
		r.markTickStart(start)
		r.tickStarted()
		r.safeTick(start)
		r.tickStart.Store(0)
		end := r.cfg.Clock.Now()
		late := start.Sub(due)
		if r.reschedT {
			r.reschedT = false
			sched = newSchedule(end, r.hz)
			r.setDeadman()
		}
		// The deadlines this tick let pass count now, so the next tick's
		// supervisor sees them before anything else runs.
		next, skipped := sched.next(end)
		r.stats.record(late, end.Sub(start), skipped)
		due = next
		timer.Reset(r.cfg.Clock.Until(due) - r.cfg.Spin)
	}
}

func interruptedMessage(s *stored) string {
	d := s.m.Doc
	if d.ResumeAfterRestart {
		return fmt.Sprintf("the daemon stopped while mission %q (%s, revision %d) ran; send mission.resume to run it again from the start", d.Name, d.ID, d.Revision)
	}
	return fmt.Sprintf("the daemon stopped while mission %q (%s, revision %d) ran; it does not allow resuming after a restart (send mission.start with its id to rerun it)", d.Name, d.ID, d.Revision)
}

// Interrupted is the mission that was running when the daemon last
// stopped (a crash, a power cut, a stop mid-mission), as the journal
// says; ok is false when none was. The
// daemon does not start its configured mission while there is one: the
// robot stays still until an operator decides.
func (r *Runner) Interrupted() (m protocol.MissionState, ok bool) {
	if r.interruptedAtStart == nil {
		return protocol.MissionState{}, false
	}
	return *r.interruptedAtStart, true
}

// safeTick runs a tick and survives a panic in it (a bug, or a node that
// panicked outside a leaf): the mission is halted and ends with ERROR,
// the robot goes to its safe state, and the daemon keeps running.
func (r *Runner) safeTick(now time.Time) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic in the tick loop", "panic", p)
			r.emit(protocol.Event{Kind: "daemon.error", Level: "error", Message: fmt.Sprintf("internal error in the tick loop: %v; mission stopped, robot safe", p)})
			if run := r.run; run != nil && isActive(run.status) {
				func() {
					defer func() { recover() }()
					r.finish(run, now, protocol.RunErrored, fmt.Sprintf("internal error in the tick loop: %v", p))
				}()
			}
			r.safe()
			r.publishState()
		}
	}()
	r.tick(now)
}

// tick is one period of the loop (ARCHITECTURE.md): commands, sensor
// snapshot, failsafe supervisor, mission tick, actuators, observers.
func (r *Runner) tick(now time.Time) {
	r.drainCommands(now)
	r.serviceHooks(now)
	run := r.run
	if run != nil && run.binding != nil {
		run.binding.Snapshot(&run.agent.BB)
	}
	r.supervise(now)
	r.stepMode(now)
	r.rearmDeadman(now)
	if r.pendingAbort {
		r.pendingAbort = false
		if run := r.run; run != nil && isActive(run.status) {
			r.finish(run, now, protocol.RunAborted, r.abortWhy)
		}
	}
	if run = r.run; run != nil {
		switch r.currentMode() {
		case protocol.ModeRunning:
			r.tickMission(run, now)
		case protocol.ModeFailsafe:
			r.tickFailsafeTree(run, now)
		}
	}
	if hw := r.cfg.Hardware; hw != nil {
		if err := hw.Apply(); err != nil {
			r.log.Warn("applying actuator commands", "err", err)
		}
	}
	if run := r.run; run != nil {
		if run.board.commit(run.agent, run.ticks, now) {
			select {
			case r.statusCh <- struct{}{}:
			default:
			}
		}
		r.snapshotBlackboard(run, now)
	}
	r.publishState()
}

func (r *Runner) tickMission(run *activeRun, now time.Time) {
	run.ticks++
	st := run.agent.Tick(now.UnixNano())
	if st == bt.Running {
		return
	}
	r.finish(run, now, statusName(st), "")
}

func statusName(st bt.Status) string {
	switch st {
	case bt.Success:
		return protocol.RunSucceeded
	case bt.Failure:
		return protocol.RunFailed
	}
	return protocol.RunErrored
}

// finish ends the run with a final status: the tree is already closed;
// the robot goes to its safe state. why is the cause of an abort or an
// internal error ("" when the tree's own statuses say it).
func (r *Runner) finish(run *activeRun, now time.Time, status, why string) {
	fail := r.endFailure(run, status, why, now)
	run.end = fail
	if fail != nil {
		r.setLastFailure(*fail)
	}
	run.agent.HaltAll()
	r.releaseHooks("the mission ended")
	r.endRecording(run, status)
	if run.fsAgent != nil {
		run.fsAgent.HaltAll()
		run.fsAgent = nil
	}
	r.safe()
	r.fenceMission(nil) // its zones go; the config's fence stays
	run.status, run.finished = status, now
	d := run.s.m.Doc
	level := "info"
	if status != protocol.RunSucceeded {
		level = "warning"
	}
	kind := "mission.finished"
	if status == protocol.RunAborted {
		kind = "mission.aborted"
	}
	ev := protocol.Event{Kind: kind, Level: level, Mission: d.ID, Revision: d.Revision, Message: endMessage(d.Name, status, fail),
		Data: map[string]any{"status": status, "ticks": run.ticks}}
	if fail != nil {
		ev.Node = fail.Node
		ev.Data["code"], ev.Data["reason"] = fail.Code, fail.Message
		if fail.Path != "" {
			ev.Data["path"], ev.Data["node_name"] = fail.Path, fail.NodeName
		}
	}
	r.emit(ev)
	jev := "finished"
	if status == protocol.RunAborted {
		jev = "aborted"
	}
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: jev, Mission: d.ID, Revision: d.Revision, Status: status}, nil)
	r.mode.To(protocol.ModeIdle, r, &r.modeMem, now.UnixNano())
	r.requested = protocol.ModeIdle
	r.signal()
}

func (r *Runner) safe() {
	if hw := r.cfg.Hardware; hw != nil {
		if err := hw.Safe(); err != nil {
			r.log.Error("safe state", "err", err)
		}
	}
}

// shutdown halts the running trees (actions clean up) and puts the robot
// in its safe state; the mission stays journaled as running, so the next
// start reports it interrupted.
func (r *Runner) shutdown() {
	r.drainCommandsWith(protocol.ErrNotAllowedInMode, "the daemon is shutting down")
	if run := r.run; run != nil {
		run.agent.HaltAll()
		if run.fsAgent != nil {
			run.fsAgent.HaltAll()
		}
		r.endRecording(run, protocol.RunInterrupted)
	}
	r.safe()
	if st, ok := r.cfg.Hardware.(Settler); ok {
		// Shutdown is the one place that waits for the safe state: a
		// vehicle's hold must be acknowledged before the link goes.
		ctx, cancel := context.WithTimeout(context.Background(), r.cfg.SettleTimeout)
		err := st.Settle(ctx)
		cancel()
		if err != nil {
			r.log.Error("the safe state was not confirmed at shutdown", "err", err)
			r.emit(protocol.Event{Kind: "daemon.stopped", Level: "error", Message: fmt.Sprintf("botd stopped; the safe state was not confirmed: %v", err)})
			return
		}
	}
	r.emit(protocol.Event{Kind: "daemon.stopped", Level: "info", Message: "botd stopped; actuators safe"})
}

// Settler is a Hardware whose safe state takes time to reach some
// actuators (a MAVLink vehicle's hold waits for the autopilot's
// acknowledgement): Settle waits for it, until ctx ends.
type Settler interface {
	Settle(ctx context.Context) error
}

// startMission makes s the active run and starts ticking it.
func (r *Runner) startMission(s *stored, now time.Time) {
	if old := r.run; old != nil && isActive(old.status) {
		r.finish(old, now, protocol.RunAborted, fmt.Sprintf("replaced by mission %q", s.m.Doc.Name))
	}
	t := s.m.Tree
	a := bt.NewAgent(t, 0, now.UnixNano())
	board := newStatusBoard(t, s.m.Doc.ID)
	a.Sink = agentSink{r}
	run := &activeRun{s: s, agent: a, board: board, status: protocol.RunRunning, started: now}
	r.startRecording(run, s.m, now) // recorder.go: the agent's observer
	if hw := r.cfg.Hardware; hw != nil {
		a.Env = hw.Env()
		run.binding = hw.Bind(t)
	}
	for k, v := range r.operator {
		if slot, ok := t.Slot(k); ok {
			a.BB.SetAt(slot, v, now.UnixNano())
		}
	}
	s.interrupted = false
	r.run = run
	r.fenceMission(s.m) // its zones, before the next check
	hz := r.cfg.TickHz
	if s.m.Doc.TickHz > 0 {
		hz = s.m.Doc.TickHz
	}
	if hz != r.hz {
		r.hz, r.reschedT = hz, true
	}
	a.ExprLimits = r.exprLimits(hz)
	r.mu.Lock()
	r.board = board
	r.tree = treeInfo(s.m)
	r.activeTree, r.activeDoc = t, s.m.Doc
	r.mu.Unlock()
	d := s.m.Doc
	r.emit(protocol.Event{Kind: "mission.started", Level: "info", Mission: d.ID, Revision: d.Revision, Message: fmt.Sprintf("mission %q started", d.Name)})
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: "started", Mission: d.ID, Revision: d.Revision}, nil)
	r.mode.To(protocol.ModeRunning, r, &r.modeMem, now.UnixNano())
	r.requested = protocol.ModeRunning
	r.signal()
}

func isActive(status string) bool {
	return status == protocol.RunRunning || status == protocol.RunPaused
}

func treeInfo(m *missions.Mission) *protocol.TreeInfo {
	t := m.Tree
	ti := &protocol.TreeInfo{Mission: m.Doc.ID, Revision: m.Doc.Revision, Nodes: make([]protocol.TreeNode, t.Len())}
	for i := 0; i < t.Len(); i++ {
		n := t.Node(i)
		typ := ""
		if n.Type != nil {
			typ = n.Type.Name
		}
		ti.Nodes[i] = protocol.TreeNode{Index: n.Index, ID: n.ID, Type: typ, Name: n.Name, Parent: n.Parent, Path: n.Path,
			Goal: nodeGoal(m.Doc, n.Path)}
	}
	ti.Plan = planGeometry(m.Doc, ti.Nodes)
	return ti
}

// agentSink turns what nodes emit (Log nodes, leaf panics) into events.
type agentSink struct{ r *Runner }

func (s agentSink) Emit(a *bt.Agent, node int32, level, msg string) {
	kind := "log"
	if level == "error" {
		kind = "node.error"
	}
	ev := protocol.Event{Kind: kind, Level: level, Node: &node, Message: msg}
	if run := s.r.run; run != nil {
		ev.Mission, ev.Revision = run.s.m.Doc.ID, run.s.m.Doc.Revision
		if level == "error" {
			s.r.nodeError(run, a, node, msg, s.r.cfg.Clock.Now())
		}
	}
	s.r.emit(ev)
}

func (r *Runner) emit(e protocol.Event) {
	if e.Time.IsZero() {
		e.Time = r.cfg.Clock.Now().UTC()
	}
	r.log.Log(context.Background(), levelOf(e.Level), e.Message, "kind", e.Kind, "mission", e.Mission)
	if r.cfg.Events != nil {
		r.cfg.Events(e)
	}
}

func levelOf(l string) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// signal tells telemetry the state changed, without blocking.
func (r *Runner) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}
