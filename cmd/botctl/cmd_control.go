package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/ground"

	"github.com/botd-project/botd/telemetry/protocol"
)

// replyJSON is what the commands print with --json.
type replyJSON struct {
	Robot string `json:"robot"`
	Op    string `json:"op"`
	protocol.Reply
}

// done messages per op, for people.
var doneText = map[string]string{
	protocol.OpMissionStart:  "mission started",
	protocol.OpMissionPause:  "mission paused",
	protocol.OpMissionResume: "mission resumed",
	protocol.OpMissionAbort:  "mission aborted; the robot is in its safe state",
	protocol.OpEStop:         "E-STOP engaged: nothing moves until estop-reset",
	protocol.OpEStopReset:    "e-stop released",
}

// control is pause, resume, abort, estop and estop-reset: one command to
// one robot.
func control(op string) func(c *cli, args []string) error {
	return func(c *cli, args []string) error {
		return c.command(args, protocol.Command{Op: op})
	}
}

// startCmd is `botctl start` with its options.
type startCmd struct {
	*cli
	missionID string
	replace   bool
}

func (c *startCmd) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.missionID, "mission", "", "id of a stored mission (default: the robot's current or last mission)")
	fs.BoolVar(&c.replace, "replace", false, "replace the running mission")
	signingFlags(c.cli, fs)
}

// start starts a stored mission, by default the robot's current or last.
func (c *startCmd) run(args []string) error {
	g, info, err := c.connectOnline(args)
	if err != nil {
		return err
	}
	defer g.Close()
	robot := info.ID
	id := c.missionID
	if id == "" {
		if info.State == nil || info.State.Mission == nil || info.State.Mission.ID == "" {
			return usageError("%s has no current or last mission: give --mission ID", robot)
		}
		id = info.State.Mission.ID
	}
	rep, err := c.send(g, robot, protocol.Command{Op: protocol.OpMissionStart, MissionID: id, Replace: c.replace})
	if err != nil {
		return err
	}
	text := ""
	if rep.OK {
		text = fmt.Sprintf("mission %s started", c.missionLabel(g, info, id))
	}
	return c.reportText(robot, protocol.OpMissionStart, rep, text)
}

// missionLabel names a mission for people: "patrol" (its name, from the
// robot's state), or its id when the robot does not say.
func (c *cli) missionLabel(g *ground.Client, info ground.RobotInfo, id string) string {
	name := func(s *protocol.StateMsg) string {
		if s != nil && s.Mission != nil && s.Mission.ID == id && s.Mission.Name != "" {
			return s.Mission.Name
		}
		return ""
	}
	if n := name(info.State); n != "" {
		return fmt.Sprintf("%q", n)
	}
	// Another stored mission: the state names it once it runs.
	deadline := time.Now().Add(min(2*time.Second, c.timeout))
	for time.Now().Before(deadline) && c.ctx.Err() == nil {
		for _, r := range g.Robots() {
			if r.ID == info.ID {
				if n := name(r.State); n != "" {
					return fmt.Sprintf("%q", n)
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return id
}

// command connects, checks that the robot is online, sends and reports.
func (c *cli) command(args []string, cmd protocol.Command) error {
	g, info, err := c.connectOnline(args)
	if err != nil {
		return err
	}
	defer g.Close()
	robot := info.ID
	rep, err := c.send(g, robot, cmd)
	if err != nil {
		return err
	}
	text := ""
	if cmd.Op == protocol.OpEStopReset && rep.OK {
		text = "e-stop released; " + afterReset(info.State)
	}
	if note, _ := rep.Result["note"].(string); rep.OK && note != "" && rep.Result["resumed"] == false {
		text = "nothing resumed: " + note
	}
	return c.reportText(robot, cmd.Op, rep, text)
}

// afterReset says what the robot does once the e-stop is released, from
// its state before: a mission that was running or paused stays paused; an
// aborted or finished one is over.
func afterReset(s *protocol.StateMsg) string {
	if s == nil || s.Mission == nil {
		return "no mission is loaded: the robot stays idle"
	}
	m := s.Mission
	switch m.Status {
	case protocol.RunRunning, protocol.RunPaused:
		return fmt.Sprintf("mission %q stays paused until resumed (botctl resume)", orDash(m.Name))
	case protocol.RunInterrupted:
		return fmt.Sprintf("mission %q was interrupted by a restart: botctl resume runs it again, if it allows it", orDash(m.Name))
	}
	return fmt.Sprintf("no mission is running (%q ended %s): the robot stays idle; botctl start runs it again", orDash(m.Name), m.Status)
}

// reportText prints a reply, on success text ("" for the op's usual
// one); a refusal is exit status 1.
func (c *cli) reportText(robot, op string, rep protocol.Reply, text string) error {
	if c.json {
		if err := c.printJSON(replyJSON{Robot: robot, Op: op, Reply: rep}); err != nil {
			return err
		}
	} else if rep.OK {
		if text == "" {
			text = doneText[op]
		}
		if text == "" {
			text = op + ": ok"
		}
		fmt.Fprintf(c.stdout, "%s: %s\n", robot, text)
	} else {
		c.printRefusal(robot, op, rep.Error)
	}
	if !rep.OK {
		return silent(exitRefused)
	}
	return nil
}

// printRefusal prints a refusal with every problem and its path.
func (c *cli) printRefusal(robot, what string, e *protocol.ReplyError) {
	if e == nil {
		fmt.Fprintf(c.stderr, "%s refused %s\n", robot, what)
		return
	}
	fmt.Fprintf(c.stderr, "%s refused %s: %s", robot, what, e.Code)
	if len(e.Problems) == 0 {
		fmt.Fprintf(c.stderr, ": %s", oneLine(e.Message))
		if e.Path != "" {
			fmt.Fprintf(c.stderr, " (at %s)", e.Path)
		}
		fmt.Fprintln(c.stderr)
		return
	}
	n := len(e.Problems) + e.More
	fmt.Fprintf(c.stderr, " (%d problem%s)\n", n, plural(n))
	for _, p := range e.Problems {
		path := p.Path
		if path == "" {
			path = "(document)"
		}
		fmt.Fprintf(c.stderr, "  %s: %s\n", path, oneLine(p.Message))
	}
	if e.More > 0 {
		// The robot lists the first problems of a long refusal and counts the rest.
		fmt.Fprintf(c.stderr, "  ... and %d more (botd check on the file lists them all)\n", e.More)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// count is "1 node", "3 nodes": a number with its noun, in the plural
// unless the number is one.
func count[N int | int32 | int64 | uint64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
