package protocol

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTopics(t *testing.T) {
	tp, err := NewTopics("", "rover-1")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		tp.Connection():                  "botd/v1/rover-1/connection",
		tp.Cmd():                         "botd/v1/rover-1/cmd",
		tp.EStop():                       "botd/v1/rover-1/estop",
		tp.Reply():                       "botd/v1/rover-1/reply",
		tp.Status():                      "botd/v1/rover-1/status",
		tp.All():                         "botd/v1/rover-1/#",
		GCSStateTopic("", "ops"):         "botd/v1/gcs/ops/state",
		GCSStateFilter("fleet/a"):        "fleet/a/gcs/+/state",
		RobotsFilter("", LeafConnection): "botd/v1/+/connection",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for _, bad := range []string{"", "a/b", "a+", "#", "gcs", "rover 1", "ä"} {
		if _, err := NewTopics("", bad); !errors.Is(err, ErrBadID) {
			t.Errorf("robot %q: err %v, want ErrBadID", bad, err)
		}
	}
	for _, good := range []string{"rover-1", "uav_2.a:b", "X"} {
		if _, err := NewTopics("", good); err != nil {
			t.Errorf("robot %q: %v", good, err)
		}
	}
	for _, bad := range []string{"/botd", "botd/", "botd//v1", "botd/+", "botd/#"} {
		if _, err := NewTopics(bad, "r"); err == nil {
			t.Errorf("prefix %q accepted", bad)
		}
	}
	if r, l, ok := SplitTopic("", "botd/v1/rover-1/state"); !ok || r != "rover-1" || l != "state" {
		t.Errorf("SplitTopic = %q %q %v", r, l, ok)
	}
	for _, topic := range []string{"botd/v1/gcs/ops/state", "botd/v1/gcs/state", "other/v1/r/state", "botd/v1/r/a/b"} {
		if _, _, ok := SplitTopic("", topic); ok {
			t.Errorf("SplitTopic(%q) ok", topic)
		}
	}
	if g, ok := SplitGCSTopic("", "botd/v1/gcs/ops/state"); !ok || g != "ops" {
		t.Errorf("SplitGCSTopic = %q %v", g, ok)
	}
}

func TestHeaderTimestamp(t *testing.T) {
	ts := FormatTS(time.Date(2026, 11, 21, 13, 0, 0, 120_456_789, time.FixedZone("CET", 3600)))
	if ts != "2026-11-21T12:00:00.120Z" {
		t.Errorf("FormatTS = %s", ts)
	}
	if _, err := ParseTS(ts); err != nil {
		t.Error(err)
	}
}

