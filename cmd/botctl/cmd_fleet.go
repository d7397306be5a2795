package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Fleet commands: one command to every robot a selector matches, all sent
// at once, with a table of each robot's answer.

// codeNoReply marks a robot that did not answer in time.
const codeNoReply = "NO_REPLY"

// estopCmd is `botctl estop` with its options.
type estopCmd struct {
	*cli
	all       bool
	robotsSel string
}

func (c *estopCmd) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.all, "all", false, "e-stop every robot heard on the broker")
	fs.StringVar(&c.robotsSel, "robots", "", "e-stop the robots this selector matches: id globs (rover-*) or labels (site=yard-a,kind=rover)")
}

// estop is `estop [ROBOT]`, `estop --all` and `estop --robots SEL`.
func (c *estopCmd) run(args []string) error {
	if !c.all && c.robotsSel == "" {
		return c.estopOne(args)
	}
	if len(args) > 0 {
		return usageError("give a robot, --all or --robots, not several")
	}
	if c.all && c.robotsSel != "" {
		return usageError("give --all or --robots, not both")
	}
	sel := ground.All()
	if !c.all {
		var err error
		if sel, err = ground.ParseSelector(c.robotsSel); err != nil {
			return usageError("--robots: %v", err)
		}
	}
	return c.fleetCommand(sel, protocol.LeafEStop, protocol.Command{Op: protocol.OpEStop}, nil)
}

// estopOne e-stops one robot, whatever its connection message says: a
// retained OFFLINE may be anyone's (on an open broker any client can
// publish one), so a robot that looks offline is a warning, not a reason
// not to send. With no name it takes the only robot online, else the only
// robot heard at all.
func (c *cli) estopOne(args []string) error {
	name, err := robotArg(args)
	if err != nil {
		return err
	}
	g, err := c.connect(false)
	if err != nil {
		return err
	}
	defer g.Close()
	var info ground.RobotInfo
	known := true
	if name == "" {
		if info, _, err = c.pickRobot(g, ""); err != nil {
			rs := g.Robots()
			if len(rs) != 1 {
				return err
			}
			info = rs[0]
			fmt.Fprintf(c.stderr, "(%s: the only robot heard)\n", info.ID)
		}
	} else {
		info, known = c.robotInfo(g, name)
		info.ID = name
	}
	if err := c.offlineError(g, info.ID, info, known); err != nil {
		fmt.Fprintf(c.stderr, "warning: %v; sending the e-stop anyway\n", err)
	}
	rep, err := c.send(g, info.ID, protocol.Command{Op: protocol.OpEStop})
	if err != nil {
		return err
	}
	return c.reportText(info.ID, protocol.OpEStop, rep, "")
}

// fleetRowJSON is one robot in a fleet command's --json output.
type fleetRowJSON struct {
	Robot      string          `json:"robot"`
	Connection string          `json:"connection"`
	Code       string          `json:"code"` // OK (ESTOP), the refusal's error code, NO_REPLY, or OFFLINE (not sent)
	LatencyMs  *float64        `json:"latency_ms,omitempty"`
	Reply      *protocol.Reply `json:"reply,omitempty"`
}

// fleetJSON is a fleet command's --json output.
type fleetJSON struct {
	Op        string         `json:"op"`
	Selector  string         `json:"selector"`
	Robots    []fleetRowJSON `json:"robots"`
	ElapsedMs float64        `json:"elapsed_ms"` // first publish to last reply (or the timeout)
}

