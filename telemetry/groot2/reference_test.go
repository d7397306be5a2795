package groot2

import (
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"testing"
	"time"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fakeSource serves a loaded mission with fixed statuses.
type fakeSource struct {
	m       *missions.Mission
	letters []byte
	bb      []protocol.BlackboardValue
}

func (f *fakeSource) TreeView(dst []byte) (runner.TreeView, bool) {
	if f.m == nil {
		return runner.TreeView{}, false
	}
	return runner.TreeView{Doc: f.m.Doc, Tree: f.m.Tree, Letters: append(dst[:0], f.letters...), Tick: 1, At: time.Unix(0, 0)}, true
}

func (f *fakeSource) Blackboard() []protocol.BlackboardValue { return f.bb }

func referenceSource(t testing.TB) *fakeSource {
	t.Helper()
	doc, err := os.ReadFile("testdata/reference_tree.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := missions.Load(doc, missions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeSource{m: m, letters: bytes.Repeat([]byte{'I'}, m.Tree.Len())}
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/btcpp/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func handle(s *Server, typ byte, id uint32, extra ...[]byte) [][]byte {
	h := []byte{ProtocolID, typ, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(h[2:], id)
	return s.Handle(append([][]byte{h}, extra...))
}

func newTestServer(src Source) *Server {
	cfg := Config{Source: src}
	cfg.defaults()
	return &Server{cfg: cfg, cur: idleState(), recCh: make(chan struct{}, 1)}
}

// The reply header has BT.CPP's layout: protocol 2, the type and the
// request id echoed, a version 4 UUID.
func TestReplyHeaderLayout(t *testing.T) {
	ref := fixture(t, "reference-fulltree.reply-header.bin")
	s := newTestServer(referenceSource(t))
	id := binary.LittleEndian.Uint32(ref[2:6])
	got := handle(s, ReqFullTree, id)
	if len(got) != 2 || len(got[0]) != len(ref) || len(ref) != ReplyHeaderSize {
		t.Fatalf("reply %d parts, header %d bytes; BT.CPP's header is %d bytes", len(got), len(got[0]), len(ref))
	}
	if !bytes.Equal(got[0][:6], ref[:6]) {
		t.Errorf("header %x, BT.CPP %x", got[0][:6], ref[:6])
	}
	for _, h := range [][]byte{got[0], ref} {
		if h[6+6]>>4 != 4 || h[6+8]>>6 != 2 {
			t.Errorf("tree identity %x is not a version 4 UUID", h[6:])
		}
	}
}

// The FULLTREE document has the structure BT.CPP writes for the same
// tree.
func TestFullTreeMatchesBTCPP(t *testing.T) {
	s := newTestServer(referenceSource(t))
	got := handle(s, ReqFullTree, 7)
	compareTrees(t, got[1], fixture(t, "reference-fulltree.xml"))
}

// STATUS: 3 bytes a node in uid order, BT.CPP's codes, 10 + previous for
// a node reset to idle; the same length as BT.CPP's for the same tree.
func TestStatusLayout(t *testing.T) {
	ref := fixture(t, "reference-status.bin")
	src := referenceSource(t)
	s := newTestServer(src)
	copy(src.letters, "RRSSRFRSSSS")
	first := handle(s, ReqStatus, 1)[1]
	if len(first) != len(ref) {
		t.Fatalf("STATUS %d bytes, BT.CPP %d for the same tree", len(first), len(ref))
	}
	for i := 0; i < len(ref); i += 3 {
		if !bytes.Equal(first[i:i+2], ref[i:i+2]) {
			t.Errorf("entry %d: uid %x, BT.CPP %x", i/3, first[i:i+2], ref[i:i+2])
		}
	}
	want := []byte{1, 1, 2, 2, 1, 3, 1, 2, 2, 2, 2}
	for i, w := range want {
		if first[3*i+2] != w {
			t.Errorf("node %d: code %d, want %d", i+1, first[3*i+2], w)
		}
	}
	// The same nodes halted to idle: 10 + what they were, as in BT.CPP's
	// capture (uids 8 to 11 there are 12).
	copy(src.letters, "RRSSRFRIIII")
	second := handle(s, ReqStatus, 2)[1]
	for i := 7; i < 11; i++ {
		if second[3*i+2] != ref[3*i+2] || ref[3*i+2] != IdleFrom+StatusSuccess {
			t.Errorf("node %d reset to idle: code %d, BT.CPP %d", i+1, second[3*i+2], ref[3*i+2])
		}
	}
}

// BLACKBOARD: the bytes BT.CPP sends for {"MainTree": {"battery": 90}}.
func TestBlackboardMatchesBTCPP(t *testing.T) {
	src := referenceSource(t)
	src.bb = []protocol.BlackboardValue{{Key: "battery", Value: float64(90)}}
	s := newTestServer(src)
	got := handle(s, ReqBlackboard, 3, []byte("MainTree"))
	if ref := fixture(t, "reference-blackboard-MainTree.msgpack"); !bytes.Equal(got[1], ref) {
		t.Errorf("BLACKBOARD %x, BT.CPP %x", got[1], ref)
	}
}

// GET_TRANSITIONS: 9-byte records, as BT.CPP's.
func TestTransitionsLayout(t *testing.T) {
	ref := fixture(t, "reference-transitions.bin")
	if len(ref)%9 != 0 {
		t.Fatalf("reference transitions: %d bytes", len(ref))
	}
	src := referenceSource(t)
	s := newTestServer(src)
	start := time.Unix(100, 0)
	s.rec.begin(start)
	copy(src.letters, "RRSSRFRIIII")
	s.rec.sample(src.m.Tree, 1, start.Add(1500*time.Microsecond), src.letters)
	got := handle(s, ReqGetTransitions, 4)[1]
	if len(got) != 7*9 {
		t.Fatalf("%d bytes, want 7 records", len(got))
	}
	for i := 0; i < len(got); i += 9 {
		usec := uint64(got[i]) | uint64(got[i+1])<<8 | uint64(got[i+2])<<16
		uid := binary.LittleEndian.Uint16(got[i+6:])
		if usec != 1500 || uid < 1 || uid > 11 || got[i+8] > StatusSkipped {
			t.Errorf("record %x", got[i:i+9])
		}
	}
	// BT.CPP's records: uids in range, codes 0..4.
	for i := 0; i < len(ref); i += 9 {
		if uid := binary.LittleEndian.Uint16(ref[i+6:]); uid < 1 || uid > 11 || ref[i+8] > StatusSkipped {
			t.Errorf("reference record %x", ref[i:i+9])
		}
	}
	if again := handle(s, ReqGetTransitions, 5)[1]; len(again) != 0 {
		t.Errorf("transitions are sent once: %d bytes again", len(again))
	}
}

// A frame announcing more than maxFrame bytes closes its connection
// before anything is allocated for it, and the endpoint serves on.
func TestOversizedFrameRefused(t *testing.T) {
	s := startServer(t, referenceSource(t))
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	greeting := make([]byte, 64)
	greeting[0], greeting[9], greeting[10] = 0xFF, 0x7F, 3
	copy(greeting[12:], "NULL")
	huge := []byte{0x06, 0, 0, 1, 0, 0, 0, 0, 0} // a LONG command of 1 TiB
	if _, err := c.Write(append(greeting, huge...)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(waitFor))
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the connection stayed open")
			}
			break
		}
	}
}

// The idle placeholder before any mission; a request without parts is
// answered with an error.
func TestIdleAndErrors(t *testing.T) {
	s := newTestServer(&fakeSource{})
	got := handle(s, ReqStatus, 1)
	if len(got) != 2 || !bytes.Equal(got[1], []byte{1, 0, 0}) {
		t.Errorf("idle STATUS %x", got)
	}
	if got := s.Handle(nil); string(got[0]) != "error" {
		t.Errorf("no parts: %q", got)
	}
}
