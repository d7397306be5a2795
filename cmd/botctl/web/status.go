package web

import (
	"bytes"
	"slices"

	"github.com/botd-project/botd/telemetry/protocol"
)

// statusTracker keeps one robot's node statuses from status keyframes and
// deltas, and notices when they can no longer be trusted: a gap in the
// status sequence (a lost delta; status is QoS 0), a delta for another
// mission or node, or a tree without a keyframe yet. Need then stays true
// until a keyframe of the current tree arrives.
type statusTracker struct {
	mission  string
	revision int64
	nodes    int
	statuses []byte // one letter per node, I S F R E
	known    bool   // a keyframe of this tree was applied
	tick     uint64
	lastSeq  uint64
	need     bool
	gaps     uint64
	// pending is a keyframe that came before its tree (the topics are
	// not ordered with each other); setTree applies it.
	pending *protocol.StatusMsg
	// reasons say why nodes failed, while their status is F or E.
	reasons map[int32]protocol.NodeReason
}

// setTree starts tracking a tree; it reports whether a pending keyframe
// was applied to it. The same tree again changes nothing.
func (t *statusTracker) setTree(mission string, revision int64, nodes int) (applied bool) {
	if mission == t.mission && revision == t.revision && nodes == t.nodes && t.statuses != nil {
		return false
	}
	t.mission, t.revision, t.nodes = mission, revision, nodes
	t.statuses = bytes.Repeat([]byte{'I'}, nodes)
	t.known, t.tick = false, 0
	t.reasons = nil
	t.need = nodes > 0
	p := t.pending
	t.pending = nil
	if p != nil && p.Mission == mission && len(p.Keyframe) == nodes {
		t.applyKeyframe(*p)
		return true
	}
	return false
}

func (t *statusTracker) applyKeyframe(m protocol.StatusMsg) {
	copy(t.statuses, m.Keyframe)
	t.known, t.need, t.tick = true, false, m.Tick
	t.reasons = nil
	t.addReasons(m.Reasons)
}

// addReasons keeps the reasons of nodes that are failed now and returns
// them.
func (t *statusTracker) addReasons(rs []protocol.NodeReason) []protocol.NodeReason {
	var out []protocol.NodeReason
	for _, r := range rs {
		if r.Node < 0 || int(r.Node) >= t.nodes || (t.statuses[r.Node] != 'F' && t.statuses[r.Node] != 'E') {
			continue
		}
		if t.reasons == nil {
			t.reasons = map[int32]protocol.NodeReason{}
		}
		t.reasons[r.Node] = r
		out = append(out, r)
	}
	return out
}

// apply takes one status message. It returns what the page should get:
// the keyframe, or the changes and reasons that applied (nil: nothing to
// show).
func (t *statusTracker) apply(m protocol.StatusMsg) (keyframe bool, changes []protocol.NodeStatus, reasons []protocol.NodeReason) {
	gap := false
	if m.Seq != 0 {
		// A lower number means the daemon restarted: also a gap.
		if t.lastSeq != 0 && m.Seq != t.lastSeq+1 {
			gap = true
			t.gaps++
		}
		t.lastSeq = m.Seq
	}
	if m.IsKeyframe() {
		if t.statuses == nil || m.Mission != t.mission || len(m.Keyframe) != t.nodes {
			t.pending = &m
			t.need = true
			return false, nil, nil
		}
		t.pending = nil
		t.applyKeyframe(m)
		return true, nil, nil
	}
	if gap {
		t.need = true
	}
	if t.statuses == nil || m.Mission != t.mission || t.nodes == 0 {
		t.need = t.need || m.Mission != ""
		return false, nil, nil
	}
	for _, c := range m.Changes {
		if c.Node < 0 || int(c.Node) >= t.nodes {
			t.need = true // the tree we have is not the robot's
			continue
		}
		t.statuses[c.Node] = c.Status
		if c.Status != 'F' && c.Status != 'E' {
			delete(t.reasons, c.Node)
		}
		changes = append(changes, c)
	}
	t.tick = m.Tick
	return false, changes, t.addReasons(m.Reasons)
}

// keyframe returns the current statuses as a status frame for a page
// that just connected (ok false when there is no tree).
func (t *statusTracker) keyframe() (statusFrame, bool) {
	if t.statuses == nil || t.nodes == 0 {
		return statusFrame{}, false
	}
	f := statusFrame{Mission: t.mission, Tick: t.tick, Seq: t.lastSeq, Keyframe: string(t.statuses), Known: t.known}
	for _, r := range t.reasons {
		f.Reasons = append(f.Reasons, r)
	}
	slices.SortFunc(f.Reasons, func(a, b protocol.NodeReason) int { return int(a.Node) - int(b.Node) })
	return f, true
}

// statusFrame is what the page gets on the status event: a keyframe (one
// letter per node of the current tree) or changes.
type statusFrame struct {
	Mission  string                `json:"mission"`
	Tick     uint64                `json:"tick"`
	Seq      uint64                `json:"seq"`
	Keyframe string                `json:"keyframe,omitempty"`
	Changes  []protocol.NodeStatus `json:"changes,omitempty"`
	// Reasons say why nodes failed: every current one in a keyframe, the
	// new ones with changes (applied after them).
	Reasons []protocol.NodeReason `json:"reasons,omitempty"`
	// Known is false for a keyframe the dashboard made up (all idle)
	// while it waits for the robot's.
	Known bool `json:"known"`
}