// fleetCommand sends cmd on leaf to every robot sel matches, at once, and
// prints each robot's answer; robots that said OFFLINE are listed, not
// sent to. okText says what an OK reply means for a
// robot (nil: the op's usual words). Exit status: 0 when every robot
// accepted, 1 when one refused, 3 when one did not answer (or none
// matched).
func (c *cli) fleetCommand(sel ground.Selector, leaf string, cmd protocol.Command, okText func(protocol.Reply) string) error {
	g, err := c.connect(false)
	if err != nil {
		return err
	}
	defer g.Close()
	f := ground.NewFleet(g)
	targets, err := c.selectRobots(g, f, sel)
	if err != nil {
		return err
	}
	// A robot that said OFFLINE stopped cleanly (its mission halted, its
	// motors safe): nothing to send it, nothing to wait for; it is listed.
	// Except an e-stop: OFFLINE is a retained message anyone on an open
	// broker can publish, so an e-stop goes to such a robot as well, with a
	// warning, and its silence is not a failure.
	var live []ground.RobotInfo
	var offline, saidOffline []string
	conn := map[string]string{}
	for _, r := range targets {
		conn[r.ID] = r.Connection
		switch {
		case r.Connection != protocol.ConnOffline:
			live = append(live, r)
		case cmd.Op == protocol.OpEStop:
			live = append(live, r)
			saidOffline = append(saidOffline, r.ID)
		default:
			offline = append(offline, r.ID)
		}
	}
	if len(live) == 0 {
		return fail(exitUnreachable, "every robot %q matches is OFFLINE: %s", sel.String(), strings.Join(offline, ", "))
	}
	if len(saidOffline) > 0 {
		fmt.Fprintf(c.stderr, "warning: %s said OFFLINE (a retained message, which any client of the broker may publish): sending the e-stop anyway\n",
			strings.Join(saidOffline, ", "))
	}
	ids := ground.RobotIDs(live)
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	start := time.Now()
	results, err := f.Send(ctx, ids, leaf, cmd)
	if err != nil {
		return fail(exitUnreachable, "sending %s: %v", cmd.Op, err)
	}
	elapsed := time.Since(start)
	var slowest time.Duration
	answered, refused := 0, 0
	var missing []string
	var lats []time.Duration
	silentOffline := 0
	for _, r := range results {
		switch {
		case !r.Answered && slices.Contains(saidOffline, r.Robot):
			silentOffline++
		case !r.Answered:
			missing = append(missing, r.Robot)
		case !r.Reply.OK:
			refused++
			answered++
		default:
			answered++
		}
		if r.Answered {
			lats = append(lats, r.Latency)
			slowest = max(slowest, r.Latency)
		}
	}
	if len(missing) == 0 {
		elapsed = slowest
	}
	if c.json {
		out := fleetJSON{Op: cmd.Op, Selector: sel.String(), ElapsedMs: msf(elapsed), Robots: make([]fleetRowJSON, 0, len(results))}
		for _, r := range results {
			row := fleetRowJSON{Robot: r.Robot, Connection: orDash(conn[r.Robot]), Code: resultCode(cmd.Op, r)}
			if r.Answered {
				l := msf(r.Latency)
				rep := r.Reply
				row.LatencyMs, row.Reply = &l, &rep
			}
			out.Robots = append(out.Robots, row)
		}
		for _, id := range offline {
			out.Robots = append(out.Robots, fleetRowJSON{Robot: id, Connection: protocol.ConnOffline, Code: protocol.ConnOffline})
		}
		if err := c.printJSON(out); err != nil {
			return err
		}
	} else {
		w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "ROBOT\tCONNECTION\tREPLY\tTIME\tDETAIL")
		for _, r := range results {
			code, took, detail := resultCode(cmd.Op, r), "-", ""
			switch {
			case !r.Answered:
				detail = fmt.Sprintf("no reply within %s", c.timeout)
				if slices.Contains(saidOffline, r.Robot) {
					detail += " (sent anyway: it said OFFLINE)"
				}
				if r.Err != nil {
					detail += " (not sent: " + r.Err.Error() + ")"
				}
			case r.Reply.OK:
				took = msText(r.Latency)
				if okText != nil {
					detail = okText(r.Reply)
				} else {
					detail = doneText[cmd.Op]
				}
			default:
				took = msText(r.Latency)
				if e := r.Reply.Error; e != nil {
					detail = oneLine(e.Message)
					if len(e.Problems) > 0 {
						detail = fmt.Sprintf("%s (%s; first at %s: %s)", detail, count(len(e.Problems), "problem"), orDash(e.Problems[0].Path), oneLine(e.Problems[0].Message))
					}
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Robot, orDash(conn[r.Robot]), code, took, detail)
		}
		for _, id := range offline {
			fmt.Fprintf(w, "%s\t%s\t%s\t-\tnot sent: the robot stopped cleanly\n", id, protocol.ConnOffline, protocol.ConnOffline)
		}
		w.Flush()
		line := fleetSummary(cmd.Op, len(results), answered, refused, lats, missing, c.timeout)
		if len(offline) > 0 {
			line += fmt.Sprintf("; %d OFFLINE, not sent", len(offline))
		}
		if silentOffline > 0 {
			line += fmt.Sprintf("; %d said OFFLINE and did not answer", silentOffline)
		}
		fmt.Fprintln(c.stdout, line)
	}
	switch {
	case len(missing) > 0, answered == 0:
		return silent(exitUnreachable)
	case refused > 0:
		return silent(exitRefused)
	}
	return nil
}

