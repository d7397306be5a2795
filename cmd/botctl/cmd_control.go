package main

import (
	"flag"
	"fmt"

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
	protocol.OpMissionAbort:  "mission aborted",
	protocol.OpEStop:         "E-STOP engaged: nothing moves until estop-reset",
	protocol.OpEStopReset:    "e-stop released; the mission stays paused until resumed",
}

// control is pause, resume, abort, estop and estop-reset: one command to
// one robot.
func control(op string) func(c *cli, args []string) error {
	return func(c *cli, args []string) error {
		return c.command(args, protocol.Command{Op: op})
	}
}

func startFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&c.missionID, "mission", "", "id of a stored mission (default: the robot's current or last mission)")
	fs.BoolVar(&c.replace, "replace", false, "replace the running mission")
}

// start starts a stored mission, by default the robot's current or last.
func (c *cli) start(args []string) error {
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
	return c.report(robot, protocol.OpMissionStart, rep)
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
	return c.report(robot, cmd.Op, rep)
}

// report prints a reply; a refusal is exit status 1.
func (c *cli) report(robot, op string, rep protocol.Reply) error {
	if c.json {
		if err := c.printJSON(replyJSON{Robot: robot, Op: op, Reply: rep}); err != nil {
			return err
		}
	} else if rep.OK {
		text := doneText[op]
		if text == "" {
			text = op + ": ok"
		}
		if op == protocol.OpMissionStart {
			if id, _ := rep.Result["mission_id"].(string); id != "" {
				text = "mission " + id + " started"
			}
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
	fmt.Fprintf(c.stderr, " (%d problem%s)\n", len(e.Problems), plural(len(e.Problems)))
	for _, p := range e.Problems {
		path := p.Path
		if path == "" {
			path = "(document)"
		}
		fmt.Fprintf(c.stderr, "  %s: %s\n", path, oneLine(p.Message))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
