package ground

import (
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// testTree is
//
//	0 root (Sequence)
//	  1 a (Wait)
//	  2 b (Fallback)
//	    3 c (Check)
//	    4 d (MoveTo)
func testTree(mission string) protocol.TreeMsg {
	return protocol.TreeMsg{Header: protocol.Header{Robot: "r1", Seq: 1}, TreeInfo: protocol.TreeInfo{
		Mission: mission, Revision: 2, Nodes: []protocol.TreeNode{
			{Index: 0, Type: "Sequence", Name: "root", Parent: -1},
			{Index: 1, Type: "Wait", Name: "a", Parent: 0},
			{Index: 2, Type: "Fallback", Name: "b", Parent: 0},
			{Index: 3, Type: "Check", Name: "c", Parent: 2},
			{Index: 4, Type: "MoveTo", Name: "d", Parent: 2},
		}}}
}

func keyframe(seq uint64, mission, letters string) protocol.StatusMsg {
	return protocol.StatusMsg{Header: protocol.Header{Robot: "r1", Seq: seq}, Mission: mission, Tick: seq * 10, Keyframe: letters}
}

func delta(seq uint64, mission string, changes ...protocol.NodeStatus) protocol.StatusMsg {
	return protocol.StatusMsg{Header: protocol.Header{Robot: "r1", Seq: seq}, Mission: mission, Tick: seq * 10, Changes: changes}
}

func ns(node int32, s byte) protocol.NodeStatus { return protocol.NodeStatus{Node: node, Status: s} }

func mustApply(t *testing.T, m *Tree, s protocol.StatusMsg, now time.Time) {
	t.Helper()
	if _, err := m.ApplyStatus(s, now); err != nil {
		t.Fatal(err)
	}
}

func TestTreeAssemblesTreeKeyframeAndDeltas(t *testing.T) {
	var m Tree
	if err := m.SetTree(testTree("m1"), at(0)); err != nil {
		t.Fatal(err)
	}
	if got := string(m.Status); got != "?????" {
		t.Fatalf("statuses before a keyframe: %q", got)
	}
	if m.Synced {
		t.Fatal("synced before a keyframe")
	}
	if want := []int{0, 1, 1, 2, 2}; !equalInts(m.Depth, want) {
		t.Errorf("depths %v, want %v", m.Depth, want)
	}
	mustApply(t, &m, keyframe(1, "m1", "RSRFR"), at(100*time.Millisecond))
	if !m.Synced || string(m.Status) != "RSRFR" || m.Tick != 10 {
		t.Fatalf("after keyframe: synced %v, statuses %q, tick %d", m.Synced, m.Status, m.Tick)
	}
	// A node first seen running by a keyframe has been running at least
	// that long.
	if !m.Approx[4] || m.RunningFor(4, at(time.Second)) != 900*time.Millisecond {
		t.Errorf("node 4: approx %v, running for %v", m.Approx[4], m.RunningFor(4, at(time.Second)))
	}
	mustApply(t, &m, delta(2, "m1", ns(4, 'S'), ns(2, 'S'), ns(0, 'S')), at(2*time.Second))
	if string(m.Status) != "SSSFS" {
		t.Fatalf("after delta: %q", m.Status)
	}
	mustApply(t, &m, delta(3, "m1", ns(0, 'R'), ns(1, 'R')), at(3*time.Second))
	if d := m.RunningFor(1, at(5*time.Second)); d != 2*time.Second || m.Approx[1] {
		t.Errorf("node 1 running for %v (approx %v), want exactly 2s", d, m.Approx[1])
	}
	if d := m.RunningFor(2, at(5*time.Second)); d != 0 {
		t.Errorf("a node that is not running runs for %v", d)
	}
	if m.Gaps != 0 || m.AskKeyframe(at(10*time.Second)) {
		t.Errorf("no gap, no keyframe wanted: gaps %d", m.Gaps)
	}
}

func TestTreeSeqGapAsksForKeyframeAndRebuilds(t *testing.T) {
	var m Tree
	m.SetTree(testTree("m1"), at(0))
	mustApply(t, &m, keyframe(7, "m1", "RRIII"), at(0))
	mustApply(t, &m, delta(8, "m1", ns(1, 'S'), ns(2, 'R')), at(time.Second))
	// seq 9 and 10 are lost.
	mustApply(t, &m, delta(11, "m1", ns(3, 'F')), at(2*time.Second))
	if m.Synced || m.Gaps != 1 || !strings.Contains(m.LastGap, "seq 11 after 8: 2 lost") {
		t.Fatalf("after a gap: synced %v, gaps %d, %q", m.Synced, m.Gaps, m.LastGap)
	}
	if m.Status[3] != 'F' {
		t.Error("the delta after the gap is still applied")
	}
	if !m.AskKeyframe(at(2 * time.Second)) {
		t.Fatal("no keyframe asked for after a gap")
	}
	if m.AskKeyframe(at(3 * time.Second)) {
		t.Fatal("asked again before the retry period")
	}
	if !m.AskKeyframe(at(4 * time.Second)) {
		t.Fatal("not asked again after the retry period without a keyframe")
	}
	mustApply(t, &m, keyframe(12, "m1", "RSSFR"), at(5*time.Second))
	if !m.Synced || string(m.Status) != "RSSFR" || m.WantsKeyframe() {
		t.Fatalf("rebuilt from keyframe: synced %v, %q, wants %v", m.Synced, m.Status, m.WantsKeyframe())
	}
	if m.AskKeyframe(at(time.Minute)) {
		t.Error("asked for a keyframe once synced")
	}
	// Node 0 kept running through the gap: its time is not reset.
	if d := m.RunningFor(0, at(6*time.Second)); d != 6*time.Second {
		t.Errorf("root running for %v, want 6s", d)
	}
}

func TestTreeRobotRestartIsAGap(t *testing.T) {
	var m Tree
	m.SetTree(testTree("m1"), at(0))
	mustApply(t, &m, keyframe(500, "m1", "RRIII"), at(0))
	mustApply(t, &m, delta(1, "m1", ns(1, 'S')), at(time.Second))
	if m.Gaps != 1 || !strings.Contains(m.LastGap, "restarted") || !m.AskKeyframe(at(time.Second)) {
		t.Fatalf("seq went back: gaps %d, %q", m.Gaps, m.LastGap)
	}
}

func TestTreeNewTreeWaitsBrieflyForItsKeyframe(t *testing.T) {
	var m Tree
	m.SetTree(testTree("m1"), at(0))
	if m.AskKeyframe(at(500 * time.Millisecond)) {
		t.Fatal("asked at once: the robot sends a keyframe with every new tree")
	}
	mustApply(t, &m, keyframe(1, "m1", "IIIII"), at(600*time.Millisecond))
	if m.AskKeyframe(at(5 * time.Second)) {
		t.Fatal("asked although the keyframe came")
	}
	// A second tree whose keyframe never comes.
	m.SetTree(testTree("m2"), at(10*time.Second))
	if string(m.Status) != "?????" || m.Synced {
		t.Fatalf("a new mission's tree keeps old statuses: %q", m.Status)
	}
	if !m.AskKeyframe(at(11 * time.Second)) {
		t.Fatal("no keyframe asked for when the new tree's one did not come")
	}
}

func TestTreeSameTreeKeepsStatuses(t *testing.T) {
	var m Tree
	m.SetTree(testTree("m1"), at(0))
	mustApply(t, &m, keyframe(1, "m1", "RSRIR"), at(0))
	m.SetTree(testTree("m1"), at(time.Second)) // retained copy after a reconnect
	if string(m.Status) != "RSRIR" || !m.Synced {
		t.Fatalf("the same tree again reset the statuses: %q", m.Status)
	}
	changed := testTree("m1")
	changed.Revision = 3
	m.SetTree(changed, at(2*time.Second))
	if string(m.Status) != "?????" {
		t.Fatalf("a new revision keeps the statuses: %q", m.Status)
	}
}

func TestTreeRejectsWhatItCannotPlace(t *testing.T) {
	var m Tree
	bad := testTree("m1")
	bad.Nodes[3].Parent = 4 // after itself: a cycle is possible
	if err := m.SetTree(bad, at(0)); err == nil || m.HaveTree {
		t.Fatalf("a tree with a child before its parent: err %v, have %v", err, m.HaveTree)
	}
	m.SetTree(testTree("m1"), at(0))
	mustApply(t, &m, keyframe(1, "m1", "IIIII"), at(0))
	if _, err := m.ApplyStatus(keyframe(2, "m1", "RRR"), at(time.Second)); err == nil {
		t.Error("a keyframe of the wrong length was applied")
	}
	if m.Synced || !m.AskKeyframe(at(time.Second)) {
		t.Error("a bad keyframe does not ask for a good one")
	}
	mustApply(t, &m, keyframe(3, "m1", "IIIII"), at(2*time.Second))
	if _, err := m.ApplyStatus(delta(4, "m1", ns(9, 'R'), ns(1, 'R')), at(3*time.Second)); err == nil {
		t.Error("a change for node 9 of 5 was accepted")
	}
	if m.Status[1] != 'R' {
		t.Error("the valid change next to a bad one was dropped")
	}
	// A status of another mission: the tree is not here yet.
	m2 := Tree{}
	m2.SetTree(testTree("m1"), at(0))
	mustApply(t, &m2, keyframe(1, "m1", "IIIII"), at(0))
	mustApply(t, &m2, keyframe(2, "m2", "RRRRRRRR"), at(time.Second))
	if string(m2.Status) != "IIIII" || m2.Synced {
		t.Fatalf("status of another mission: %q, synced %v", m2.Status, m2.Synced)
	}
	if !m2.AskKeyframe(at(3 * time.Second)) {
		t.Error("the missing tree is not asked for")
	}
}

func TestTreeResetAfterReconnect(t *testing.T) {
	var m Tree
	m.SetTree(testTree("m1"), at(0))
	mustApply(t, &m, keyframe(5, "m1", "RRIII"), at(0))
	m.Reset(at(time.Minute))
	if m.Synced || !m.AskKeyframe(at(time.Minute)) {
		t.Fatal("a reconnect does not ask for a keyframe")
	}
	// The robot's seq moved on while we were away: not another gap.
	mustApply(t, &m, keyframe(90, "m1", "RSIII"), at(time.Minute+time.Second))
	if !m.Synced || m.Gaps != 0 {
		t.Fatalf("after reconnect keyframe: synced %v, gaps %d", m.Synced, m.Gaps)
	}
}

func TestTreeEmptyTree(t *testing.T) {
	var m Tree
	m.SetTree(protocol.TreeMsg{TreeInfo: protocol.TreeInfo{Nodes: []protocol.TreeNode{}}}, at(0))
	if !m.HaveTree || !m.Synced || len(m.Order) != 0 {
		t.Fatalf("no mission: have %v, synced %v", m.HaveTree, m.Synced)
	}
	if m.AskKeyframe(at(time.Minute)) {
		t.Error("asked for a keyframe of no mission")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A reason lasts while its node stays failed: a keyframe brings them all,
// a delta new ones, and a status change clears the node's.
func TestTreeReasons(t *testing.T) {
	var m Tree
	if err := m.SetTree(testTree("m1"), at(0)); err != nil {
		t.Fatal(err)
	}
	kf := keyframe(1, "m1", "RSRER")
	kf.Reasons = []protocol.NodeReason{{Node: 3, Message: "stale"}, {Node: 1, Message: "not failed"}, {Node: 9, Message: "no such node"}}
	mustApply(t, &m, kf, at(time.Second))
	if len(m.Reasons) != 1 || m.Reasons[3].Message != "stale" {
		t.Fatalf("reasons %+v", m.Reasons)
	}
	d := delta(2, "m1", ns(3, 'R'), ns(4, 'F'))
	d.Reasons = []protocol.NodeReason{{Node: 4, Message: "gate closed"}}
	mustApply(t, &m, d, at(2*time.Second))
	if len(m.Reasons) != 1 || m.Reasons[4].Message != "gate closed" {
		t.Fatalf("reasons after the delta %+v", m.Reasons)
	}
}

// The tree and status topics are not ordered with each other: a keyframe
// that comes first waits for its tree, and no keyframe is asked for.
func TestTreeKeyframeBeforeItsTree(t *testing.T) {
	var m Tree
	mustApply(t, &m, keyframe(1, "m1", "RSRFR"), at(0))
	if !m.WantsKeyframe() || m.HaveTree {
		t.Fatalf("a keyframe without its tree: wants %v, have %v", m.WantsKeyframe(), m.HaveTree)
	}
	if err := m.SetTree(testTree("m1"), at(time.Second)); err != nil {
		t.Fatal(err)
	}
	if !m.Synced || !m.Keyed || string(m.Status) != "RSRFR" || m.WantsKeyframe() || m.AskKeyframe(at(time.Minute)) {
		t.Fatalf("the waiting keyframe: synced %v, keyed %v, %q, wants %v", m.Synced, m.Keyed, m.Status, m.WantsKeyframe())
	}
	// One of another mission is not applied to this tree.
	mustApply(t, &m, keyframe(2, "m2", "RR"), at(2*time.Second))
	if err := m.SetTree(testTree("m3"), at(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	if m.Keyed || string(m.Status) != "?????" {
		t.Fatalf("another mission's keyframe applied: %q", m.Status)
	}
}
