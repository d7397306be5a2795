package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/hint"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// missionCmd is `botctl mission send` with its options.
type missionCmd struct {
	*cli
	robot, robotsSel  string
	startNow, replace bool
	missionID         string
	revision          int64 // -1: the file's
}

func (c *missionCmd) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.robot, "robot", "", "the robot to send the mission to (default: the only robot online)")
	fs.StringVar(&c.robotsSel, "robots", "", "send to every robot this selector matches, at once: id globs (rover-*) or labels (site=yard-a,kind=rover)")
	fs.BoolVar(&c.startNow, "start", false, "start the mission once accepted")
	fs.BoolVar(&c.replace, "replace", false, "replace the running mission (halted first)")
	fs.StringVar(&c.missionID, "id", "", "the mission's id, for a file without one (a BehaviorTree.CPP or Behavior3 file has no place for it; default: derived from its name)")
	fs.Int64Var(&c.revision, "revision", -1, "the mission's revision, for a file that cannot hold one (BehaviorTree.CPP, Behavior3): raise it to update a stored mission")
	signingFlags(c.cli, fs)
}

// sendJSON is `mission send --json` output.
type sendJSON struct {
	Robot       string `json:"robot"`
	File        string `json:"file"`
	MissionID   string `json:"mission_id,omitempty"`
	IDGenerated bool   `json:"id_generated,omitempty"`
	// Local is true when botctl found the problems itself and sent nothing.
	Local bool `json:"local,omitempty"`
	protocol.Reply
}

// mission is `mission send FILE --robot R ...`.
func (c *missionCmd) run(args []string) error {
	if len(args) == 0 || args[0] != "send" {
		return usageError("the mission command is: botctl mission send FILE --robot ROBOT")
	}
	if len(args) != 2 {
		return usageError("mission send takes one file, got %d arguments", len(args)-1)
	}
	file := args[1]
	var named []string
	if c.robot != "" {
		named = []string{c.robot}
	}
	if _, err := robotArg(named); err != nil {
		return err
	}
	var sel ground.Selector
	if c.robotsSel != "" {
		if c.robot != "" {
			return usageError("give --robot or --robots, not both")
		}
		var err error
		if sel, err = ground.ParseSelector(c.robotsSel); err != nil {
			return usageError("--robots: %v", err)
		}
	}
	mf, err := c.readMission(file, c.robot)
	if err != nil {
		return err
	}
	payload, generated, err := c.identify(mf)
	if err != nil {
		return err
	}
	// With a signing key (--key, $BOTCTL_SIGNING_KEY) the ground client
	// adds the signed envelope.
	cmd := protocol.Command{Op: protocol.OpMissionLoad, Mission: payload, Start: c.startNow, Replace: c.replace}

	if c.robotsSel != "" {
		return c.fleetCommand(sel, protocol.LeafCmd, cmd, func(rep protocol.Reply) string { return acceptedText(mf.doc, rep) })
	}
	g, info, err := c.connectOnline(named)
	if err != nil {
		return err
	}
	defer g.Close()
	c.robot = info.ID
	rep, err := c.send(g, c.robot, cmd)
	if err != nil {
		return err
	}
	if c.json {
		if err := c.printJSON(sendJSON{Robot: c.robot, File: file, MissionID: mf.doc.ID, IDGenerated: generated, Reply: rep}); err != nil {
			return err
		}
	} else if rep.OK {
		c.printAccepted(mf.doc, rep)
	} else {
		c.printRefusal(c.robot, fmt.Sprintf("mission %q", missionName(mf.doc)), c.withHints(g, c.robot, rep.Error))
		if h := revisionHint(mf, rep.Error); h != "" {
			fmt.Fprintln(c.stderr, h)
		}
	}
	if !rep.OK {
		return silent(exitRefused)
	}
	return nil
}

func (c *missionCmd) printAccepted(d *missions.Document, rep protocol.Reply) {
	fmt.Fprintf(c.stdout, "%s: %s\n", c.robot, acceptedText(d, rep))
}