// fleetSummary is the line under the table: how many answered, how fast,
// and who did not.
func fleetSummary(op string, sent, answered, refused int, lats []time.Duration, missing []string, timeout time.Duration) string {
	var b strings.Builder
	what := op
	if op == protocol.OpEStop {
		what = "E-STOP"
	}
	fmt.Fprintf(&b, "%s sent to %d robot%s at once: %d answered", what, sent, plural(sent), answered)
	if refused > 0 {
		fmt.Fprintf(&b, " (%d refused)", refused)
	}
	if len(lats) > 0 {
		slices.Sort(lats)
		fmt.Fprintf(&b, ", all within %s (p50 %s)", msText(lats[len(lats)-1]), msText(lats[len(lats)/2]))
	}
	if len(missing) > 0 {
		list := missing
		more := ""
		if len(list) > 20 {
			list, more = list[:20], fmt.Sprintf(" and %d more", len(missing)-20)
		}
		fmt.Fprintf(&b, "; %d did not answer within %s: %s%s", len(missing), timeout, strings.Join(list, ", "), more)
	}
	return b.String()
}

// selectRobots waits for what the broker keeps of the robots (their
// connections and states, and, for a label selector, their factsheets)
// and returns the robots sel matches. None is an error.
func (c *cli) selectRobots(g *ground.Client, f *ground.Fleet, sel ground.Selector) ([]ground.RobotInfo, error) {
	if sel.NeedsLabels() {
		if err := f.FollowLabels(); err != nil {
			return nil, fail(exitUnreachable, "subscribing to the robots' factsheets: %v", err)
		}
	}
	rs := c.settle(g, nil)
	if sel.NeedsLabels() {
		// Factsheets are retained: each robot's follows the subscription.
		deadline := time.Now().Add(min(2*time.Second, c.timeout))
		for time.Now().Before(deadline) && c.ctx.Err() == nil {
			all := true
			for _, r := range rs {
				if _, ok := f.Labels(r.ID); !ok {
					all = false
					break
				}
			}
			if all {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	matched := f.Select(sel)
	if len(matched) == 0 {
		return nil, fail(exitUnreachable, "%v", ground.NoMatchError(sel, g.Robots()))
	}
	return matched, nil
}

// resultCode is a robot's answer in one word: OK (ESTOP for an e-stop the
// robot acknowledged: it is in ESTOP), the refusal's error code, or
// NO_REPLY.
func resultCode(op string, r ground.Result) string {
	switch {
	case !r.Answered:
		return codeNoReply
	case r.Reply.OK:
		if op == protocol.OpEStop {
			return protocol.ModeEStop
		}
		return "OK"
	case r.Reply.Error != nil && r.Reply.Error.Code != "":
		return r.Reply.Error.Code
	}
	return "REFUSED"
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msText(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return d.Round(time.Millisecond).String()
}
