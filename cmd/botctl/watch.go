package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The live terminal view: a bubbletea program whose model is fed by the
// ground station's callbacks (decoded messages, parse errors) and by the
// link to the broker. The tree itself is a ground.Tree (telemetry/ground); this
// file handles messages and keys, view.go renders.

// Messages besides the telemetry payloads themselves.
type (
	linkMsg struct {
		up       bool
		connects uint64
	}
	cmdDone struct {
		op    string
		quiet bool // state.request asked for by the model: report failures only
		rep   protocol.Reply
		err   error
	}
	tickMsg time.Time
	// watchStarted: the robot's topics are subscribed (or could not be).
	watchStarted struct {
		robot string
		err   error
	}
	// historyMsg is the robot's answer to events.request.
	historyMsg struct {
		rep protocol.Reply
		err error
	}
	eventGapMsg struct{ from, to uint64 }
)

const (
	maxEvents     = 100
	staleState    = 3 * time.Second // the robot publishes state at least once a second
	warningShown  = 30 * time.Second
	refreshPeriod = 250 * time.Millisecond
)

// watchModel is the bubbletea model of `botctl watch`.
type watchModel struct {
	robot  string
	broker string
	now    func() time.Time
	loc    *time.Location // for clock times
	// send sends a command to the robot and waits for the reply; nil
	// when there is no broker (tests).
	send func(op string) (protocol.Reply, error)

	tree     ground.Tree
	conn     string // the robot's connection state
	state    *protocol.StateMsg
	stateAt  time.Time
	linkUp   bool   // botctl's own link to the broker
	connects uint64 // its connection count, to tell a reconnect
	events   []protocol.EventMsg
	seen     *seenSet
	vehicles vehicleKeys // the blackboard keys of the vehicle line
	// vehicleModes are the factsheet's names of vehicle mode numbers (nil: the defaults).
	vehicleModes []string

	warning   string
	warningAt time.Time
	warnings  int
	notice    string
	noticeBad bool
	confirm   string // an op waiting for y/n

	width, height int
	st            styles

	// pick, while no robot is chosen, returns the only robot online, or
	// says what it waits for; onPick starts watching the chosen robot.
	// Both nil: the robot is known from the start.
	pick     func() (robot, waiting string)
	onPick   func(robot string) tea.Cmd
	waiting  string // what the view waits for, before a robot is chosen
	broker0  bool   // the broker was never reached yet
	history  string // what the robot said of its kept events
	watchErr string

	// observe, when set, sees the model after every update (tests).
	observe func(*watchModel)
}

func newWatchModel(robot string, r *lipgloss.Renderer, now func() time.Time) *watchModel {
	if now == nil {
		now = time.Now
	}
	return &watchModel{robot: robot, now: now, loc: time.Local, st: newStyles(r), seen: newSeenSet(1024), linkUp: true, vehicles: vehicleKeys{}}
}

func (m *watchModel) Init() tea.Cmd {
	now := m.now()
	m.tree.Reset(now) // ask for a keyframe at once: state.request brings the tree with it
	var cmds []tea.Cmd
	if m.robot == "" {
		cmds = append(cmds, m.tryPick())
	} else if m.tree.AskKeyframe(now) {
		cmds = append(cmds, m.sendOp(protocol.OpStateRequest, true))
	}
	return tea.Batch(append(cmds, tick())...)
}

// tryPick chooses the robot when there is one to choose.
func (m *watchModel) tryPick() tea.Cmd {
	if m.robot != "" || m.pick == nil {
		return nil
	}
	robot, waiting := m.pick()
	m.waiting = waiting
	if robot == "" {
		return nil
	}
	m.robot = robot
	m.say(robot+": the only robot online", false)
	m.tree.Reset(m.now())
	if m.onPick != nil {
		return m.onPick(robot)
	}
	return nil
}