// acceptedText says what a robot did with a mission it accepted.
func acceptedText(d *missions.Document, rep protocol.Reply) string {
	what := "accepted"
	if u, _ := rep.Result["unchanged"].(bool); u {
		what = "already stored (unchanged)"
	}
	if s, _ := rep.Result["started"].(bool); s {
		what += " and started"
	}
	nodes := ""
	if n, ok := rep.Result["nodes"].(float64); ok {
		nodes = ", " + count(int(n), "node")
	}
	return fmt.Sprintf("mission %q %s (id %s, revision %d%s)", missionName(d), what, d.ID, d.Revision, nodes)
}

// withHints adds "did you mean" to a refusal's unknown node types (the
// robot's factsheet lists its types) and parameters.
func (c *cli) withHints(g *ground.Client, robot string, e *protocol.ReplyError) *protocol.ReplyError {
	if e == nil || len(e.Problems) == 0 {
		return e
	}
	var types []string
	for _, p := range e.Problems {
		if p.Code == protocol.ErrUnknownNodeType {
			types = c.nodeTypes(g, robot)
			break
		}
	}
	ps := make(bt.Problems, len(e.Problems))
	for i, p := range e.Problems {
		ps[i] = bt.Problem{Path: p.Path, Message: p.Message, Code: p.Code}
	}
	out := *e
	out.Problems = make([]protocol.ReplyProblem, len(ps))
	for i, p := range hint.Problems(ps, types) {
		out.Problems[i] = protocol.ReplyProblem{Path: p.Path, Message: p.Message, Code: p.Code}
	}
	return &out
}

// nodeTypes are the node types (and aliases) of the robot's factsheet,
// nil when it does not come in a moment.
func (c *cli) nodeTypes(g *ground.Client, robot string) []string {
	got := make(chan protocol.FactsheetMsg, 1)
	stop, err := g.Watch(robot, ground.RobotHandlers{Factsheet: func(m protocol.FactsheetMsg) {
		select {
		case got <- m:
		default:
		}
	}})
	if err != nil {
		return nil
	}
	defer stop()
	select {
	case f := <-got:
		var types []string
		for _, t := range f.NodeTypes {
			types = append(append(types, t.Name), t.Aliases...)
		}
		return types
	case <-time.After(min(2*time.Second, c.timeout)):
	case <-c.ctx.Done():
	}
	return nil
}

func missionName(d *missions.Document) string {
	if d.Name != "" {
		return d.Name
	}
	return d.ID
}

// missionFile is a mission read from disk and decoded.
type missionFile struct {
	path string
	data []byte
	doc  *missions.Document
}

// readMission reads and decodes a mission locally, so that problems are
// reported before anything is sent (exit 1, every problem with its path);
// robot is where it was to go, for --json.
func (c *cli) readMission(path, robot string) (*missionFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	doc, err := missions.Decode(data)
	if err != nil {
		var ps bt.Problems
		if !errors.As(err, &ps) {
			return nil, fail(exitRefused, "%s: %v", path, err)
		}
		if c.json {
			rep := protocol.Reply{Error: &protocol.ReplyError{Code: ps[0].Code, Message: "the mission does not decode", Path: ps[0].Path}}
			for _, p := range ps {
				rep.Error.Problems = append(rep.Error.Problems, protocol.ReplyProblem{Path: p.Path, Message: p.Message, Code: p.Code})
			}
			c.printJSON(sendJSON{Robot: robot, File: path, Local: true, Reply: rep})
		} else {
			fmt.Fprintf(c.stderr, "%s: the mission has %d problem%s (nothing was sent):\n", path, len(ps), plural(len(ps)))
			for _, p := range ps {
				fmt.Fprintf(c.stderr, "  %s\n", p.String())
			}
		}
		return nil, silent(exitRefused)
	}
	return &missionFile{path: path, data: data, doc: doc}, nil
}

// payload is the document as the file has it: a JSON value when it is
// JSON, else a JSON string (YAML, XML), which the robot decodes the same
// way botctl did.
func (m *missionFile) payload() json.RawMessage {
	if json.Valid(m.data) {
		var b bytes.Buffer
		if json.Compact(&b, m.data) == nil {
			return b.Bytes()
		}
	}
	s, _ := json.Marshal(string(m.data))
	return s
}
