package web

import (
	"bytes"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The dashboard keeps each robot's statuses in a ground.Tree, the tracker
// botctl's terminal view uses too; this file turns it into what tabs get.

// statusKeyframe returns t's statuses as a status frame for a page that
// just connected or a tree that just changed (ok false when there is no
// tree). Statuses no keyframe has shown yet go out as idle, with Known
// false until a keyframe of the tree was applied.
func statusKeyframe(t *ground.Tree) (statusFrame, bool) {
	if !t.HaveTree || len(t.Nodes) == 0 {
		return statusFrame{}, false
	}
	return statusFrame{Mission: t.Mission, Tick: t.Tick, Seq: t.Seq,
		Keyframe: string(bytes.ReplaceAll(t.Status, []byte{'?'}, []byte{'I'})),
		Known:    t.Keyed, Reasons: t.SortedReasons()}, true
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
