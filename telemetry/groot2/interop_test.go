package groot2

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// A second mission, different from the reference tree.
const secondMission = `<root BTCPP_format="4">
  <BehaviorTree ID="Patrol">
    <Sequence name="patrol">
      <Script code="speed:=3"/>
      <Sleep msec="60000" name="hold"/>
    </Sequence>
  </BehaviorTree>
</root>`

// TestLibzmqClient speaks Groot2's protocol to the endpoint from pyzmq
// (libzmq) while a real runner ticks missions: FULLTREE, STATUS,
// BLACKBOARD, malformed and unknown requests, a recording, and a mission
// change giving a new identity and tree.
func TestLibzmqClient(t *testing.T) {
	r := startRunner(t)
	s := startServer(t, r)
	c := startClient(t, s.Addr().Port)

	// Before any mission: the idle tree, answered.
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
	if first["echo_ok"] != true {
		t.Errorf("FULLTREE reply header does not echo the request: %v", first)
	}
	want, err := os.ReadFile("testdata/btcpp/reference-fulltree.xml")
	if err != nil {
		t.Fatal(err)
	}
	compareTrees(t, []byte(first["xml"].(string)), want)

	// STATUS: 11 nodes, uids 1..11, and the Repeat running.
	st := c.until(map[string]any{"op": "status"}, "the root running", func(m map[string]any) bool {
		s := m["status"].([]any)
		return len(s) > 0 && s[0].([]any)[1].(float64) == StatusRunning
	})
	if st["tree_id"] != first["tree_id"] || st["len"].(float64) != 33 {
		t.Fatalf("STATUS: %v", st)
	}
	for i, e := range st["status"].([]any) {
		if uid := e.([]any)[0].(float64); uid != float64(i+1) {
			t.Errorf("STATUS entry %d has uid %v", i, uid)
		}
	}
	// A Sleep that completed and was reset shows 10 + SUCCESS at some
	// point; at least the codes are BT.CPP's.
	for _, e := range st["status"].([]any) {
		code := int(e.([]any)[1].(float64))
		if code > StatusSkipped && (code < IdleFrom+StatusRunning || code > IdleFrom+StatusFailure) {
			t.Errorf("status code %d is not BT.CPP's", code)
		}
	}

	// The round trip of a STATUS request from libzmq, for the record.
	const polls = 200
	start := time.Now()
	for range polls {
		c.ask(map[string]any{"op": "status"})
	}
	t.Logf("STATUS round trip from pyzmq, through the test's pipe: %v on average", time.Since(start)/polls)

	// BLACKBOARD: the main tree's blackboard once the Script ran; an
	// unknown name is left out; an empty name list is answered too.
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
	if sub := c.ask(map[string]any{"op": "blackboard", "names": "Leg::8"}); sub["bb"] == nil {
		t.Errorf("BLACKBOARD of the SubTree instance: %v", sub)
	}
	if empty := c.ask(map[string]any{"op": "blackboard", "names": ""}); empty["echo_ok"] != true {
		t.Errorf("BLACKBOARD with an empty second part: %v", empty)
	}

	// Malformed and unknown requests: an error reply each, and the REQ
	// client goes on.
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"a 2-byte header", []string{"0253"}, "wrong request header"},
		{"an empty header", []string{""}, "wrong request header"},
		{"BLACKBOARD without names", []string{"024201020304"}, "must be 2 parts message"},
		{"an unknown type", []string{"027a01020304"}, "Request not recognized"},
		{"a breakpoint (debugging not allowed)", []string{"024901020304", "7b7d"}, "groot2.allow_debug is false"},
	} {
		out := c.ask(map[string]any{"op": "raw", "parts": tc.parts})
		parts, _ := out["parts"].([]any)
		if len(parts) != 2 || parts[0] != "6572726f72" || !strings.Contains(string(unhex(t, parts[1].(string))), tc.want) {
			t.Errorf("%s: reply %v, want [error, %q]", tc.name, out, tc.want)
		}
	}
	refErr, _ := os.ReadFile("testdata/btcpp/reference-error-reply.txt")
	if !strings.Contains(string(refErr), "wrong request header") {
		t.Fatalf("reference error reply %q", refErr)
	}

	// A recording: transitions since its start, 9 bytes each.
	rec := c.ask(map[string]any{"op": "record", "cmd": "start"})
	if rec["echo_ok"] != true || rec["time"] == nil {
		t.Fatalf("TOGGLE_RECORDING start: %v", rec)
	}
	tr := c.until(map[string]any{"op": "transitions"}, "recorded transitions", func(m map[string]any) bool {
		return len(m["transitions"].([]any)) > 0
	})
	if int(tr["len"].(float64))%9 != 0 {
		t.Errorf("GET_TRANSITIONS: %v bytes", tr["len"])
	}
	for _, e := range tr["transitions"].([]any) {
		rec := e.([]any)
		if uid := rec[1].(float64); uid < 1 || uid > 11 || rec[2].(float64) > StatusSkipped {
			t.Errorf("transition %v", rec)
		}
	}
	c.ask(map[string]any{"op": "record", "cmd": "stop"})

	// A mission change: a new identity, and the new tree.
	loadMission(t, r, []byte(secondMission))
	second := c.until(map[string]any{"op": "status"}, "a new tree identity", func(m map[string]any) bool {
		return m["tree_id"] != first["tree_id"]
	})
	tree := c.ask(map[string]any{"op": "fulltree"})
	if tree["tree_id"] != second["tree_id"] || !strings.Contains(tree["xml"].(string), `<BehaviorTree ID="Patrol"`) {
		t.Fatalf("after the mission change FULLTREE says %v", tree)
	}
	if n := len(second["status"].([]any)); n != 3 {
		t.Errorf("the new tree's STATUS has %d nodes, want 3", n)
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, ch := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case ch >= '0' && ch <= '9':
				v |= byte(ch - '0')
			case ch >= 'a' && ch <= 'f':
				v |= byte(ch-'a') + 10
			}
		}
		b[i] = v
	}
	return b
}

