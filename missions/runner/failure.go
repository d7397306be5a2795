package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Failure reasons: a node that ends with ERROR says why through the
// agent's sink (level "error"); the runner keeps that message on the
// node (the status board sends it with the node's status) and as the
// state's last_failure, and when the mission ends with anything but
// SUCCESS it names the node that decided it, with its message, in the
// end event, in last_failure and, while that mission is the robot's
// current one, in state.errors.

// nodeError records a node's error message (tick goroutine).
func (r *Runner) nodeError(run *activeRun, a *bt.Agent, node int32, msg string, now time.Time) {
	if a != run.agent {
		return // a failsafe tree: its nodes are not the tree on the tree topic
	}
	nr := protocol.NodeReason{Node: node, Code: protocol.FailNodeError, Message: msg, Time: now.UTC()}
	run.board.setReason(nr)
	f := r.failureAt(run, node, protocol.FailNodeError, msg, now)
	run.lastErr = &f
	r.setLastFailure(f)
}

// failureAt describes node of run's tree.
func (r *Runner) failureAt(run *activeRun, node int32, code, msg string, now time.Time) protocol.Failure {
	d := run.s.m.Doc
	f := protocol.Failure{Mission: d.ID, MissionName: d.Name, Revision: d.Revision, Code: code, Message: msg, Time: now.UTC()}
	t := run.s.m.Tree
	if node >= 0 && int(node) < t.Len() {
		n := t.Node(int(node))
		i := node
		f.Node, f.Path, f.NodeName = &i, n.Path, nodeLabel(n)
	}
	return f
}

func nodeLabel(n *bt.Node) string {
	typ := ""
	if n.Type != nil {
		typ = n.Type.Name
	}
	switch {
	case n.Name == "" || n.Name == typ:
		return typ
	case typ == "":
		return n.Name
	}
	return fmt.Sprintf("%s (%s)", n.Name, typ)
}

// endFailure says why run ends with status (nil for SUCCESS). why is the
// cause of an abort or an internal error; for FAILURE and ERROR the tree
// says: the deepest node on the path of failed nodes from the root, with
// its own message when it gave one.
func (r *Runner) endFailure(run *activeRun, status, why string, now time.Time) *protocol.Failure {
	var f protocol.Failure
	switch status {
	case protocol.RunSucceeded:
		return nil
	case protocol.RunAborted:
		f = r.failureAt(run, -1, protocol.FailAborted, why, now)
	case protocol.RunErrored, protocol.RunFailed:
		want, code := bt.Error, protocol.FailNodeError
		if status == protocol.RunFailed {
			want, code = bt.Failure, protocol.FailNodeFailure
		}
		node := failedLeaf(run.agent, want)
		msg := ""
		if nr, ok := run.board.reason(node); ok && node >= 0 {
			msg = nr.Message
		}
		switch {
		case why != "":
			code, msg = protocol.FailInternal, why
		case msg == "" && status == protocol.RunErrored && run.lastErr != nil && run.lastErr.Node != nil:
			// The node that said why is no longer on the failed path
			// (a parent turned its error into this one): report it.
			node, msg = *run.lastErr.Node, run.lastErr.Message
		case msg == "" && node >= 0:
			msg = fmt.Sprintf("%s returned %s", nodeLabel(run.s.m.Tree.Node(int(node))), status)
		case msg == "":
			msg = "the mission returned " + status
		}
		f = r.failureAt(run, node, code, msg, now)
	default:
		return nil
	}
	f.Status = status
	return &f
}

// failedLeaf follows the nodes whose status is want from the root down
// (the last such child at each level: the one that decided) and returns
// the deepest, or -1 when the root's status is not want.
func failedLeaf(a *bt.Agent, want bt.Status) int32 {
	t := a.Tree()
	if t.Len() == 0 || a.Status(0) != want {
		return -1
	}
	node := int32(0)
	for {
		next := int32(-1)
		for _, c := range t.Node(int(node)).Children {
			if a.Status(c) == want {
				next = c
			}
		}
		if next < 0 {
			return node
		}
		node = next
	}
}

func (r *Runner) setLastFailure(f protocol.Failure) {
	r.mu.Lock()
	r.lastFailure = &f
	r.mu.Unlock()
	r.signal()
}

// endError is the state.errors entry of a run that ended badly, while it
// is the robot's current mission (tick goroutine).
func endError(run *activeRun) (protocol.StateError, bool) {
	f := run.end
	if f == nil || f.Status == protocol.RunAborted {
		return protocol.StateError{}, false // an abort is not a problem of the robot's
	}
	level := "ERROR"
	ref := f.Path
	if f.NodeName != "" {
		ref = strings.TrimSpace(f.NodeName + " " + f.Path)
	}
	return protocol.StateError{Code: "MISSION_" + f.Status, Level: level, Ref: ref, Message: f.Message, Node: f.Node, Time: f.Time}, true
}

// endMessage is the end event's message.
func endMessage(name, status string, f *protocol.Failure) string {
	s := fmt.Sprintf("mission %q ended: %s", name, status)
	if f == nil {
		return s
	}
	if f.NodeName != "" {
		s += " at " + f.NodeName
	}
	if f.Message != "" {
		s += ": " + f.Message
	}
	return s
}