func tick() tea.Cmd {
	return tea.Tick(refreshPeriod, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *watchModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	now := m.now()
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		cmds = append(cmds, m.key(msg.String()))
	case protocol.TreeMsg:
		if err := m.tree.SetTree(msg, now); err != nil {
			m.warn(now, err.Error())
		}
	case protocol.StatusMsg:
		if _, err := m.tree.ApplyStatus(msg, now); err != nil {
			m.warn(now, err.Error())
		}
	case protocol.StateMsg:
		m.state, m.stateAt = &msg, now
	case protocol.BlackboardMsg:
		m.vehicles.apply(msg)
	case vehicleModesMsg:
		m.vehicleModes = msg
	case protocol.ConnectionMsg:
		if m.conn != "" && m.conn != protocol.ConnOnline && msg.State == protocol.ConnOnline {
			m.tree.Reset(now) // back online: what we have may be old
		}
		m.conn = msg.State
	case protocol.EventMsg:
		if m.seen.add(msg.ID) {
			m.events = append(m.events, msg)
			if len(m.events) > maxEvents {
				m.events = m.events[len(m.events)-maxEvents:]
			}
		}
	case parseError:
		m.warn(now, msg.Error())
	case linkMsg:
		if msg.up {
			m.broker0 = false
		}
		if msg.up && m.connects != 0 && msg.connects != m.connects {
			m.tree.Reset(now)
			m.say("reconnected to the broker; asking for a keyframe", false)
		}
		if !msg.up && m.linkUp && !m.broker0 {
			m.say("lost the broker; reconnecting…", true)
		}
		m.linkUp = msg.up
		if msg.up {
			m.connects = msg.connects
		}
	case cmdDone:
		m.done(msg)
	case watchStarted:
		if msg.err != nil {
			m.watchErr = msg.err.Error()
			m.say(fmt.Sprintf("cannot watch %s: %v", msg.robot, msg.err), true)
		}
	case historyMsg:
		m.history = historyText(msg.rep, msg.err)
	case eventGapMsg:
		m.warn(now, fmt.Sprintf("events %d–%d are lost: the robot no longer keeps them", msg.from, msg.to))
	case tickMsg:
		cmds = append(cmds, tick(), m.tryPick())
	}
	if m.linkUp && m.robot != "" && m.tree.AskKeyframe(now) {
		cmds = append(cmds, m.sendOp(protocol.OpStateRequest, true))
	}
	if m.observe != nil {
		m.observe(m)
	}
	return m, tea.Batch(cmds...)
}

// key handles a key press. E-stop never asks and always wins, even over
// a pending question; q and Ctrl-C always quit.
func (m *watchModel) key(k string) tea.Cmd {
	switch k {
	case "ctrl+c", "q", "Q":
		return tea.Quit
	case "e", " ":
		m.confirm = ""
		return m.sendOp(protocol.OpEStop, false)
	}
	if op := m.confirm; op != "" {
		m.confirm = ""
		if k == "y" || k == "Y" {
			return m.sendOp(op, false)
		}
		m.say(opName(op)+" cancelled", false)
		return nil
	}
	switch k {
	case "p":
		return m.sendOp(protocol.OpMissionPause, false)
	case "r":
		return m.sendOp(protocol.OpMissionResume, false)
	case "a":
		m.confirm = protocol.OpMissionAbort
	case "E":
		m.confirm = protocol.OpEStopReset
	case "k":
		now := m.now()
		m.tree.Reset(now)
		m.tree.MarkAsked(now) // this request is the one AskKeyframe would send
		return m.sendOp(protocol.OpStateRequest, false)
	}
	return nil
}

func opName(op string) string {
	switch op {
	case protocol.OpMissionPause:
		return "pause"
	case protocol.OpMissionResume:
		return "resume"
	case protocol.OpMissionAbort:
		return "abort"
	case protocol.OpEStop:
		return "E-STOP"
	case protocol.OpEStopReset:
		return "e-stop reset"
	case protocol.OpStateRequest:
		return "keyframe request"
	}
	return op
}

// sendOp sends op in the background; the reply comes back as cmdDone.
func (m *watchModel) sendOp(op string, quiet bool) tea.Cmd {
	if m.robot == "" {
		if !quiet {
			m.say("no robot to send "+opName(op)+" to yet", true)
		}
		return nil
	}
	if !quiet {
		m.say(opName(op)+" sent…", false)
	}
	send := m.send
	if send == nil {
		return nil
	}
	return func() tea.Msg {
		rep, err := send(op)
		return cmdDone{op: op, quiet: quiet, rep: rep, err: err}
	}
}

func (m *watchModel) done(d cmdDone) {
	switch {
	case d.err != nil:
		m.say(fmt.Sprintf("%s: %v", opName(d.op), d.err), true)
	case !d.rep.OK:
		msg := "refused"
		if e := d.rep.Error; e != nil {
			msg = fmt.Sprintf("refused: %s: %s", e.Code, oneLine(e.Message))
		}
		m.say(opName(d.op)+" "+msg, true)
	case !d.quiet:
		m.say(opName(d.op)+": ok", false)
	}
}

func (m *watchModel) say(s string, bad bool) { m.notice, m.noticeBad = s, bad }

func (m *watchModel) warn(now time.Time, s string) {
	m.warning, m.warningAt = oneLine(s), now
	m.warnings++
}

// watchOptions adjust runWatch for tests.
type watchOptions struct {
	observe  func(*watchModel)
	renderer *lipgloss.Renderer
}