// element is an XML element tree for structural comparisons.
type element struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Kids    []element  `xml:",any"`
}

func (e element) attr(name string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// compareTrees compares the <BehaviorTree> elements of got and want:
// the same elements in the same order, the same _uid, _fullpath, name and
// ID attributes and the same ports; and every model want declares for a
// node type the tree uses is declared in got.
func compareTrees(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w element
	if err := xml.Unmarshal(got, &g); err != nil {
		t.Fatalf("botd's FULLTREE: %v", err)
	}
	if err := xml.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if g.XMLName.Local != "root" {
		t.Fatalf("root element %q", g.XMLName.Local)
	}
	if v, _ := g.attr("BTCPP_format"); v != "4" {
		t.Errorf("BTCPP_format %q", v)
	}
	trees := func(e element) []element {
		var out []element
		for _, k := range e.Kids {
			if k.XMLName.Local == "BehaviorTree" {
				out = append(out, k)
			}
		}
		return out
	}
	gt, wt := trees(g), trees(w)
	if len(gt) != len(wt) {
		t.Fatalf("%d BehaviorTree elements, BT.CPP writes %d", len(gt), len(wt))
	}
	for i := range wt {
		compareElement(t, gt[i], wt[i], "/"+wt[i].XMLName.Local)
	}
	models := func(e element) map[string]string {
		out := map[string]string{}
		for _, k := range e.Kids {
			if k.XMLName.Local == "TreeNodesModel" {
				for _, m := range k.Kids {
					id, _ := m.attr("ID")
					out[id] = m.XMLName.Local
				}
			}
		}
		return out
	}
	gm, wm := models(g), models(w)
	for _, used := range []string{"Repeat", "Sequence", "Script", "Sleep", "Fallback", "ScriptCondition", "AlwaysSuccess"} {
		if gm[used] != wm[used] {
			t.Errorf("model of %s: botd %q, BT.CPP %q", used, gm[used], wm[used])
		}
	}
}

func compareElement(t *testing.T, g, w element, path string) {
	t.Helper()
	if g.XMLName.Local != w.XMLName.Local {
		t.Errorf("%s: element %s, BT.CPP writes %s", path, g.XMLName.Local, w.XMLName.Local)
		return
	}
	if len(g.Attrs) != len(w.Attrs) {
		t.Errorf("%s: attributes %v, BT.CPP writes %v", path, g.Attrs, w.Attrs)
	}
	for i, a := range w.Attrs {
		v, ok := g.attr(a.Name.Local)
		if !ok || v != a.Value {
			t.Errorf("%s: %s=%q, BT.CPP writes %q", path, a.Name.Local, v, a.Value)
		}
		if i < len(g.Attrs) && g.Attrs[i].Name.Local != a.Name.Local {
			t.Errorf("%s: attribute %d is %s, BT.CPP writes %s there", path, i, g.Attrs[i].Name.Local, a.Name.Local)
		}
	}
	if len(g.Kids) != len(w.Kids) {
		t.Errorf("%s: %d children, BT.CPP writes %d", path, len(g.Kids), len(w.Kids))
		return
	}
	for i := range w.Kids {
		compareElement(t, g.Kids[i], w.Kids[i], path+"/"+w.Kids[i].XMLName.Local)
	}
}

// Two libzmq clients polling at once each get the replies to their own
// requests (the request id echoed), as from a BT.CPP publisher.
func TestLibzmqClientsConcurrent(t *testing.T) {
	src := referenceSource(t)
	s := startServer(t, src)
	clients := []*pyClient{startClient(t, s.Addr().Port), startClient(t, s.Addr().Port)}
	errs := make(chan error, len(clients))
	for _, c := range clients {
		go func() {
			for range 100 {
				out, err := c.try(map[string]any{"op": "status"})
				if err != nil || out["echo_ok"] != true || out["len"].(float64) != 33 {
					errs <- fmt.Errorf("%v %v", out, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
