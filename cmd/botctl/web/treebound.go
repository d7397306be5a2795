package web

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// A robot's tree can be large once inflated (a gzip tree of 190 kB may
// hold 30 MB of JSON), and anyone who can publish on the broker can send
// one. What the dashboard keeps and sends of trees is bounded: per tree,
// per tab over time, and per tab in what waits to be written. Past a bound
// the tab gets a note saying what was left out, not the tree.
const (
	// maxTreeFrame bounds one tree as a tab gets it (its JSON).
	maxTreeFrame = 4 << 20
	// tabTreeBudget bounds the tree bytes one tab gets per treeWindow.
	tabTreeBudget = 16 << 20
	treeWindow    = time.Minute
	// maxTabQueued bounds the bytes waiting to be written to one tab;
	// past it the tab is dropped as too slow (it reconnects).
	maxTabQueued = 32 << 20
)

// treeFrame is a tree as a tab gets it; Note says why its nodes are left
// out (then Mission is empty too, so the tab applies no status to it).
type treeFrame struct {
	protocol.TreeMsg
	Note string `json:"note,omitempty"`
}

// treeNote is m without its nodes, with note.
func treeNote(m protocol.TreeMsg, note string) treeFrame {
	m.TreeInfo = protocol.TreeInfo{Revision: m.Revision, Nodes: []protocol.TreeNode{}}
	m.Encoding, m.Data = "", nil
	return treeFrame{TreeMsg: m, Note: note}
}

func mib(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// treeAllowed charges n tree bytes to s's budget (v.mu held) and reports
// whether they fit.
func (s *subscriber) treeAllowed(now time.Time, n int) bool {
	if now.Sub(s.treeSince) >= treeWindow {
		s.treeSince, s.treeBytes = now, 0
	}
	if s.treeBytes+n > tabTreeBudget {
		return false
	}
	s.treeBytes += n
	return true
}

// onTree keeps and sends a tree within the bounds.
func (v *view) onTree(m protocol.TreeMsg) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if m.Nodes == nil {
		m.Nodes = []protocol.TreeNode{}
	}
	m.Plan.Bound() // the robot bounds it too; anyone may publish a tree
	tf := treeFrame{TreeMsg: m}
	f, err := frame("tree", tf)
	if err != nil {
		v.h.log.Warn("encoding a frame", "event", "tree", "err", err)
		return
	}
	if len(f) > maxTreeFrame {
		note := fmt.Sprintf("the tree of mission %s (%d nodes, %s) is over the dashboard's bound of %s per tree: not shown",
			m.Mission, len(m.Nodes), mib(len(f)), mib(maxTreeFrame))
		v.h.log.Warn("robot tree over the dashboard's bound; not shown", "robot", v.id, "nodes", len(m.Nodes), "bytes", len(f), "max", maxTreeFrame)
		tf = treeNote(m, note)
		if f, err = frame("tree", tf); err != nil {
			return
		}
	}
	v.tree = &tf
	now := v.h.now()
	if err := v.st.SetTree(tf.TreeMsg, now); err != nil {
		v.h.log.Warn("robot tree not usable for statuses", "robot", v.id, "err", err)
	}
	for s := range v.subs {
		if s.treeAllowed(now, len(f)) {
			v.send(s, f)
			continue
		}
		skipped := treeNote(m, fmt.Sprintf("a tree update (%s) was skipped: this tab got %s of trees in the last %v, its bound; reload the page later to see the tree",
			mib(len(f)), mib(s.treeBytes), treeWindow))
		if nf, err := frame("tree", skipped); err == nil {
			v.send(s, nf)
		}
	}
	if kf, ok := statusKeyframe(&v.st); ok { // a tab resets its statuses with a new tree
		v.broadcast("status", kf)
	}
	v.afterStatus()
}
