package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/botd-project/botd/telemetry/protocol"
)

// missions lists the missions a robot keeps (missions.list): after a
// restart, the interrupted one is marked, and `botctl start --mission ID`
// or `botctl resume` runs one of them.
func (c *cli) missions(args []string) error {
	g, info, err := c.connectOnline(args)
	if err != nil {
		return err
	}
	defer g.Close()
	rep, err := c.send(g, info.ID, protocol.Command{Op: protocol.OpMissionsList})
	if err != nil {
		return err
	}
	if !rep.OK {
		return c.reportText(info.ID, protocol.OpMissionsList, rep, "")
	}
	var ms []protocol.MissionSummary
	if raw, err := json.Marshal(rep.Result["missions"]); err == nil {
		_ = json.Unmarshal(raw, &ms)
	}
	if c.json {
		return c.printJSON(ms)
	}
	if len(ms) == 0 {
		fmt.Fprintf(c.stdout, "%s keeps no mission\n", info.ID)
		return nil
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tREVISION\tNODES\tSTATUS")
	interrupted := ""
	for _, m := range ms {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\n", m.ID, orDash(m.Name), m.Revision, m.Nodes, orDash(m.Status))
		if m.Status == protocol.RunInterrupted {
			interrupted = m.Name
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "start one with: botctl start %s --mission ID\n", info.ID)
	if interrupted != "" {
		fmt.Fprintf(c.stdout, "%q was interrupted by a restart: botctl resume %s runs it again, if it allows it\n", interrupted, info.ID)
	}
	return nil
}
