package web

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/internal/ratelog"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Streams opened under a session end when it logs out: nothing more
// reaches a tab after logout.
func TestStreamsEndAtLogout(t *testing.T) {
	_, ts := anonServer(t)
	base := ts.URL + "/"
	session := loginCookie(t, base)
	list := openStream(t, base+"api/stream", session)
	list.next("hello")
	robot := openStream(t, base+"api/stream?robot=rover-1", session)
	robot.next("hello")
	fleet := openStream(t, base+"api/fleet", session)
	if code, _ := post(t, base+"api/logout", "", nil, func(r *http.Request) { r.AddCookie(session) }); code != 200 {
		t.Fatalf("logout: %d", code)
	}
	for name, st := range map[string]*stream{"robot list": list, "robot": robot, "fleet": fleet} {
		if !st.ended(waitLong) {
			t.Errorf("the %s stream outlived the logout", name)
		}
	}
}

// treeOfSize is a tree whose JSON is about size bytes.
func treeOfSize(robot string, seq uint64, size int) protocol.TreeMsg {
	name := strings.Repeat("n", 1000)
	m := protocol.TreeMsg{Header: hdr(robot, seq), TreeInfo: protocol.TreeInfo{Mission: fmt.Sprintf("m-%d", seq), Revision: 1}}
	for i := range size / 1050 {
		m.Nodes = append(m.Nodes, protocol.TreeNode{Index: int32(i), ID: "n", Type: "Log", Name: name, Parent: int32(i) - 1})
	}
	return m
}

// A tree over the bound per tree is kept and sent without its nodes, with
// a note; trees within it go to a tab only up to its budget per minute,
// then as a note. Twenty large trees cost a tab the budget, not 20 trees.
func TestTreesAreBounded(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	s, ts := newTestServer(t, f, nil)
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry")

	f.h(t, "rover-1").Tree(treeOfSize("rover-1", 1, 2*maxTreeFrame))
	var tf treeFrame
	st.next("tree").decode(t, &tf)
	if len(tf.Nodes) != 0 || !strings.Contains(tf.Note, "over the dashboard's bound") || tf.Mission != "" {
		t.Fatalf("a tree over the bound: %d nodes, mission %q, note %q", len(tf.Nodes), tf.Mission, tf.Note)
	}
	s.hub.mu.Lock()
	v := s.hub.views["rover-1"]
	s.hub.mu.Unlock()
	v.mu.Lock()
	kept := len(v.tree.Nodes)
	v.mu.Unlock()
	if kept != 0 {
		t.Fatalf("the hub kept %d nodes of a tree over the bound", kept)
	}

	const n = 20
	sent, full, skipped := 0, 0, 0
	for i := range n {
		f.h(t, "rover-1").Tree(treeOfSize("rover-1", uint64(i+2), 3<<20))
		ev := st.next("tree")
		sent += len(ev.Data)
		ev.decode(t, &tf)
		switch {
		case len(tf.Nodes) > 0:
			full++
		case strings.Contains(tf.Note, "was skipped"):
			skipped++
		default:
			t.Fatalf("tree %d: no nodes and note %q", i, tf.Note)
		}
	}
	if full == 0 || skipped == 0 || sent > tabTreeBudget+n*1024 {
		t.Errorf("%d trees sent whole, %d skipped, %d bytes to the tab (budget %d)", full, skipped, sent, tabTreeBudget)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A thousand wrong logins write a few log lines, not a thousand.
func TestFailedLoginsLogRateLimited(t *testing.T) {
	var out syncBuf
	s, err := newServer(Options{Logger: slog.New(slog.NewTextHandler(&out, nil)), Token: testToken}, newFakeGround())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Close()
	for range 1000 {
		res := loginReq(t, http.DefaultClient, ts.URL+"/", "not-the-token-at-all", nil)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token: %s", res.Status)
		}
	}
	if n := strings.Count(out.String(), "dashboard login refused"); n > ratelog.DefaultBurst {
		t.Errorf("%d log lines for 1000 refused logins, want at most %d", n, ratelog.DefaultBurst)
	}
}
