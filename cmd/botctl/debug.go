package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// botctl debug: a debugging session on a robot's running mission, over
// the hook commands (PROTOCOL.md, "Debugging a mission"). The session
// reads debugger commands (the words after the robot on the command
// line first, then one a line from stdin), prints what the robot's hooks
// do as it happens, and sends hook.list as the heartbeat that keeps its
// hooks alive: the robot releases them when the session goes silent.
// When the session ends it clears the hooks it leaves.

const debugHelp = `debugger commands (NODE: an index of botctl tree --json, or a node's id or name):
  break NODE [post] [once]          hold the mission when it reaches NODE (post: after NODE's tick)
  force NODE success|failure [post] [once]
                                    NODE gives this status without being ticked (fault injection)
  step [NODE] [success|failure]     release the held node for one tick (it holds again when reached
                                    again); with a status, end the node with it instead of ticking
  continue [NODE]                   release the held node and remove its breakpoint
  list                              list the hooks (held ones marked)
  clear [NODE [post]]               remove a hook, or all of them
  quit                              clear the hooks and end the session`

// debugOptions are botctl debug's flags.
type debugOptions struct {
	heartbeat time.Duration
}

func debugFlags(c *cli, fs *flag.FlagSet) {
	fs.DurationVar(&c.debugOpt.heartbeat, "heartbeat", time.Second, "how often the session tells the robot it is alive (below the robot's debug.client_silence)")
	signingFlags(c, fs)
}

// debugVerbs are the first words of the debugger's commands.
var debugVerbs = map[string]bool{"break": true, "force": true, "step": true, "continue": true, "list": true, "clear": true, "quit": true, "help": true}

// debugSession is one session's state.
type debugSession struct {
	c     *cli
	g     *ground.Client
	robot string
	out   sync.Mutex // stdout and stderr lines
	mu    sync.Mutex
	tree  protocol.TreeInfo
	seen  map[string]bool // hook event ids printed (delivery is at least once)
	set   bool            // the session set a hook
	// refused counts the commands the robot refused, bad the lines the
	// session could not make a command of (the exit status: 1, else 2).
	refused, bad int
}

func (c *cli) debug(args []string) error {
	var robotArgs, first []string
	for i, a := range args {
		if debugVerbs[a] {
			robotArgs, first = args[:i], args[i:]
			break
		}
		robotArgs = args[:i+1]
	}
	if c.debugOpt.heartbeat <= 0 {
		return usageError("--heartbeat must be positive")
	}
	g, info, err := c.connectOnline(robotArgs)
	if err != nil {
		return err
	}
	defer g.Close()
	s := &debugSession{c: c, g: g, robot: info.ID, seen: map[string]bool{}}
	stop, err := g.Watch(s.robot, ground.RobotHandlers{
		Tree:  func(m protocol.TreeMsg) { s.mu.Lock(); s.tree = m.TreeInfo; s.mu.Unlock() },
		Event: s.event,
	})
	if err != nil {
		return fail(exitUnreachable, "subscribing to %s: %v", s.robot, err)
	}
	defer stop()

	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { s.heartbeat(ctx) })

	lines := make(chan string)
	go func() { // ends with stdin; a blocked read is left behind at exit, as a terminal's is
		sc := bufio.NewScanner(c.stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		close(lines)
	}()
	quit := false
	if len(first) > 0 {
		quit = s.run(strings.Join(first, " "))
	}
	for !quit {
		select {
		case <-ctx.Done():
			quit = true
		case l, ok := <-lines:
			if !ok {
				quit = true
				break
			}
			quit = s.run(l)
		}
	}
	cancel()
	if s.set {
		// Its hooks end with the session (the robot would release them
		// after its client silence anyway).
		sendCtx, done := context.WithTimeout(context.Background(), c.timeout)
		rep, err := g.Send(sendCtx, s.robot, protocol.Command{Op: protocol.OpHookClear})
		done()
		switch {
		case err != nil:
			s.errorf("clearing the hooks: %v (the robot releases them when the session has been silent for its debug.client_silence)", err)
		case !rep.OK:
			s.refusal(protocol.OpHookClear, rep.Error)
		default:
			s.printf("%s: session ended; its hooks are cleared\n", s.robot)
		}
	}
	if s.refused > 0 {
		return silent(exitRefused)
	}
	if s.bad > 0 {
		return silent(exitUsage)
	}
	return nil
}

