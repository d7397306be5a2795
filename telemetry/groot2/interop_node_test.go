package groot2

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeClient starts testdata/node/groot2_client.js, a Groot2 client on
// the npm zeromq package (its own libzmq), or skips when node or the
// packages are absent (.ci/run installs them with npm ci).
func nodeClient(t *testing.T, port int) *pyClient {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the npm zeromq interop test is skipped")
	}
	dir := filepath.Join("testdata", "node")
	for _, pkg := range []string{"zeromq", "@msgpack/msgpack"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("the npm package %s is not installed (cd %s && npm ci): the npm zeromq interop test is skipped", pkg, dir)
		}
	}
	check := exec.Command(node, "-e", "require('zeromq')")
	check.Dir = dir
	if out, err := check.CombinedOutput(); err != nil {
		// Installed but its libzmq does not load here: say so, do not skip.
		t.Fatalf("the npm zeromq package does not load: %v\n%s", err, out)
	}
	cmd := exec.Command(node, "groot2_client.js", fmt.Sprint(port))
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &pyClient{t: t, in: in, out: sc}
}

// TestNpmZeromqClient: a second, independent libzmq client (Node's zeromq
// package) against a real runner: FULLTREE compared with BT.CPP's own
// answer, STATUS, BLACKBOARD decoded by another MessagePack library, a
// breakpoint inserted, noticed on the publisher, listed and released,
// and a mission change giving a new identity.
func TestNpmZeromqClient(t *testing.T) {
	r := startRunner(t)
	s := startDebugServer(t, r, 0)
	c := nodeClient(t, s.Addr().Port)
	c.ask(map[string]any{"op": "subscribe"})

	idle := c.ask(map[string]any{"op": "fulltree"})
	if idle["echo_ok"] != true || !strings.Contains(idle["xml"].(string), `_uid="1"`) {
		t.Fatalf("idle FULLTREE: %v", idle)
	}
	ref, err := os.ReadFile("testdata/reference_tree.xml")
	if err != nil {
		t.Fatal(err)
	}
	loadMission(t, r, ref)
	first := c.until(map[string]any{"op": "fulltree"}, "the mission's tree", func(m map[string]any) bool {
		return m["tree_id"] != idle["tree_id"]
	})
	want, err := os.ReadFile("testdata/btcpp/reference-fulltree.xml")
	if err != nil {
		t.Fatal(err)
	}
	compareTrees(t, []byte(first["xml"].(string)), want)

	st := c.until(map[string]any{"op": "status"}, "the root running", func(m map[string]any) bool {
		s := m["status"].([]any)
		return len(s) > 0 && s[0].([]any)[1].(float64) == StatusRunning
	})
	if st["echo_ok"] != true || st["tree_id"] != first["tree_id"] || st["len"].(float64) != 33 {
		t.Fatalf("STATUS: %v", st)
	}
	for i, e := range st["status"].([]any) {
		if uid := e.([]any)[0].(float64); uid != float64(i+1) {
			t.Errorf("STATUS entry %d has uid %v", i, uid)
		}
	}

	bb := c.until(map[string]any{"op": "blackboard", "names": "MainTree;NoSuchTree"}, "battery on the blackboard", func(m map[string]any) bool {
		main, _ := m["bb"].(map[string]any)["MainTree"].(map[string]any)
		return main["battery"] != nil
	})
	if bb["echo_ok"] != true || bb["bb"].(map[string]any)["MainTree"].(map[string]any)["battery"].(float64) != 90 {
		t.Errorf("BLACKBOARD: %v", bb)
	}
	if _, ok := bb["bb"].(map[string]any)["NoSuchTree"]; ok {
		t.Errorf("BLACKBOARD answered for a tree that does not exist: %v", bb)
	}

	// A breakpoint on a mission of its own.
	loadMission(t, r, []byte(hookMission))
	tree := c.until(map[string]any{"op": "fulltree"}, "the debugged mission's tree", func(m map[string]any) bool {
		x, _ := m["xml"].(string)
		return strings.Contains(x, `ID="Debugged"`)
	})
	if tree["tree_id"] == first["tree_id"] {
		t.Fatal("a mission change kept the tree identity")
	}
	mark := uidOf(t, tree["xml"].(string), "mark")
	if ins := c.ask(map[string]any{"op": "hook", "type": "I", "body": breakpoint(mark)}); ins["echo_ok"] != true {
		t.Fatalf("HOOK_INSERT: %v", ins)
	}
	openGate(t, r)
	n := c.ask(map[string]any{"op": "notice"})
	if n["type"] != "N" || n["proto"].(float64) != ProtocolID || int(n["uid"].(float64)) != mark || n["nparts"].(float64) != 2 {
		t.Fatalf("BREAKPOINT_REACHED notice: %v", n)
	}
	// The notice comes from inside the tick; STATUS shows what the tick
	// left once it ended.
	c.until(map[string]any{"op": "status"}, "the held node RUNNING", func(m map[string]any) bool {
		return codeOf(m, mark) == StatusRunning
	})
	dump := c.ask(map[string]any{"op": "hook", "type": "D"})
	var hooks []map[string]any
	if err := json.Unmarshal([]byte(dump["body"].(string)), &hooks); err != nil || len(hooks) != 1 || int(hooks[0]["uid"].(float64)) != mark {
		t.Fatalf("HOOKS_DUMP %v (%v)", dump, err)
	}
	if un := c.ask(map[string]any{"op": "hook", "type": "U", "body": map[string]any{"uid": mark, "position": 0, "desired_status": "SKIPPED", "remove_when_done": true}}); un["echo_ok"] != true {
		t.Fatalf("BREAKPOINT_UNLOCK: %v", un)
	}
	c.until(map[string]any{"op": "blackboard", "names": "Debugged"}, "the released Script to run", func(m map[string]any) bool {
		main, _ := m["bb"].(map[string]any)["Debugged"].(map[string]any)
		return main["reached"] != nil
	})
	if empty := c.ask(map[string]any{"op": "hook", "type": "D"}); empty["body"] != "[]" {
		t.Errorf("HOOKS_DUMP after the unlock that removes: %v", empty)
	}
}
