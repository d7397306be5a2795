package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func TestMain(m *testing.M) { mqtttest.Main(m, "botd/telemetry.") }

// ---- a fake runner ----

type fakeSource struct {
	mu        sync.Mutex
	state     protocol.State
	tree      protocol.TreeInfo
	hasTree   bool
	statuses  []byte
	pending   map[int32]byte
	tick      uint64
	keyframes int
	bb        []protocol.BlackboardValue
	ch        chan struct{}
}

func newFakeSource(nodes int) *fakeSource {
	f := &fakeSource{ch: make(chan struct{}, 1), pending: map[int32]byte{}}
	f.state = protocol.State{Mode: protocol.ModeIdle, RequestedMode: protocol.ModeIdle, Errors: []protocol.StateError{}}
	if nodes > 0 {
		f.hasTree = true
		f.tree = protocol.TreeInfo{Mission: "m1", Revision: 1}
		for i := range nodes {
			f.tree.Nodes = append(f.tree.Nodes, protocol.TreeNode{Index: int32(i), ID: fmt.Sprint("n", i), Type: "Sequence", Name: fmt.Sprint("node", i), Parent: int32(i - 1)})
		}
		f.statuses = []byte(strings.Repeat("I", nodes))
		f.state.Mission = &protocol.MissionState{ID: "m1", Name: "patrol", Revision: 1, Status: protocol.RunRunning}
	}
	return f
}

func (f *fakeSource) State() protocol.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

func (f *fakeSource) Tree() (protocol.TreeInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tree, f.hasTree
}

func (f *fakeSource) Status(keyframe bool) (protocol.StatusUpdate, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.hasTree {
		return protocol.StatusUpdate{}, false
	}
	u := protocol.StatusUpdate{Mission: f.tree.Mission, Tick: f.tick}
	if keyframe {
		f.keyframes++
		u.Keyframe = string(f.statuses)
	} else {
		for n, s := range f.pending {
			u.Changes = append(u.Changes, protocol.StatusChange{Node: n, Status: s})
		}
		slices.SortFunc(u.Changes, func(a, b protocol.StatusChange) int { return int(a.Node - b.Node) })
	}
	clear(f.pending)
	return u, true
}

func (f *fakeSource) Blackboard() []protocol.BlackboardValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bb)
}

func (f *fakeSource) Changed() <-chan struct{} { return f.ch }

func (f *fakeSource) signal() {
	select {
	case f.ch <- struct{}{}:
	default:
	}
}

func (f *fakeSource) setStatus(node int32, s byte) {
	f.mu.Lock()
	f.tick++
	f.statuses[node] = s
	f.pending[node] = s
	f.mu.Unlock()
}

func (f *fakeSource) setMode(mode string) {
	f.mu.Lock()
	f.state.Mode = mode
	f.mu.Unlock()
	f.signal()
}

type fakeHandler struct {
	mu    sync.Mutex
	calls []protocol.Command
}

func (h *fakeHandler) Do(_ context.Context, c protocol.Command) protocol.Reply {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	n := len(h.calls)
	h.mu.Unlock()
	return protocol.Reply{ID: c.ID, OK: true, Result: map[string]any{"call": n, "op": c.Op}}
}

func (h *fakeHandler) lastOp() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.calls) == 0 {
		return ""
	}
	return h.calls[len(h.calls)-1].Op
}

// ops counts the calls with op.
func (h *fakeHandler) ops(op string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if c.Op == op {
			n++
		}
	}
	return n
}

func (h *fakeHandler) count(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if id == "" || c.ID == id {
			n++
		}
	}
	return n
}

type linkLog struct {
	mu  sync.Mutex
	all []protocol.LinkState
}

func (l *linkLog) add(s protocol.LinkState) {
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
}

func (l *linkLog) last() (protocol.LinkState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return protocol.LinkState{}, false
	}
	return l.all[len(l.all)-1], true
}

// ---- a running daemon ----

type harness struct {
	d      *Daemon
	src    *fakeSource
	cmds   *fakeHandler
	links  *linkLog
	gate   *mqtttest.NetGate
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func startDaemon(t *testing.T, url string, edit func(*DaemonConfig)) *harness {
	t.Helper()
	h := &harness{src: newFakeSource(4), cmds: &fakeHandler{}, links: &linkLog{}, gate: &mqtttest.NetGate{}}
	cfg := DaemonConfig{
		Robot:     "rover-1",
		Conn:      mqtttest.Options(url),
		StateDir:  t.TempDir(),
		Source:    h.src,
		Commands:  h.cmds,
		Factsheet: protocol.FactsheetMsg{Version: "test"},
		Link:      h.links.add,
	}
	cfg.Conn.WrapConn = h.gate.Wrap
	if edit != nil {
		edit(&cfg)
	}
	if s, ok := cfg.Source.(*fakeSource); ok {
		h.src = s
	}
	d, err := NewDaemon(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.d = d
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- d.Run(ctx) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

func (h *harness) stop(t *testing.T) {
	h.once.Do(func() {
		h.cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(mqtttest.WaitLong):
			t.Errorf("Run did not return")
		}
	})
}

func (h *harness) waitUp(t *testing.T) {
	t.Helper()
	mqtttest.Eventually(t, "daemon connected", func() bool {
		c := h.d.currentConn()
		return c != nil && c.IsUp()
	})
}

func newTestGround(t *testing.T, url string, edit func(*ground.Config)) *ground.Client {
	t.Helper()
	cfg := ground.Config{GCS: "ops", Conn: mqtttest.Options(url), ResendEvery: 500 * time.Millisecond, ReplyTimeout: mqtttest.WaitLong}
	if edit != nil {
		edit(&cfg)
	}
	g, err := ground.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), mqtttest.WaitLong)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return g
}
