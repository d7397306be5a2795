package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/missions"
)

// Exit statuses of botd sim (MISSIONS.md section 8).
const (
	simSucceeded = 0
	simFailed    = 1 // FAILURE, or stopped by the tick limit
	simError     = 2 // ERROR, or an invalid mission
)

// defaultTickHz is the rate used when neither -hz nor the mission sets one.
const defaultTickHz = 20

type simOptions struct {
	ticks    int
	hz       float64
	agents   int
	subst    string
	trace    string
	btlog    string
	world    string
	hardware string
	libs     libFlag
	sets     setFlag
}

func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o simOptions
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.ticks, "ticks", 10000, "stop after this many ticks")
	fs.Float64Var(&o.hz, "hz", 0, "tick rate in Hz (default: the mission's tick_hz, else 20)")
	fs.IntVar(&o.agents, "agents", 1, "number of agents sharing the tree")
	fs.StringVar(&o.subst, "substitute", "", substituteUsage)
	fs.StringVar(&o.trace, "trace", "", "write the JSON-lines trace to FILE, or - for stdout")
	fs.StringVar(&o.btlog, "btlog", "", "write agent 0's node transitions to FILE, a .btlog Groot2 replays (BehaviorTree.CPP's FileLogger2 format)")
	fs.StringVar(&o.world, "world", "", "world file of the simulated yard (default: the built-in yard)")
	fs.StringVar(&o.hardware, "hardware", "", "hardware config of the simulated robots (default: the built-in rover)")
	fs.Var(&o.libs, "lib", libUsage)
	fs.Var(&o.sets, "set", setUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd sim [-ticks N] [-hz H] [-agents N] [-world FILE] [-set KEY=VALUE]... [-substitute RULES] [-lib DIR|FILE]... [-trace FILE|-] [-btlog FILE] FILE")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return simError
	}
	if len(files) != 1 {
		fs.Usage()
		return simError
	}
	switch {
	case o.ticks < 1:
		fmt.Fprintln(stderr, "botd sim: -ticks must be at least 1")
		return simError
	case o.agents < 1:
		fmt.Fprintln(stderr, "botd sim: -agents must be at least 1")
		return simError
	case o.hz < 0 || math.IsNaN(o.hz) || math.IsInf(o.hz, 0):
		fmt.Fprintln(stderr, "botd sim: -hz must be positive")
		return simError
	}
	subs, err := loadSubstitutions(o.subst)
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	hw, err := loadHardware(o.hardware)
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	world := sim.DefaultWorld()
	if o.world != "" {
		if world, err = sim.LoadWorld(o.world); err != nil {
			fmt.Fprintln(stderr, "botd sim:", err)
			return simError
		}
	}
	lib, err := o.libs.load()
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	reg := newRegistry(hw)
	m, err := loadFile(files[0], reg, hw, subs, lib)
	if err != nil {
		fmt.Fprintf(stderr, "botd sim: %s: %v\n", files[0], err)
		return simError
	}
	for _, n := range m.Notes {
		// What stands in as it would fail in its home engine (a BT.CPP
		// node's port it converts only when the node runs).
		fmt.Fprintf(stderr, "%s: warning: %s\n", files[0], missions.ProblemText(n))
	}
	presets, err := o.sets.resolve(m.Tree, hw)
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	if o.hz == 0 {
		o.hz = m.Doc.TickHz
		if o.hz == 0 {
			o.hz = defaultTickHz
		}
	}

	summary := stdout
	var trace *bt.TraceWriter
	switch o.trace {
	case "":
	case "-":
		trace = bt.NewTraceWriter(stdout, m.Tree)
		summary = stderr
	default:
		f, err := os.Create(o.trace)
		if err != nil {
			fmt.Fprintln(stderr, "botd sim:", err)
			return simError
		}
		defer f.Close()
		trace = bt.NewTraceWriter(f, m.Tree)
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	fleet, err := drivers.NewSimFleet(hw, world, o.agents, logger)
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	defer fleet.Close()
	btlog, err := openSimBTLog(o.btlog, m, reg)
	if err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	s := &simRun{opts: o, tree: m.Tree, trace: trace, log: stderr, fleet: fleet, btlog: btlog, presets: presets}
	res := s.run(ctx)
	if err := btlog.close(); err != nil {
		fmt.Fprintln(stderr, "botd sim:", err)
		return simError
	}
	if trace != nil && trace.Err() != nil {
		fmt.Fprintln(stderr, "botd sim: writing the trace:", trace.Err())
		return simError
	}
	name := m.Doc.Name
	if name == "" {
		name = files[0]
	}
	fmt.Fprintf(summary, "mission %q: %s after %s (%.3f s virtual, %s)%s\n",
		name, res.describe(), plural(res.ticks, "tick"), float64(res.ticks)/o.hz, plural(o.agents, "agent"), res.why(m.Tree))
	return res.exitCode()
}

// simRun ticks the agents of one simulation on a virtual clock: tick k
// happens at exactly k/hz seconds.
type simRun struct {
	opts  simOptions
	tree  *bt.Tree
	trace *bt.TraceWriter
	log   io.Writer
	fleet *drivers.SimFleet // one simulated robot per agent, in one world
	btlog *simBTLog         // agent 0's transitions, or nil
	// presets are the -set values, written before the first tick; the
	// held ones (sensor keys) again after every snapshot.
	presets []preset
}

