package main

import (
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The watch view's tests feed its ground.Tree these.
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

func mustApply(t *testing.T, m *ground.Tree, s protocol.StatusMsg, now time.Time) {
	t.Helper()
	if _, err := m.ApplyStatus(s, now); err != nil {
		t.Fatal(err)
	}
}

func TestBatteryText(t *testing.T) {
	for _, c := range []struct {
		b    *protocol.BatteryState
		want string
	}{
		{nil, "-"},
		{&protocol.BatteryState{Percent: 93}, "93%"},
		{&protocol.BatteryState{Percent: 96, Voltage: 12.5}, "96% (12.5 V)"},
	} {
		if got := batteryText(c.b); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}
