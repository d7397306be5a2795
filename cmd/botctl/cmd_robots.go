package main

import (
	"fmt"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// robotJSON is one robot in `robots --json` and `status --json`.
type robotJSON struct {
	ID         string    `json:"id"`
	Connection string    `json:"connection"`
	LastSeen   time.Time `json:"last_seen"`
	// Stale: no telemetry for ground.DefaultStaleAfter, whatever the
	// connection says (a broker node that died may never publish the
	// robot's last will).
	Stale     bool               `json:"stale"`
	State     *protocol.StateMsg `json:"state"`
	Version   string             `json:"version,omitempty"`
	TreeNodes *int               `json:"tree_nodes,omitempty"`
	// Labels come from the factsheet, with --label, --labels or a label sort.
	Labels map[string]string `json:"labels,omitempty"`
}

// robots lists every robot heard on {prefix}/+/connection and state,
// filtered and sorted as the flags say.
func (c *robotsCmd) run(args []string) error {
	if len(args) > 0 {
		return usageError("robots takes no arguments")
	}
	sel, err := c.robotsOpt.compile()
	if err != nil {
		return err
	}
	g, err := c.connect(false)
	if err != nil {
		return err
	}
	defer g.Close()
	var facts *factsCollector
	if sel.needLabels {
		facts = &factsCollector{labels: map[string]map[string]string{}}
		stop, err := g.WatchFleet(ground.FleetHandlers{Factsheet: facts.add})
		if err != nil {
			return fail(exitUnreachable, "subscribing to the factsheets: %v", err)
		}
		defer stop()
	}
	all := c.settle(g, nil)
	if facts != nil {
		c.settleFacts(facts, all)
	}
	rows := make([]robotJSON, 0, len(all))
	for _, r := range all {
		row := robotJSON{ID: r.ID, Connection: r.Connection, LastSeen: r.LastSeen, State: r.State,
			Stale: r.Stale(c.now(), ground.DefaultStaleAfter)}
		if facts != nil {
			row.Labels = facts.get(r.ID)
		}
		if sel.match(row) {
			rows = append(rows, row)
		}
	}
	sel.sortRows(rows)
	if c.json {
		return c.printJSON(rows)
	}
	if len(all) == 0 {
		fmt.Fprintf(c.stderr, "no robot heard on %s\n", protocol.RobotsFilter(c.prefix, protocol.LeafConnection))
		return nil
	}
	if len(rows) < len(all) {
		fmt.Fprintf(c.stderr, "%d of %d robots match\n", len(rows), len(all))
	}
	if len(rows) == 0 {
		return nil
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	head := "ROBOT\tCONNECTION\tMODE\tMISSION\tBATTERY\tLINK\tLAST SEEN"
	if c.robotsOpt.showLabels {
		head += "\tLABELS"
	}
	fmt.Fprintln(w, head)
	for _, r := range rows {
		mode, mission, battery, link, seen := "-", "-", "-", "-", "-"
		if s := r.State; s != nil {
			mode = modeText(&s.State)
			mission = missionText(s.Mission)
			battery = batteryText(s.Battery)
			link = linkText(s.Link)
			seen = c.when(s.TS)
		}
		conn := orDash(r.Connection)
		if r.Stale && r.Connection == protocol.ConnOnline {
			conn += " (stale)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s", r.ID, conn, mode, mission, battery, link, seen)
		if c.robotsOpt.showLabels {
			fmt.Fprintf(w, "\t%s", labelsText(r.Labels))
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

// status shows one robot's state, factsheet version and tree size.
func (c *cli) status(args []string) error {
	g, picked, known, err := c.connectPick(args, false)
	if err != nil {
		return err
	}
	defer g.Close()
	robot := picked.ID

	var mu sync.Mutex
	var fact *protocol.FactsheetMsg
	var tree *protocol.TreeMsg
	got := make(chan struct{}, 8)
	stop, err := g.Watch(robot, ground.RobotHandlers{
		Factsheet: func(m protocol.FactsheetMsg) { mu.Lock(); fact = &m; mu.Unlock(); got <- struct{}{} },
		Tree:      func(m protocol.TreeMsg) { mu.Lock(); tree = &m; mu.Unlock(); got <- struct{}{} },
		Error: func(topic string, err error) {
			fmt.Fprintf(c.stderr, "warning: could not parse a message on %s: %v\n", topic, err)
		},
	})
	if err != nil {
		return fail(exitUnreachable, "subscribing to %s: %v", robot, err)
	}
	defer stop()
	// An offline robot's last state is still shown, then exit 3.
	info := picked
	onlineErr := c.offlineError(g, robot, info, known)
	if !known {
		return onlineErr
	}
	// The factsheet and tree are retained: they follow the subscription.
	deadline := time.After(min(time.Second, c.timeout))
wait:
	for {
		mu.Lock()
		done := fact != nil && tree != nil
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-got:
		case <-deadline:
			break wait
		case <-c.ctx.Done():
			break wait
		}
	}
	mu.Lock()
	defer mu.Unlock()
	out := robotJSON{ID: info.ID, Connection: info.Connection, LastSeen: info.LastSeen, State: info.State}
	if fact != nil {
		out.Version = fact.Version
	}
	if tree != nil {
		n := len(tree.Nodes)
		out.TreeNodes = &n
	}
	if c.json {
		if err := c.printJSON(out); err != nil {
			return err
		}
	} else {
		c.printStatus(out, tree)
	}
	return onlineErr
}

func (c *cli) printStatus(r robotJSON, tree *protocol.TreeMsg) {
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	defer w.Flush()
	conn := orDash(r.Connection)
	if r.Version != "" {
		conn += ", botd " + r.Version
	}
	fmt.Fprintf(w, "robot\t%s (%s)\n", r.ID, conn)
	s := r.State
	if s == nil {
		fmt.Fprintln(w, "state\tnone heard")
		return
	}
	fmt.Fprintf(w, "mode\t%s\n", modeText(&s.State))
	if m := s.Mission; m != nil {
		line := fmt.Sprintf("%s, revision %d, %s", orDash(m.Name), m.Revision, m.Status)
		if !m.Started.IsZero() {
			line += fmt.Sprintf(", started %s", m.Started.Local().Format("15:04:05"))
			if m.Finished.IsZero() {
				line += fmt.Sprintf(" (%s ago)", age(c.now().Sub(m.Started)))
			}
		}
		if !m.Finished.IsZero() {
			line += fmt.Sprintf(", finished %s", m.Finished.Local().Format("15:04:05"))
		}
		fmt.Fprintf(w, "mission\t%s\n", line)
		fmt.Fprintf(w, "mission id\t%s\n", m.ID)
	} else {
		fmt.Fprintln(w, "mission\tnone")
	}
	if r.TreeNodes != nil && tree != nil && len(tree.Nodes) > 0 {
		fmt.Fprintf(w, "tree\t%s\n", count(*r.TreeNodes, "node"))
	}
	t := s.Tick
	fmt.Fprintf(w, "tick\t%s, count %d, last %s, p99 %s, max %s\n", hz(t.Hz), t.Count, micros(t.LastUs), micros(t.DurP99Us), micros(t.MaxUs))
	fmt.Fprintf(w, "jitter\tp50 %s, p99 %s, max %s; overruns %d (%d in a row)\n", micros(t.JitterP50Us), micros(t.JitterP99Us), micros(t.JitterMaxUs), t.Overruns, t.InARow)
	fmt.Fprintf(w, "failsafe\t%s\n", failsafeText(s.Failsafe))
	fmt.Fprintf(w, "e-stop\t%s\n", estopText(s.EStop))
	fmt.Fprintf(w, "link\t%s\n", linkText(s.Link))
	fmt.Fprintf(w, "battery\t%s\n", batteryText(s.Battery))
	if len(s.Errors) == 0 {
		fmt.Fprintln(w, "errors\tnone")
	}
	for i, e := range s.Errors {
		label := ""
		if i == 0 {
			label = "errors"
		}
		ref := ""
		if e.Ref != "" {
			ref = " (" + e.Ref + ")"
		}
		fmt.Fprintf(w, "%s\t%s %s%s: %s\n", label, e.Level, e.Code, ref, oneLine(e.Message))
	}
	if f := s.LastFailure; f != nil {
		fmt.Fprintf(w, "last failure\t%s\n", failureText(f, time.Local, c.now()))
	}
	fmt.Fprintf(w, "last state\t%s, seq %d\n", c.when(s.TS), s.Seq)
}