type simResult struct {
	ticks    int
	statuses []bt.Status // per agent; Running when stopped by the limit
	stopped  bool        // interrupted or hit the tick limit
	lastErr  []nodeMessage
}

// nodeMessage is a message a node emitted.
type nodeMessage struct {
	node int32
	msg  string
}

// why is the reason the first agent that ended with ERROR gave last, as
// ": node (Type): message" ("" when there is none).
func (r simResult) why(t *bt.Tree) string {
	for i, st := range r.statuses {
		if st != bt.Error || i >= len(r.lastErr) || r.lastErr[i].msg == "" {
			continue
		}
		e := r.lastErr[i]
		who := ""
		if len(r.statuses) > 1 {
			who = fmt.Sprintf("agent %d: ", i)
		}
		if e.node < 0 || int(e.node) >= t.Len() {
			return ": " + who + e.msg
		}
		n := t.Node(int(e.node))
		typ := ""
		if n.Type != nil {
			typ = n.Type.Name
		}
		label := typ
		if n.Name != "" && n.Name != typ {
			label = fmt.Sprintf("%s (%s)", n.Name, typ)
		}
		return fmt.Sprintf(": %s%s: %s", who, label, strings.TrimPrefix(e.msg, typ+": "))
	}
	return ""
}

func (r simResult) describe() string {
	counts := map[bt.Status]int{}
	for _, st := range r.statuses {
		counts[st]++
	}
	if len(r.statuses) == 1 {
		if r.stopped {
			return "stopped while RUNNING"
		}
		return r.statuses[0].String()
	}
	return fmt.Sprintf("%d SUCCESS, %d FAILURE, %d ERROR, %d still RUNNING",
		counts[bt.Success], counts[bt.Failure], counts[bt.Error], counts[bt.Running])
}

func (r simResult) exitCode() int {
	code := simSucceeded
	for _, st := range r.statuses {
		switch st {
		case bt.Error:
			return simError
		case bt.Success:
		default:
			code = simFailed
		}
	}
	return code
}

// nanosAt is the virtual time of tick k.
func nanosAt(k int, hz float64) int64 { return int64(math.Round(float64(k) * 1e9 / hz)) }

func (s *simRun) run(ctx context.Context) simResult {
	n := s.opts.agents
	agents := make([]*bt.Agent, n)
	bindings := make([]*drivers.Binding, n)
	res := simResult{statuses: make([]bt.Status, n)}
	sink := &logSink{w: s.log, trace: s.trace, last: make([]nodeMessage, n)}
	res.lastErr = sink.last
	for i := range agents {
		a := bt.NewAgent(s.tree, i, 0)
		a.Sink = sink
		a.Env = s.fleet.Robot(i)
		bindings[i] = s.fleet.Robot(i).Bind(s.tree)
		if s.trace != nil {
			a.SetObserver(s.trace)
		}
		if i == 0 && s.btlog != nil {
			a.SetObserver(s.btlog.observer(a.Observer()))
		}
		for _, p := range s.presets {
			a.BB.SetAt(p.slot, p.value, 0)
		}
		agents[i] = a
		res.statuses[i] = bt.Running
	}
	left := n
	for k := 1; k <= s.opts.ticks && left > 0; k++ {
		if ctx.Err() != nil {
			break
		}
		now := nanosAt(k, s.opts.hz)
		sink.now = now
		if s.btlog != nil {
			s.btlog.now = now
		}
		res.ticks = k
		s.fleet.Advance(drivers.SimEpoch.Add(time.Duration(now)))
		for i, a := range agents {
			if res.statuses[i] != bt.Running {
				continue
			}
			robot := s.fleet.Robot(i)
			bindings[i].Snapshot(&a.BB)
			for _, p := range s.presets {
				if p.held {
					a.BB.SetAt(p.slot, p.value, now)
				}
			}
			st := a.Tick(now)
			if err := robot.Apply(); err != nil {
				sink.Emit(a, 0, "error", "applying actuator commands: "+err.Error())
			}
			if s.trace != nil {
				s.trace.EndTick(uint64(k), float64(now)/1e6, a, st)
			}
			if st != bt.Running {
				res.statuses[i] = st
				left--
			}
		}
	}
	res.stopped = left > 0
	for i, a := range agents {
		if res.statuses[i] == bt.Running {
			// Stopped by the limit: let actions clean up, outside the trace.
			a.SetObserver(nil)
			a.HaltAll()
			s.fleet.Robot(i).Apply()
		}
	}
	return res
}

// logSink prints what nodes emit, stamped with virtual time, adds it to
// the trace and keeps each agent's last error.
type logSink struct {
	w     io.Writer
	now   int64
	trace *bt.TraceWriter
	last  []nodeMessage // per agent
}

func (l *logSink) Emit(a *bt.Agent, node int32, level, msg string) {
	fmt.Fprintf(l.w, "t=%.3fs agent=%d node=%d %s: %s\n", float64(l.now)/1e9, a.ID, node, level, msg)
	if l.trace != nil {
		l.trace.Emit(a, node, level, msg)
	}
	if level == "error" && a.ID >= 0 && a.ID < len(l.last) {
		l.last[a.ID] = nodeMessage{node: node, msg: msg}
	}
}

// plural is "1 agent", "3 agents": a count with its noun.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
