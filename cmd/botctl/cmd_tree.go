package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// treeJSON is `tree --json` output.
type treeJSON struct {
	Robot    string         `json:"robot"`
	Mission  string         `json:"mission"`
	Name     string         `json:"name,omitempty"`
	Revision int64          `json:"revision"`
	Tick     uint64         `json:"tick"`
	Nodes    []treeNodeJSON `json:"nodes"`
}

type treeNodeJSON struct {
	protocol.TreeNode
	Depth  int    `json:"depth"`
	Status string `json:"status"` // I S F R E
	// Reason says why the node failed, when it did and said why.
	Reason *protocol.NodeReason `json:"reason,omitempty"`
}

// tree prints the active mission's tree once, with the statuses of a
// keyframe asked for with state.request.
func (c *cli) tree(args []string) error {
	g, info, err := c.connectOnline(args)
	if err != nil {
		return err
	}
	defer g.Close()
	robot := info.ID
	msgs := make(chan any, 256)
	done := make(chan struct{})
	defer close(done)
	push := func(m any) {
		select {
		case msgs <- m:
		case <-done:
		}
	}
	stop, err := g.Watch(robot, ground.RobotHandlers{
		Tree:   func(m protocol.TreeMsg) { push(m) },
		Status: func(m protocol.StatusMsg) { push(m) },
		Error:  func(topic string, err error) { push(parseError{topic, err}) },
	})
	if err != nil {
		return fail(exitUnreachable, "subscribing to %s: %v", robot, err)
	}
	defer stop()

	sendCtx, cancelSend := context.WithCancel(c.ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancelSend()

	var model ground.Tree
	asked := false
	timeout := time.After(c.timeout)
	for !(model.HaveTree && model.Synced) {
		select {
		case <-c.ctx.Done():
			return &exitError{code: exitUnreachable, err: c.ctx.Err()}
		case <-timeout:
			if !model.HaveTree {
				return fail(exitUnreachable, "no tree from %s within %s", robot, c.timeout)
			}
			return fail(exitUnreachable, "no status keyframe from %s within %s", robot, c.timeout)
		case m := <-msgs:
			now := time.Now()
			switch m := m.(type) {
			case protocol.TreeMsg:
				if err := model.SetTree(m, now); err != nil {
					fmt.Fprintf(c.stderr, "warning: %v\n", err)
				}
			case protocol.StatusMsg:
				if _, err := model.ApplyStatus(m, now); err != nil {
					fmt.Fprintf(c.stderr, "warning: %v\n", err)
				}
			case parseError:
				fmt.Fprintf(c.stderr, "warning: %v\n", m)
			}
		}
		if model.HaveTree && !model.Synced && !asked {
			asked = true
			// The keyframe is what counts, not the reply.
			wg.Go(func() { g.Send(sendCtx, robot, protocol.Command{Op: protocol.OpStateRequest}) })
		}
	}
	name := ""
	if s := info.State; s != nil && s.Mission != nil && s.Mission.ID == model.Mission {
		name = s.Mission.Name
	}
	if c.json {
		out := treeJSON{Robot: robot, Mission: model.Mission, Name: name, Revision: model.Revision, Tick: model.Tick, Nodes: []treeNodeJSON{}}
		for _, i := range model.Order {
			n := treeNodeJSON{TreeNode: model.Nodes[i], Depth: model.Depth[i], Status: string(model.Status[i])}
			if r, ok := model.Reasons[i]; ok {
				n.Reason = &r
			}
			out.Nodes = append(out.Nodes, n)
		}
		return c.printJSON(out)
	}
	if len(model.Nodes) == 0 {
		fmt.Fprintf(c.stdout, "%s has no active mission\n", robot)
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: mission %s (%s, revision %d), %s, tick %d\n",
		robot, orDash(name), model.Mission, model.Revision, count(len(model.Nodes), "node"), model.Tick)
	for _, i := range model.Order {
		why := ""
		if r, ok := model.Reasons[i]; ok {
			why = "  ← " + oneLine(r.Message)
		}
		fmt.Fprintf(c.stdout, "%-8s %s%s%s\n", statusWord(model.Status[i]), strings.Repeat("  ", model.Depth[i]), nodeLabel(model.Nodes[i]), why)
	}
	return nil
}

// parseError is a message that could not be decoded.
type parseError struct {
	topic string
	err   error
}

func (p parseError) Error() string {
	return fmt.Sprintf("could not parse the message on %s: %v", p.topic, p.err)
}
