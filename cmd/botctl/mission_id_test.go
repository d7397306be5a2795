package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A BehaviorTree.CPP file has no place for a mission id or a revision:
// botctl gives it the id botd derives from the mission's name, so
// sending it again updates the same mission, and --revision updates it
// once it changed; the notes name that path, never an "id" the file
// cannot hold.
func TestMissionSendBTCPPIdentity(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("robot: rover-1\nhardware: %s\n", repoFile(t, "configs/sim.yaml"))), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := filepath.Join(dir, "yard.xml")
	write := func(ms int) {
		body := fmt.Sprintf(`<root BTCPP_format="4" main_tree_to_execute="yard"><BehaviorTree ID="yard"><Sleep msec="%d"/></BehaviorTree></root>`, ms)
		if err := os.WriteFile(xml, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(100)
	d := startBotd(t, "-config", conf)
	waitOnline(t, d, "rover-1")
	b := []string{"--robot", "rover-1", "--broker", d.url, "--timeout", "15s"}
	send := func(args ...string) result {
		return botctl(t, append(append([]string{"mission", "send", xml}, args...), b...)...)
	}
	id := derivedID("yard")

	r := send()
	expect(t, r, exitOK, `mission "yard" accepted (id `+id+", revision 0",
		"is a BehaviorTree.CPP XML file, which has no place for a mission id: sending it as "+id+`, derived from its name "yard"`, "--revision N")
	if strings.Contains(r.stderr, `add "id"`) {
		t.Errorf("the note asks for an id the file cannot hold:\n%s", r.stderr)
	}
	expect(t, send(), exitOK, `mission "yard" already stored (unchanged) (id `+id)

	write(200)
	expect(t, send(), exitRefused, "SAME_REVISION", "hint: a BehaviorTree.CPP XML file has no revision: send it with --revision N")
	expect(t, send("--revision", "1"), exitOK, `mission "yard" accepted (id `+id+", revision 1")
	const other = "2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10"
	expect(t, send("--id", other), exitOK, `mission "yard" accepted (id `+other+`, revision 0`)
	expect(t, send("--id", "my-yard"), exitUsage, "a mission id is a UUID")

	yaml := filepath.Join(dir, "m.yaml")
	os.WriteFile(yaml, []byte("format: botd/mission@1\nname: m\nmain: main\ntrees:\n  main: {type: Wait, params: {ms: 5}}\n"), 0o644)
	expect(t, botctl(t, append([]string{"mission", "send", yaml, "--revision", "2"}, b...)...), exitUsage, `set "revision" in`)
}

// A BehaviorTree.CPP file with nodes that load but fail only when they
// run (as BehaviorTree.CPP loads it and throws when such a node is
// ticked) is accepted by the robot, as botd check accepts it: botctl
// sends it with those nodes as the Faults they run as, and says which on
// stderr. Before, the robot refused the file with five problems.
func TestMissionSendBTCPPRuntimeFaults(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("robot: rover-1\nhardware: %s\n", repoFile(t, "configs/sim.yaml"))), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := repoFile(t, "missions/btcpp/testdata/btcpp-runtime/runtime_values.xml")
	d := startBotd(t, "-config", conf)
	waitOnline(t, d, "rover-1")
	b := []string{"--robot", "rover-1", "--broker", d.url, "--timeout", "15s"}
	r := botctl(t, append([]string{"mission", "send", xml}, b...)...)
	expect(t, r, exitOK, `mission "Main" accepted (id `+derivedID("Main"),
		`line 7: <Delay> delay_msec: want a number or "{key}", got the string "10,000"; the file loads, as in BehaviorTree.CPP, and the node fails with this reason when it runs`,
		"line 10: <WhileDoElse>: WhileDoElse takes at most 3 children, got 4")
	if n := strings.Count(r.stderr, "the node fails with this reason when it runs"); n != 5 {
		t.Errorf("%d notes, want the five nodes botd check names\n%s", n, r.stderr)
	}
	// The same form again: the robot has it already.
	expect(t, botctl(t, append([]string{"mission", "send", xml}, b...)...), exitOK, `mission "Main" already stored (unchanged)`)
}

// Which files cannot hold an id: XML, Behavior3, plans; a botd mission can.
func TestImportedFormat(t *testing.T) {
	plan, err := os.ReadFile(repoFile(t, "missions/plan/testdata/short.plan"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ data, want string }{
		{`<root BTCPP_format="4"><BehaviorTree ID="m"><AlwaysSuccess/></BehaviorTree></root>`, "BehaviorTree.CPP XML"},
		{`{"name": "m", "root": "1", "nodes": {}}`, "Behavior3"},
		{string(plan), "QGroundControl or Mission Planner plan"},
		{"QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t47.39\t8.54\t488\t1\n", "QGroundControl or Mission Planner plan"},
		{`{"format": "botd/mission@1", "main": "m", "trees": {}}`, ""},
		{"format: botd/mission@1\nmain: m\n", ""},
	} {
		if got := importedFormat([]byte(c.data)); got != c.want {
			t.Errorf("%.30q: %q, want %q", c.data, got, c.want)
		}
	}
}
