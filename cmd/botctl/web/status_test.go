package web

import (
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The dashboard's statuses: a ground.Tree as statusKeyframe shows it to
// tabs (unknown statuses as idle).

// flatTree is a tree of mission with n nodes, all children of node 0.
func flatTree(mission string, revision int64, n int) protocol.TreeMsg {
	m := protocol.TreeMsg{TreeInfo: protocol.TreeInfo{Mission: mission, Revision: revision, Nodes: []protocol.TreeNode{}}}
	for i := range n {
		m.Nodes = append(m.Nodes, protocol.TreeNode{Index: int32(i), Type: "Sequence", Parent: min(int32(i)-1, 0)})
	}
	return m
}

func shown(tr *ground.Tree) string {
	f, _ := statusKeyframe(tr)
	return f.Keyframe
}

func TestStatusFrames(t *testing.T) {
	ch := func(node int32, s byte) protocol.NodeStatus { return protocol.NodeStatus{Node: node, Status: s} }
	type step struct {
		tree     *[2]int // mission index, nodes
		msg      *protocol.StatusMsg
		want     string // statuses after the step
		known    bool
		need     bool
		gaps     uint64
		keyframe bool // apply reported a keyframe
		changes  int  // apply reported this many changes
	}
	tree := func(m, n int) *[2]int { return &[2]int{m, n} }
	missions := []string{"", "m1", "m2"}
	kf := func(m int, seq uint64, s string) *protocol.StatusMsg {
		x := keyframe("r", missions[m], seq, s)
		return &x
	}
	dl := func(m int, seq uint64, c ...protocol.NodeStatus) *protocol.StatusMsg {
		x := delta("r", missions[m], seq, c...)
		return &x
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"keyframe then deltas", []step{
			{tree: tree(1, 3), want: "III", need: true},
			{msg: kf(1, 1, "RII"), want: "RII", known: true, keyframe: true},
			{msg: dl(1, 2, ch(1, 'R')), want: "RRI", known: true, changes: 1},
			{msg: dl(1, 3, ch(1, 'S'), ch(2, 'R')), want: "RSR", known: true, changes: 2},
		}},
		{"a lost delta needs a keyframe", []step{
			{tree: tree(1, 2), want: "II", need: true},
			{msg: kf(1, 1, "RI"), want: "RI", known: true, keyframe: true},
			{msg: dl(1, 3, ch(1, 'S')), want: "RS", known: true, need: true, gaps: 1, changes: 1},
			{msg: dl(1, 4, ch(0, 'S')), want: "SS", known: true, need: true, gaps: 1, changes: 1},
			{msg: kf(1, 5, "SF"), want: "SF", known: true, gaps: 1, keyframe: true},
		}},
		{"a restarted daemon counts as a gap", []step{
			{tree: tree(1, 1), want: "I", need: true},
			{msg: kf(1, 7, "R"), want: "R", known: true, keyframe: true},
			{msg: dl(1, 1, ch(0, 'S')), want: "S", known: true, need: true, gaps: 1, changes: 1},
		}},
		{"keyframe before its tree", []step{
			{tree: tree(1, 2), want: "II", need: true},
			{msg: kf(2, 1, "RRS"), want: "II", need: true},
			{tree: tree(2, 3), want: "RRS", known: true},
		}},
		{"keyframe of the wrong length waits", []step{
			{tree: tree(1, 2), want: "II", need: true},
			{msg: kf(1, 1, "RRR"), want: "II", need: true},
			{tree: tree(1, 2), want: "II", need: true}, // the same tree again changes nothing
		}},
		{"deltas for another mission or node are not applied", []step{
			{tree: tree(1, 2), want: "II", need: true},
			{msg: kf(1, 1, "II"), want: "II", known: true, keyframe: true},
			{msg: dl(2, 2, ch(0, 'R')), want: "II", known: true, need: true},
			{msg: kf(1, 3, "II"), want: "II", known: true, keyframe: true},
			{msg: dl(1, 4, ch(5, 'R'), ch(-1, 'R'), ch(1, 'E')), want: "IE", known: true, need: true, changes: 1},
		}},
		{"status without a tree", []step{
			{msg: dl(1, 1, ch(0, 'R')), want: "", need: true},
			{msg: kf(1, 2, "R"), want: "", need: true},
			{tree: tree(1, 1), want: "R", known: true},
		}},
		{"an empty tree needs nothing", []step{
			{tree: tree(0, 0), want: ""},
			{msg: dl(0, 1), want: ""},
		}},
		{"a new tree starts over", []step{
			{tree: tree(1, 2), want: "II", need: true},
			{msg: kf(1, 1, "SS"), want: "SS", known: true, keyframe: true},
			{tree: tree(2, 2), want: "II", need: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr ground.Tree
			for i, s := range tc.steps {
				var u ground.StatusUpdate
				if s.tree != nil {
					if err := tr.SetTree(flatTree(missions[s.tree[0]], 0, s.tree[1]), time.Time{}); err != nil {
						t.Fatal(err)
					}
				} else {
					u, _ = tr.ApplyStatus(*s.msg, time.Time{})
				}
				got, need := shown(&tr), tr.WantsKeyframe()
				if got != s.want || tr.Keyed != s.known || need != s.need || uint64(tr.Gaps) != s.gaps ||
					u.Keyframe != s.keyframe || len(u.Changes) != s.changes {
					t.Fatalf("step %d: statuses %q known %v need %v gaps %d keyframe %v changes %v; want %q %v %v %d %v %d",
						i, got, tr.Keyed, need, tr.Gaps, u.Keyframe, u.Changes, s.want, s.known, s.need, s.gaps, s.keyframe, s.changes)
				}
			}
		})
	}
}

func TestStatusKeyframeFrame(t *testing.T) {
	var tr ground.Tree
	if _, ok := statusKeyframe(&tr); ok {
		t.Fatal("a keyframe without a tree")
	}
	tr.SetTree(flatTree("m", 1, 3), time.Time{})
	f, ok := statusKeyframe(&tr)
	if !ok || f.Keyframe != "III" || f.Known || f.Mission != "m" {
		t.Fatalf("%+v", f)
	}
	tr.ApplyStatus(keyframe("r", "m", 4, "RSF"), time.Time{})
	f, _ = statusKeyframe(&tr)
	if f.Keyframe != "RSF" || !f.Known || f.Seq != 4 || f.Tick != 40 {
		t.Fatalf("%+v", f)
	}
	// A new revision of the same mission resets the statuses.
	tr.SetTree(flatTree("m", 2, 3), time.Time{})
	if f, _ = statusKeyframe(&tr); f.Keyframe != "III" || f.Known {
		t.Fatalf("%+v", f)
	}
}

// Reasons follow their nodes: a keyframe brings every one, a delta the
// new ones, and a node that leaves F or E loses its reason.
func TestStatusFrameReasons(t *testing.T) {
	var tr ground.Tree
	tr.SetTree(flatTree("m", 1, 3), time.Time{})
	kf := keyframe("r", "m", 1, "RSE")
	kf.Reasons = []protocol.NodeReason{{Node: 2, Code: protocol.FailNodeError, Message: "pose.x is stale"}, {Node: 1, Message: "not failed: ignored"}}
	tr.ApplyStatus(kf, time.Time{})
	f, _ := statusKeyframe(&tr)
	if len(f.Reasons) != 1 || f.Reasons[0].Node != 2 || f.Reasons[0].Message != "pose.x is stale" {
		t.Fatalf("keyframe reasons %+v", f.Reasons)
	}
	d := protocol.StatusMsg{Header: protocol.Header{Robot: "r", Seq: 2}, Mission: "m", Changes: []protocol.NodeStatus{{Node: 2, Status: 'R'}, {Node: 0, Status: 'F'}},
		Reasons: []protocol.NodeReason{{Node: 0, Code: protocol.FailNodeFailure, Message: "gate closed"}}}
	u, _ := tr.ApplyStatus(d, time.Time{})
	if len(u.Changes) != 2 || len(u.Reasons) != 1 || u.Reasons[0].Node != 0 {
		t.Fatalf("delta: changes %+v reasons %+v", u.Changes, u.Reasons)
	}
	f, _ = statusKeyframe(&tr)
	if len(f.Reasons) != 1 || f.Reasons[0].Node != 0 {
		t.Fatalf("after the delta: %+v", f.Reasons)
	}
}