// heartbeat sends hook.list every --heartbeat until ctx ends.
func (s *debugSession) heartbeat(ctx context.Context) {
	t := time.NewTicker(s.c.debugOpt.heartbeat)
	defer t.Stop()
	warned := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, s.c.timeout)
		_, err := s.g.Send(sctx, s.robot, protocol.Command{Op: protocol.OpHookList})
		cancel()
		if err != nil && ctx.Err() == nil && !warned {
			warned = true
			s.errorf("heartbeat: %v (the robot releases the hooks of a silent session)", err)
		}
		if err == nil {
			warned = false
		}
	}
}

func (s *debugSession) printf(format string, args ...any) {
	s.out.Lock()
	defer s.out.Unlock()
	fmt.Fprintf(s.c.stdout, format, args...)
}

func (s *debugSession) errorf(format string, args ...any) {
	s.out.Lock()
	defer s.out.Unlock()
	fmt.Fprintf(s.c.stderr, "botctl debug: "+format+"\n", args...)
}

// usage reports a line the session cannot make a command of.
func (s *debugSession) usage(format string, args ...any) {
	s.out.Lock()
	s.bad++
	s.out.Unlock()
	s.errorf(format, args...)
}

func (s *debugSession) refusal(op string, e *protocol.ReplyError) {
	s.out.Lock()
	defer s.out.Unlock()
	s.refused++
	s.c.printRefusal(s.robot, op, e)
}

// label names node i of the tree the session knows.
func (s *debugSession) label(i int32) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= 0 && int(i) < len(s.tree.Nodes) {
		return fmt.Sprintf("node %d %s", i, nodeLabel(s.tree.Nodes[i]))
	}
	return fmt.Sprintf("node %d", i)
}

// event prints what the hooks did.
func (s *debugSession) event(m protocol.EventMsg) {
	if !strings.HasPrefix(m.Kind, "hook.") {
		return
	}
	s.mu.Lock()
	dup := s.seen[m.ID]
	if len(s.seen) > 4096 {
		clear(s.seen)
	}
	s.seen[m.ID] = true
	s.mu.Unlock()
	if dup {
		return
	}
	where := ""
	if m.Node != nil {
		where = s.label(*m.Node)
	}
	pos, _ := m.Data["position"].(string)
	switch m.Kind {
	case "hook.hit":
		if mode, _ := m.Data["mode"].(string); mode == protocol.HookReplace {
			st, _ := m.Data["status"].(string)
			s.printf("%s: forced %s at %s (%s)\n", s.robot, st, where, pos)
			return
		}
		s.printf("%s: HELD at %s (%s): the mission waits there, everything else runs on (step, continue, or step success|failure)\n", s.robot, where, pos)
	case "hook.released":
		why, _ := m.Data["reason"].(string)
		s.printf("%s: released %s (%s)\n", s.robot, where, why)
	case "hook.removed":
		why, _ := m.Data["reason"].(string)
		s.printf("%s: hook on %s removed (%s)\n", s.robot, where, why)
	}
}

// node resolves a NODE argument against the tree the session knows.
func (s *debugSession) node(arg string) (int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, err := strconv.ParseInt(arg, 10, 32); err == nil {
		if len(s.tree.Nodes) > 0 && (n < 0 || int(n) >= len(s.tree.Nodes)) {
			return 0, fmt.Errorf("no node %d: the tree has %s", n, count(len(s.tree.Nodes), "node"))
		}
		return int32(n), nil
	}
	found := int32(-1)
	for _, n := range s.tree.Nodes {
		if n.ID == arg || n.Name == arg {
			if found >= 0 {
				return 0, fmt.Errorf("%q names several nodes (%d and %d): give the index", arg, found, n.Index)
			}
			found = n.Index
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("no node %q in the running mission's tree", arg)
	}
	return found, nil
}

// args makes a hook member bound to the tree the session knows.
func (s *debugSession) args(node int32) *protocol.HookArgs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &protocol.HookArgs{Node: &node, Mission: s.tree.Mission, Revision: s.tree.Revision}
}

// send sends one hook command; the reply's hooks, or nil when it was
// refused (and said so).
func (s *debugSession) send(cmd protocol.Command) (*protocol.HooksResult, bool) {
	rep, err := s.c.send(s.g, s.robot, cmd)
	if err != nil {
		s.errorf("%v", err)
		s.refused++
		return nil, false
	}
	if s.c.json {
		s.out.Lock()
		s.c.printJSON(replyJSON{Robot: s.robot, Op: cmd.Op, Reply: rep})
		s.out.Unlock()
	}
	if !rep.OK {
		s.refusal(cmd.Op, rep.Error)
		return nil, false
	}
	res, err := protocol.DecodeHooksResult(rep.Result)
	if err != nil {
		s.errorf("%v", err)
		return nil, false
	}
	return &res, true
}