func TestStatusWireFormat(t *testing.T) {
	m := StatusMsg{Header: Header{Robot: "r", Seq: 3, TS: "2026-11-21T12:00:00.120Z"}, Mission: "m", Tick: 9,
		Changes: []NodeStatus{{Node: 0, Status: 'R'}, {Node: 12, Status: 'S'}}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"robot":"r","seq":3,"ts":"2026-11-21T12:00:00.120Z","mission":"m","tick":9,"changes":[[0,"R"],[12,"S"]]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	back, err := DecodeStatus(b)
	if err != nil || len(back.Changes) != 2 || back.Changes[1] != (NodeStatus{12, 'S'}) {
		t.Errorf("round trip: %+v %v", back, err)
	}
	kf, _ := json.Marshal(StatusMsg{Header: m.Header, Mission: "m", Tick: 9, Keyframe: "RRSIF"})
	if !strings.Contains(string(kf), `"keyframe":"RRSIF"`) || strings.Contains(string(kf), "changes") {
		t.Errorf("keyframe: %s", kf)
	}
	if _, err := json.Marshal(NodeStatus{Node: 1, Status: 'x'}); err == nil {
		t.Error("bad status letter encoded")
	}
}

func TestDecodersLenientButTyped(t *testing.T) {
	const h = `"robot":"r","seq":1,"ts":"2026-11-21T12:00:00.120Z"`
	good := map[string]func([]byte) error{
		`{` + h + `,"state":"ONLINE","extra":{"x":1}}`:                                 func(b []byte) error { _, err := DecodeConnection(b); return err },
		`{` + h + `,"mode":"IDLE","link":{"broker":true},"new_field":[1]}`:             func(b []byte) error { _, err := DecodeState(b); return err },
		`{` + h + `,"mission":"m","tick":1,"keyframe":"ISFRE"}`:                        func(b []byte) error { _, err := DecodeStatus(b); return err },
		`{` + h + `,"id":"e1","kind":"mission.started","level":"INFO","message":"go"}`: func(b []byte) error { _, err := DecodeEvent(b); return err },
		`{` + h + `,"id":"c1","ok":false,"error":{"code":"NO_MISSION","message":"x"}}`: func(b []byte) error { _, err := DecodeReply(b); return err },
		`{"online":true,"whatever":1}`:                                                 func(b []byte) error { _, err := DecodePresence(b); return err },
	}
	for in, dec := range good {
		if err := dec([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	bad := map[string]func([]byte) error{
		`{` + h + `,"state":"MAYBE"}`:                         func(b []byte) error { _, err := DecodeConnection(b); return err },
		`{"robot":"r","seq":"1","ts":"2026-11-21T12:00:00Z"}`: func(b []byte) error { _, err := DecodeState(b); return err },
		`{"robot":"r","seq":1,"ts":"yesterday"}`:              func(b []byte) error { _, err := DecodeState(b); return err },
		`{"seq":1,"ts":"2026-11-21T12:00:00Z"}`:               func(b []byte) error { _, err := DecodeState(b); return err },
		`{` + h + `,"mode":7}`:                                func(b []byte) error { _, err := DecodeState(b); return err },
		`{` + h + `,"mission":"m","changes":[[1,"R",3]]}`:     func(b []byte) error { _, err := DecodeStatus(b); return err },
		`{` + h + `,"mission":"m","changes":[["1","R"]]}`:     func(b []byte) error { _, err := DecodeStatus(b); return err },
		`{` + h + `,"mission":"m","keyframe":"RRX"}`:          func(b []byte) error { _, err := DecodeStatus(b); return err },
		`{` + h + `,"kind":"x"}`:                              func(b []byte) error { _, err := DecodeEvent(b); return err },
		`[1,2]`:                                               func(b []byte) error { _, err := DecodeTree(b); return err },
		`null`:                                                func(b []byte) error { _, err := DecodeMetrics(b); return err },
		`{"online":"yes"}`:                                    func(b []byte) error { _, err := DecodePresence(b); return err },
	}
	for in, dec := range bad {
		if err := dec([]byte(in)); !errors.Is(err, ErrBadPayload) {
			t.Errorf("%s: err %v, want ErrBadPayload", in, err)
		}
	}
}

func TestMessagesEmbedContentTypes(t *testing.T) {
	b, _ := json.Marshal(StateMsg{Header: Header{Robot: "r", Seq: 1, TS: "x"}, State: State{Mode: "RUNNING", EStop: true}})
	var flat map[string]any
	_ = json.Unmarshal(b, &flat)
	for _, k := range []string{"robot", "seq", "ts", "mode", "estop", "link", "tick"} {
		if _, ok := flat[k]; !ok {
			t.Errorf("state message lacks %q: %s", k, b)
		}
	}
	b, _ = json.Marshal(EventMsg{Header: Header{Robot: "r"}, ID: "e", Event: Event{Kind: "k", Message: "m"}})
	_ = json.Unmarshal(b, &flat)
	if flat["id"] != "e" || flat["kind"] != "k" || flat["robot"] != "r" {
		t.Errorf("event: %s", b)
	}
}

// A tree over the budget goes compressed and decodes to the same nodes; a
// small one goes as it is; a compressed tree that would inflate beyond
// MaxTreeBytes, or is not gzip, is refused.
func TestCompressedTree(t *testing.T) {
	nodes := make([]TreeNode, 2000)
	for i := range nodes {
		nodes[i] = TreeNode{Index: int32(i), ID: fmt.Sprintf("n%d", i), Type: "Sequence", Name: "a node with a name", Parent: int32(i) - 1}
	}
	h := Header{Robot: "r", Seq: 1, TS: "2026-11-24T00:00:00.000Z"}
	m, err := CompressTree(TreeMsg{Header: h, TreeInfo: TreeInfo{Mission: "m", Nodes: nodes}}, 1024)
	if err != nil || m.Encoding != TreeEncodingGzip || m.Nodes != nil {
		t.Fatalf("not compressed: %v %q", err, m.Encoding)
	}
	b, _ := json.Marshal(m)
	plain, _ := json.Marshal(TreeMsg{Header: h, TreeInfo: TreeInfo{Mission: "m", Nodes: nodes}})
	t.Logf("tree of %d nodes: %d bytes plain, %d compressed", len(nodes), len(plain), len(b))
	if len(b) >= len(plain)/3 {
		t.Errorf("compressed %d bytes of %d", len(b), len(plain))
	}
	back, err := DecodeTree(b)
	if err != nil || !reflect.DeepEqual(back.Nodes, nodes) || back.Mission != "m" || back.Encoding != "" {
		t.Fatalf("round trip: %v", err)
	}
	small, _ := CompressTree(TreeMsg{Header: h, TreeInfo: TreeInfo{Nodes: nodes[:3]}}, 1024)
	if small.Encoding != "" || len(small.Nodes) != 3 {
		t.Fatalf("a small tree was compressed")
	}

	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write([]byte("["))
	zeros := make([]byte, 1<<20)
	for range MaxTreeBytes>>20 + 1 {
		zw.Write(zeros)
	}
	zw.Close()
	b, _ = json.Marshal(TreeMsg{Header: h, Encoding: TreeEncodingGzip, Data: bomb.Bytes()})
	if _, err := DecodeTree(b); err == nil || !strings.Contains(err.Error(), "inflates beyond") {
		t.Fatalf("a gzip bomb: %v", err)
	}
	b, _ = json.Marshal(TreeMsg{Header: h, Encoding: "zstd", Data: []byte("x")})
	if _, err := DecodeTree(b); err == nil {
		t.Fatal("an unknown encoding was accepted")
	}
}