// runWatch runs the live view until q, Ctrl-C or ctx ends: of robot,
// or, when robot is "", of the only robot online once there is one. The
// view is up at once, whether the broker is reachable or not yet.
func (c *cli) runWatch(g *ground.Client, robot string, in io.Reader, out io.Writer, opts watchOptions) error {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	r := opts.renderer
	if r == nil {
		r = lipgloss.NewRenderer(out)
		// Known, not asked: a terminal that does not answer the query
		// would hold the view (and swallow keys) for 5 s.
		r.SetHasDarkBackground(true)
	}
	m := newWatchModel(robot, r, nil)
	m.broker = c.broker
	m.observe = opts.observe
	m.connects = g.Conn().Connects()
	m.linkUp = g.Conn().IsUp()
	m.broker0 = m.connects == 0
	var mu sync.Mutex // guards current: set on the model's goroutine, read by sends
	current := robot
	m.send = func(op string) (protocol.Reply, error) {
		mu.Lock()
		robot := current
		mu.Unlock()
		sctx, scancel := context.WithTimeout(ctx, c.timeout)
		defer scancel()
		return g.Send(sctx, robot, protocol.Command{Op: op})
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler()}
	if f, ok := out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		popts = append(popts, tea.WithAltScreen())
	}
	p := tea.NewProgram(m, popts...)

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var stops []func() error
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, stop := range stops {
			_ = stop()
		}
	}()
	hist := &ground.History{
		Emit: func(x protocol.EventMsg) { p.Send(x) },
		Gap:  func(from, to uint64) { p.Send(eventGapMsg{from, to}) },
	}
	defer hist.Close()
	var asking, answered atomic.Bool
	// Requests start from the Ground's callbacks: none once the view is
	// closing (wg.Wait must not race a new one).
	var reqMu sync.Mutex
	closing := false
	defer func() {
		reqMu.Lock()
		closing = true
		reqMu.Unlock()
	}()
	requestHistory := func(robot string) {
		reqMu.Lock()
		defer reqMu.Unlock()
		if closing {
			return
		}
		asking.Store(true)
		wg.Go(func() {
			defer asking.Store(false)
			rctx, rcancel := context.WithTimeout(ctx, c.timeout)
			defer rcancel()
			rep, err := g.RequestEvents(rctx, robot, hist)
			if err == nil {
				answered.Store(true)
			}
			if ctx.Err() == nil {
				p.Send(historyMsg{rep, err})
			}
		})
	}
	start := func(robot string) tea.Cmd {
		mu.Lock()
		current = robot
		mu.Unlock()
		return func() tea.Msg {
			stop, err := g.Watch(robot, ground.RobotHandlers{
				Connection: func(x protocol.ConnectionMsg) {
					p.Send(x)
					// Watched before the broker or the robot was there:
					// ask again now that it is.
					if x.State == protocol.ConnOnline && !answered.Load() && !asking.Load() {
						requestHistory(robot)
					}
				},
				State:      func(x protocol.StateMsg) { p.Send(x) },
				Tree:       func(x protocol.TreeMsg) { p.Send(x) },
				Status:     func(x protocol.StatusMsg) { p.Send(x) },
				Blackboard: func(x protocol.BlackboardMsg) { p.Send(x) },
				Factsheet: func(x protocol.FactsheetMsg) {
					p.Send(vehicleModesMsg(x.VehicleModes[:min(len(x.VehicleModes), maxVehicleModes)]))
				},
				Event: func(x protocol.EventMsg) {
					if hist.Add(x) {
						requestHistory(robot)
					}
				},
				Error: func(topic string, err error) { p.Send(parseError{topic, err}) },
			})
			if err == nil {
				mu.Lock()
				stops = append(stops, stop)
				mu.Unlock()
				requestHistory(robot)
			}
			return watchStarted{robot, err}
		}
	}
	if robot == "" {
		m.pick = func() (string, string) { return c.onlyOnline(g) }
		m.onPick = start
	} else {
		wg.Go(func() { p.Send(start(robot)()) })
	}
	wg.Go(func() {
		conn := g.Conn()
		for {
			ch := conn.LinkChanged()
			p.Send(linkMsg{up: conn.IsUp(), connects: conn.Connects()})
			select {
			case <-ctx.Done():
				return
			case <-ch:
			}
		}
	})
	_, err := p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fail(exitRefused, "terminal view: %v", err)
	}
	return nil
}

// onlyOnline is the only robot online, or what the watch waits for.
func (c *cli) onlyOnline(g *ground.Client) (robot, waiting string) {
	if !g.Conn().IsUp() {
		return "", "connecting to the broker at " + c.broker + "…"
	}
	var online []string
	for _, r := range g.Robots() {
		if r.Connection == protocol.ConnOnline {
			online = append(online, r.ID)
		}
	}
	switch len(online) {
	case 1:
		return online[0], ""
	case 0:
		return "", "no robot online on " + c.broker + " yet" + c.heardList(g)
	}
	return "", fmt.Sprintf("%d robots are online (%s): quit and run botctl watch ROBOT", len(online), strings.Join(online, ", "))
}

// watch is `botctl watch [ROBOT]`: without a broker yet, or a robot
// yet, it shows what it waits for.
func (c *cli) watch(args []string) error {
	if len(args) > 1 {
		return usageError("watch takes at most one robot")
	}
	robot, err := robotArg(args)
	if err != nil {
		return err
	}
	g, err := c.dial(true)
	if err != nil {
		return err
	}
	defer g.Close()
	return c.runWatch(g, robot, c.stdin, c.stdout, watchOptions{})
}