// run runs one debugger command line; it reports whether to quit.
func (s *debugSession) run(line string) bool {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	verb, rest := f[0], f[1:]
	opts := map[string]bool{}
	var words []string
	for _, w := range rest {
		switch lw := strings.ToLower(w); lw {
		case "pre", "post", "once", "success", "failure":
			opts[lw] = true
		default:
			words = append(words, w)
		}
	}
	pos := protocol.HookPre
	if opts["post"] {
		pos = protocol.HookPost
	}
	status := ""
	switch {
	case opts["success"] && opts["failure"]:
		s.usage("success or failure, not both")
		return false
	case opts["success"]:
		status = "SUCCESS"
	case opts["failure"]:
		status = "FAILURE"
	}
	nodeArg := func(need bool) (int32, bool) {
		if len(words) == 0 {
			if need {
				s.usage("%s needs a NODE", verb)
			}
			return -1, false
		}
		n, err := s.node(words[0])
		if err != nil {
			s.usage("%v", err)
			return -1, false
		}
		return n, true
	}
	switch verb {
	case "quit", "exit":
		return true
	case "help":
		s.printf("%s\n", debugHelp)
	case "list":
		if res, ok := s.send(protocol.Command{Op: protocol.OpHookList}); ok && !s.c.json {
			s.printHooks(res)
		}
	case "break", "force":
		n, ok := nodeArg(true)
		if !ok {
			return false
		}
		a := s.args(n)
		a.Position, a.Once = pos, opts["once"]
		if verb == "force" {
			if status == "" {
				s.usage("force NODE success|failure")
				return false
			}
			a.Mode, a.Status = protocol.HookReplace, status
		}
		if _, ok := s.send(protocol.Command{Op: protocol.OpHookSet, Hook: a}); ok {
			s.set = true
			if verb == "force" {
				s.printf("%s: %s forced to %s (%s)\n", s.robot, s.label(n), status, pos)
			} else {
				s.printf("%s: breakpoint at %s (%s)\n", s.robot, s.label(n), pos)
			}
		}
	case "step", "continue", "c":
		var held []protocol.HookInfo
		if n, ok := nodeArg(false); ok {
			held = []protocol.HookInfo{{Node: n, Position: pos}}
		} else if len(words) > 0 {
			return false
		} else if res, ok := s.send(protocol.Command{Op: protocol.OpHookList}); !ok {
			return false
		} else {
			for _, h := range res.Hooks {
				if h.Held {
					held = append(held, h)
				}
			}
			if len(held) == 0 {
				s.usage("nothing is held: %s what? (give a NODE)", verb)
				return false
			}
			if verb == "step" && len(held) > 1 {
				s.usage("%d nodes are held: step NODE", len(held))
				return false
			}
		}
		for _, h := range held {
			a := s.args(h.Node)
			a.Position, a.Status, a.Remove = h.Position, status, verb != "step"
			if _, ok := s.send(protocol.Command{Op: protocol.OpHookUnlock, Hook: a}); ok {
				what := "stepped"
				if a.Remove {
					what = "continued"
				}
				ending := ""
				if status != "" {
					ending = ", ending it with " + status
				}
				s.printf("%s: %s %s%s\n", s.robot, what, s.label(h.Node), ending)
			}
		}
	case "clear":
		if n, ok := nodeArg(false); ok {
			a := s.args(n)
			a.Position = pos
			if _, ok := s.send(protocol.Command{Op: protocol.OpHookRemove, Hook: a}); ok {
				s.printf("%s: hook on %s (%s) removed\n", s.robot, s.label(n), pos)
			}
		} else if len(words) == 0 {
			if _, ok := s.send(protocol.Command{Op: protocol.OpHookClear}); ok {
				s.printf("%s: every hook removed\n", s.robot)
			}
		}
	default:
		s.usage("unknown command %q (help lists them)", verb)
	}
	return false
}

func (s *debugSession) printHooks(res *protocol.HooksResult) {
	if len(res.Hooks) == 0 {
		s.printf("%s: no hooks\n", s.robot)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s on mission %s (revision %d)\n", s.robot, count(len(res.Hooks), "hook"), orDash(res.Mission), res.Revision)
	for _, h := range res.Hooks {
		what := "breakpoint"
		if h.Mode == protocol.HookReplace {
			what = "force " + h.Status
		}
		state := ""
		if h.Held {
			state = "  HELD"
		}
		if h.Disabled {
			state += "  disabled"
		}
		if h.Once {
			what += " once"
		}
		fmt.Fprintf(&b, "  %-28s %-4s %-16s hits %d%s\n", s.label(h.Node), h.Position, what, h.Hits, state)
	}
	s.printf("%s", b.String())
}
