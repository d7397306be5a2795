package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const nav2Default = "testdata/nav2/navigate_to_pose_w_replanning_and_recovery.xml"

func TestCheckSubstitute(t *testing.T) {
	code, out, _ := runCmd(t, "check", nav2Default)
	if code != 1 || !strings.Contains(out, `unknown node type "ComputePathToPose"`) {
		t.Fatalf("without stand-ins: exit %d\n%s", code, out)
	}
	if code, out, errOut := runCmd(t, "check", "-substitute", "*=Succeed", nav2Default); code != 0 || !checkedOK(out, nav2Default) {
		t.Fatalf("with *=Succeed: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCmd(t, "check", "-substitute", "A=Running:x", nav2Default); code != 2 || !strings.Contains(errOut, "status script") {
		t.Fatalf("bad rule: exit %d\n%s", code, errOut)
	}
}

// A SubTree of a tree in no file or library fails the check; a rule
// stands in for it and check says so, once per tree and stand-in.
func TestCheckSubstituteMissingSubTree(t *testing.T) {
	file := filepath.Join(t.TempDir(), "objective.xml")
	if err := os.WriteFile(file, []byte(`<root BTCPP_format="4" main_tree_to_execute="Pick">
  <BehaviorTree ID="Pick">
    <Sequence>
      <SubTree ID="Move to Waypoint" waypoint_name="Look"/>
      <SubTree ID="Clear Snapshot"/>
      <SubTree ID="Move to Waypoint" waypoint_name="Place"/>
    </Sequence>
  </BehaviorTree>
</root>`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "check", file)
	if code != 1 || !strings.Contains(out, `line 4: <SubTree> tree: unknown tree "Move to Waypoint"`) {
		t.Fatalf("without stand-ins: exit %d\n%s", code, out)
	}
	code, out, errOut := runCmd(t, "check", "-substitute", "*=Succeed,Clear Snapshot=Failure", file)
	want := file + ": ok (4 nodes)\n" +
		file + `: warning: no tree "Move to Waypoint" in the files or the library: its SubTree stands in as Succeed (/trees/Pick/children/0 and 1 more)` + "\n" +
		file + `: warning: no tree "Clear Snapshot" in the files or the library: its SubTree stands in as Failure (/trees/Pick/children/1)` + "\n"
	if code != 0 || out != want {
		t.Fatalf("with stand-ins: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
}

// A BehaviorTree.CPP file's own node that shares a name with one of
// botd's is not stood in for by '*'; check says how to.
func TestCheckOwnNodeClash(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">`+body+`</BehaviorTree></root>`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := write("own.xml", `<MoveTo goal="-1;3;0.5"/>`)
	code, out, _ := runCmd(t, "check", own)
	if code != 1 || !strings.Contains(out, own+": note: if MoveTo in this file is a node of your own rather than botd's MoveTo, stand in for it: -substitute 'MoveTo=Succeed'") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "check", "-substitute", "MoveTo=Succeed", own); code != 0 {
		t.Fatalf("with the rule: exit %d\n%s", code, out)
	}
	// '*' stands in for it too, and says so.
	if code, out, _ := runCmd(t, "check", "-substitute", "*=Succeed", own); code != 0 ||
		!strings.Contains(out, own+": warning: MoveTo takes other parameters than botd's MoveTo here (another framework's node): it stands in as Succeed (/trees/Main)") {
		t.Fatalf("with *: exit %d\n%s", code, out)
	}
	// A typo of botd's parameter is a typo, not another node.
	typo := write("typo.xml", `<MoveTo x="1" yy="2"/>`)
	if code, out, _ := runCmd(t, "check", "-substitute", "*=Succeed", typo); code != 1 || strings.Contains(out, "note:") || !strings.Contains(out, `did you mean "y"?`) {
		t.Fatalf("typo: exit %d\n%s", code, out)
	}
}

// traceStatuses reads a trace and returns, per tick, the statuses the
// named nodes returned ("name:STATUS" in order) and the halts.
func traceLines(t *testing.T, out string, names ...string) []string {
	t.Helper()
	nodes, ticks := readTrace(t, out)
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	label := func(i int) string {
		if nodes[i].Name != "" {
			return nodes[i].Name
		}
		return nodes[i].Type
	}
	var lines []string
	for _, tk := range ticks {
		var b strings.Builder
		b.WriteString(tk.Root)
		for _, e := range tk.Events {
			if !want[label(e.Node)] || (e.Event != "tick" && e.Event != "halt") {
				continue
			}
			b.WriteString(" " + label(e.Node) + ":")
			if e.Event == "halt" {
				b.WriteString("halt")
			} else {
				b.WriteString(e.Status)
			}
		}
		lines = append(lines, b.String())
	}
	return lines
}

// Nav2's default NavigateToPose tree runs in botd sim with its actions
// stubbed, and recovers as Nav2 does: FollowPath runs two ticks and fails;
// its own RecoveryNode clears the local costmap and tries once more,
// which fails at once; the pipeline fails, the outer RecoveryNode runs
// its recovery (the RoundRobin clears both costmaps), and the pipeline
// starts again in the same tick: the RateController, restarted with it,
// plans at once (the path is still valid, so ComputePathToPose is not
// called), and FollowPath then runs two ticks and succeeds.
func TestSimNav2Recovery(t *testing.T) {
	code, out, errOut := runCmd(t, "sim", "-trace", "-", "-substitute",
		"*=Succeed,FollowPath=Running:2,Failure,Failure,Running:2,Success", nav2Default)
	if code != 0 || !strings.Contains(errOut, "SUCCESS after 5 ticks") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	got := traceLines(t, out, "NavigateRecovery", "NavigateWithReplanning", "RateController", "FollowPath",
		"ClearLocalCostmap-Context", "RecoveryActions", "GoalUpdated", "ComputePathToPose")
	want := []string{
		"RUNNING ComputePathToPose:SUCCESS ComputePathToPose:SUCCESS RateController:SUCCESS FollowPath:RUNNING FollowPath:RUNNING NavigateWithReplanning:RUNNING NavigateRecovery:RUNNING",
		"RUNNING RateController:RUNNING FollowPath:RUNNING FollowPath:RUNNING NavigateWithReplanning:RUNNING NavigateRecovery:RUNNING",
		"RUNNING RateController:RUNNING FollowPath:FAILURE ClearLocalCostmap-Context:SUCCESS FollowPath:FAILURE FollowPath:FAILURE NavigateWithReplanning:FAILURE RateController:halt " +
			"GoalUpdated:FAILURE RecoveryActions:SUCCESS ComputePathToPose:SUCCESS RateController:SUCCESS FollowPath:RUNNING FollowPath:RUNNING NavigateWithReplanning:RUNNING NavigateRecovery:RUNNING",
		"RUNNING RateController:RUNNING FollowPath:RUNNING FollowPath:RUNNING NavigateWithReplanning:RUNNING NavigateRecovery:RUNNING",
		"SUCCESS RateController:RUNNING FollowPath:SUCCESS FollowPath:SUCCESS NavigateWithReplanning:SUCCESS RateController:halt NavigateRecovery:SUCCESS",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The recovery gives up as Nav2's does. FollowPath always fails, so each
// recovery leads to the next one in the same tick; the RoundRobin of
// recovery actions moves on each time: clearing (tick 1), Spin (tick 1),
// Wait (wait_duration 5 s: ticks 1 to 101 at 20 Hz), BackUp (tick 101).
// BackUp is its last child and the RoundRobin does not wrap around (Nav2's
// default), so it returns FAILURE there, and so does the whole tree.
func TestSimNav2GivesUp(t *testing.T) {
	code, out, _ := runCmd(t, "sim", "-substitute", "*=Succeed,FollowPath=Failure", nav2Default)
	if code != 1 || !strings.Contains(out, "FAILURE after 101 ticks") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// A stand-in that never ends is stopped by the tick limit.
	if code, out, _ := runCmd(t, "sim", "-ticks", "20", "-substitute", "*=Succeed,FollowPath=Running", nav2Default); code != 1 || !strings.Contains(out, "stopped") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// A drone's own <Land/> in a BehaviorTree.CPP file, on the simulated
// rover (no vehicle), is the file's node, not botd's UAV leaf: check
// loads the file, says so with the line, and '*' stands in for it; sim
// warns too, and the node fails with the reason when it runs. A botd
// mission's Land on the rover is still refused.
func TestCheckForeignDeviceLeaf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "drone.xml")
	if err := os.WriteFile(file, []byte("<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n<Sequence>\n<AlwaysSuccess/>\n<Land/>\n</Sequence>\n</BehaviorTree>\n</root>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "check", "-substitute", "*=Succeed", file)
	if code != 0 || !strings.Contains(out, file+": warning: line 5: <Land> is named like botd's Land leaf, which cannot run here") ||
		!strings.Contains(out, "stands in as Succeed") {
		t.Fatalf("check -substitute '*=Succeed': exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "sim", "-substitute", "*=Succeed", file); code != 0 || !strings.Contains(out, "SUCCESS") {
		t.Errorf("sim with '*': exit %d\n%s", code, out)
	}
	code, out, errOut := runCmd(t, "sim", file)
	if code != 2 || !strings.Contains(errOut, file+": warning: line 5: <Land>") || !strings.Contains(out, "mavlink_vehicle") {
		t.Errorf("sim without a rule: exit %d\n%s%s", code, out, errOut)
	}
	yaml := filepath.Join(dir, "land.yaml")
	if err := os.WriteFile(yaml, []byte("format: botd/mission@1\nmain: m\ntrees:\n  m: {type: Land}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "check", yaml); code != 1 || !strings.Contains(out, "the robot config has no mavlink_vehicle device") {
		t.Errorf("a botd mission's Land: exit %d\n%s", code, out)
	}
}
