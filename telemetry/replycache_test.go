package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The tests of the one idempotency layer (replycache.go): repeats across
// the telemetry/runner seam, with the real runner behind the intake.

// seamHW is the runner's hardware in these tests: its tick can be held
// in Apply (a stuck tick), and Bind, which the tick goroutine calls when
// a mission starts, can be made to panic.
type seamHW struct {
	hold      atomic.Pointer[chan struct{}]
	entered   chan struct{}
	panicBind atomic.Bool
}

func (h *seamHW) Bind(*bt.Tree) runner.Binding {
	if h.panicBind.Load() {
		panic("broken binding")
	}
	return nopBinding{}
}

func (h *seamHW) Apply() error {
	if ch := h.hold.Load(); ch != nil {
		select {
		case h.entered <- struct{}{}:
		default:
		}
		<-*ch
	}
	return nil
}

func (h *seamHW) Safe() error                               { return nil }
func (h *seamHW) EStop(string)                              {}
func (h *seamHW) ReleaseEStop()                             {}
func (h *seamHW) Faults() []runner.Fault                    { return nil }
func (h *seamHW) Reading(string) (float64, time.Time, bool) { return 0, time.Time{}, false }
func (h *seamHW) Env() any                                  { return nil }

// stick holds the tick goroutine in its next Apply and returns once it
// is held there; release lets it go.
func (h *seamHW) stick(t *testing.T) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	h.hold.Store(&ch)
	<-h.entered // the tick goroutine is held in Apply now
	var once sync.Once
	release = func() {
		once.Do(func() {
			h.hold.Store(nil)
			close(ch)
		})
	}
	t.Cleanup(release)
	return release
}

// seamRig is a daemon's command intake with a running runner behind it.
// The daemon is not connected: the tests hand deliveries to its intake
// (handle) as the intake goroutine would, one at a time.
type seamRig struct {
	ctx    context.Context // the intake's
	d      *Daemon
	r      *runner.Runner
	hw     *seamHW
	mu     sync.Mutex
	events []string
}

func startSeam(t *testing.T, stateDir string, edit func(*DaemonConfig)) *seamRig {
	t.Helper()
	s := &seamRig{hw: &seamHW{entered: make(chan struct{}, 1)}}
	cfg := runner.Config{Robot: "r1", TickHz: 200, Hardware: s.hw, StateDir: stateDir, Events: func(e protocol.Event) {
		s.mu.Lock()
		s.events = append(s.events, e.Kind)
		s.mu.Unlock()
	}}
	cfg.Failsafe.LinkLossTimeout = -1
	r, err := runner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.r = r
	r.SetLink(protocol.LinkState{Broker: true, GCSOnline: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	dcfg := DaemonConfig{Robot: "r1", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: r, Commands: r, CommandRate: 1e9, CommandBurst: 1 << 30, StaleAfter: -1, CommandTimeout: mqtttest.WaitLong}
	if edit != nil {
		edit(&dcfg)
	}
	s.d, err = NewDaemon(dcfg)
	if err != nil {
		t.Fatal(err)
	}
	// The intake's Commands.Do calls end with the test.
	dctx, dcancel := context.WithCancel(context.Background())
	s.ctx = dctx
	t.Cleanup(func() { dcancel(); s.d.doing.Wait() })
	return s
}

func (s *seamRig) count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.events {
		if k == kind {
			n++
		}
	}
	return n
}

// deliver hands one delivery of payload to the intake.
func deliver(ctx context.Context, d *Daemon, payload string) protocol.Reply {
	return d.handle(ctx, inboundCmd{payload: []byte(payload), size: len(payload)})
}

func (s *seamRig) deliver(payload string) protocol.Reply { return deliver(s.ctx, s.d, payload) }

func same(a, b protocol.Reply) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

const seamMission = `{"format":"botd/mission@1","id":"2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10","name":"m","revision":0,"main":"main",` +
	`"trees":{"main":{"type":"MemSequence","children":[{"type":"Log","params":{"message":"go"}},{"type":"Wait","params":{"ms":60000}}]}}}`

func withTS(p string) string {
	return strings.Replace(p, `{`, `{"ts":"`+protocol.FormatTS(time.Now())+`",`, 1)
}

// A command delivered again after its outcome gets the same reply, once
// per delivery, and the runner carries it out once; a refusal the runner
// gave is its reply too. Another command under the id gets ID_REUSED.
func TestRedeliveryAcrossTheSeam(t *testing.T) {
	s := startSeam(t, "", nil)
	load := `{"id":"l1","op":"mission.load","start":true,"mission":` + seamMission + `}`
	first := s.deliver(load)
	if !first.OK || first.Result["started"] != true {
		t.Fatalf("load: %+v %+v", first, first.Error)
	}
	for range 3 {
		if again := s.deliver(withTS(load)); !same(again, first) {
			t.Fatalf("redelivery: %+v, first %+v", again, first)
		}
	}
	if n := s.count("mission.started"); n != 1 {
		t.Fatalf("started %d times", n)
	}
	start := `{"id":"s1","op":"mission.start","mission_id":"nope"}`
	refused := s.deliver(start)
	if refused.OK || refused.Error.Code != protocol.ErrNoMission {
		t.Fatalf("start of an unknown mission: %+v", refused)
	}
	if again := s.deliver(start); !same(again, refused) {
		t.Fatalf("redelivered refusal: %+v", again)
	}
	if r := s.deliver(`{"id":"l1","op":"mission.abort"}`); r.OK || r.Error.Code != protocol.ErrIDReused {
		t.Fatalf("another command under l1: %+v", r)
	}
	if s.r.State().Mode != protocol.ModeRunning {
		t.Fatalf("mode %s", s.r.State().Mode)
	}
}

// BUSY, STORAGE_FAILED and INTERNAL are not kept: a retry under the same
// id is carried out once the cause is gone. A command whose delivery
// stopped waiting for a stuck tick (INTERNAL) is carried out when the
// tick runs: a redelivery while it is still queued is answered without
// running it again, one after gets its outcome, and it runs once. A
// signed command is not REPLAYED on that retry (its nonce was spent by
// the first delivery): the cache answers before the envelope is checked.
func TestTransientRefusalsAreNotCached(t *testing.T) {
	dir := t.TempDir()
	nonces := map[string]bool{}
	var authMu sync.Mutex
	s := startSeam(t, dir, func(c *DaemonConfig) {
		c.Authorize = func(c protocol.Command, _ []byte) *protocol.ReplyError {
			if c.Auth == nil {
				return nil
			}
			authMu.Lock()
			defer authMu.Unlock()
			if nonces[c.Auth.Env] {
				return &protocol.ReplyError{Code: protocol.ErrReplayed, Message: "nonce used"}
			}
			nonces[c.Auth.Env] = true
			return nil
		}
	})
	docs := filepath.Join(dir, "missions")
	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(docs, nil, 0o644); err != nil { // the documents' folder is now a file
		t.Fatal(err)
	}
	load := `{"id":"load-1","op":"mission.load","start":true,"mission":` + seamMission + `}`
	if r := s.deliver(load); r.OK || r.Error.Code != protocol.ErrStorageFailed {
		t.Fatalf("reply %+v, want STORAGE_FAILED", r)
	}
	if err := os.Remove(docs); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := s.deliver(load); !r.OK {
		t.Fatalf("retry once the disk is back: %+v", r.Error)
	}

	release := s.hw.stick(t)
	s.d.cfg.CommandTimeout = time.Millisecond // no delivery waits for the stuck tick
	abort := `{"id":"abort-1","op":"mission.abort","auth":{"env":"{\"kid\":\"ops\",\"nonce\":\"n1\"}","sig":"s"}}`
	if r := s.deliver(abort); r.OK || r.Error.Code != protocol.ErrInternal || !strings.Contains(r.Error.Message, "may still be carried out") {
		t.Fatalf("abort with the tick stuck: %+v %+v", r, r.Error)
	}
	if r := s.deliver(withTS(abort)); r.OK || r.Error.Code != protocol.ErrInternal || !strings.Contains(r.Error.Message, "still being carried out") {
		t.Fatalf("redelivery while the abort is queued: %+v %+v", r, r.Error)
	}
	release()
	s.d.cfg.CommandTimeout = mqtttest.WaitLong
	// The runner answers the abort it applied (a second abort would be
	// NO_MISSION, a new check of the envelope REPLAYED).
	if r := s.deliver(abort); !r.OK {
		t.Fatalf("retry of the timed-out abort: %+v, want the tick's outcome", r.Error)
	}
	if n := s.count("mission.aborted") + s.count("mission.finished"); n > 1 {
		t.Fatalf("aborted %d times", n)
	}
}

// A redelivery of a command still being carried out is never run again,
// and is answered (INTERNAL) when it has not ended within CommandTimeout;
// another command under its id gets ID_REUSED at once; the retry after
// the outcome gets it.
func TestRedeliveryWhileRunning(t *testing.T) {
	release := make(chan struct{})
	h := &countingBlocker{blockingHandler: blockingHandler{release: release}}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: h, CommandTimeout: time.Millisecond, StaleAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); d.doing.Wait() })
	load := `{"id":"w1","op":"mission.load","mission":{"name":"x"}}`
	if r := deliver(ctx, d, load); r.OK || r.Error.Code != protocol.ErrInternal {
		t.Fatalf("first delivery: %+v", r)
	}
	testutil.Eventually(t, mqtttest.WaitLong, "the handler entered", h.entered)
	for range 2 {
		if r := deliver(ctx, d, load); r.OK || r.Error.Code != protocol.ErrInternal || !strings.Contains(r.Error.Message, "still being carried out") {
			t.Fatalf("redelivery while running: %+v %+v", r, r.Error)
		}
	}
	if r := deliver(ctx, d, `{"id":"w1","op":"mission.abort"}`); r.OK || r.Error.Code != protocol.ErrIDReused {
		t.Fatalf("another command under a running id: %+v", r)
	}
	close(release)
	e, _ := d.replies.get(cacheKey{id: "w1"})
	<-e.done
	if r := deliver(ctx, d, load); !r.OK || r.ID != "w1" {
		t.Fatalf("retry after the outcome: %+v", r)
	}
	if n := h.calls.Load(); n != 1 {
		t.Fatalf("handler ran %d times", n)
	}
}

// countingBlocker counts its calls.
type countingBlocker struct {
	blockingHandler
	calls atomic.Int32
}

func (c *countingBlocker) Do(ctx context.Context, cmd protocol.Command) protocol.Reply {
	c.calls.Add(1)
	return c.blockingHandler.Do(ctx, cmd)
}

// signed builds a command "signed" by kid for TestForgedDuplicateID's
// Authorize: sig must be "ok:" + env.
func signed(id, op, kid, extra, sig string) string {
	env := fmt.Sprintf(`{"kid":%q,"nonce":%q}`, kid, id+op+extra)
	if sig == "" {
		sig = "ok:" + env
	}
	auth, _ := json.Marshal(protocol.CommandAuth{Env: env, Sig: sig})
	return fmt.Sprintf(`{"id":%q,"op":%q%s,"auth":%s}`, id, op, extra, auth)
}

// A forged command reusing a legitimate command's id never gets the
// legitimate reply and never suppresses the legitimate command: ids are
// per sender (the envelope's key), and an entry is made only by a command
// that passed Authorize. Before the legitimate command comes, a forgery
// is refused by its envelope (not kept), and an unsigned command or an
// e-stop under the id does not take it; after, a forgery under the same
// key gets ID_REUSED, under another key its envelope's refusal.
func TestForgedDuplicateID(t *testing.T) {
	h := &fakeHandler{}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: h, StaleAfter: -1, CommandRate: 1e9, CommandBurst: 1 << 30,
		Authorize: func(c protocol.Command, _ []byte) *protocol.ReplyError {
			if c.Op != protocol.OpMissionStart {
				return nil // the toy signs mission.start only
			}
			if c.Auth == nil {
				return &protocol.ReplyError{Code: protocol.ErrSignatureRequired, Message: "unsigned"}
			}
			if c.Auth.Sig != "ok:"+c.Auth.Env {
				return &protocol.ReplyError{Code: protocol.ErrBadSignature, Message: "bad signature"}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	legit := signed("L", "mission.start", "ops", `,"mission_id":"m1"`, "")
	refusedAs := func(p, code string) protocol.Reply {
		t.Helper()
		r := deliver(ctx, d, p)
		if r.OK || r.Error.Code != code {
			t.Fatalf("%s: got %+v %+v, want %s", p, r, r.Error, code)
		}
		return r
	}
	// Before the legitimate command.
	refusedAs(signed("L", "mission.start", "ops", `,"mission_id":"evil"`, "forged"), protocol.ErrBadSignature)
	refusedAs(`{"id":"L","op":"mission.start","mission_id":"evil"}`, protocol.ErrSignatureRequired)
	pause := deliver(ctx, d, `{"id":"L","op":"mission.pause"}`) // unsigned ops need no envelope
	if !pause.OK {
		t.Fatalf("unsigned pause: %+v", pause.Error)
	}
	d.estopNow(ctx, estopOrder{topic: protocol.LeafCmd, id: "L", reply: true, payload: []byte(`{"id":"L","op":"estop"}`)})
	first := deliver(ctx, d, legit)
	if !first.OK || h.ops(protocol.OpMissionStart) != 1 {
		t.Fatalf("the legitimate command after forgeries under its id: %+v %+v", first, first.Error)
	}
	// After it.
	forgeries := []string{
		signed("L", "mission.start", "ops", `,"mission_id":"evil"`, "forged"), // same key, other body
		signed("L", "mission.start", "eve", `,"mission_id":"m1"`, "forged"),   // another key
		`{"id":"L","op":"mission.start","mission_id":"m1"}`,                   // no key
	}
	for _, f := range forgeries {
		if r := deliver(ctx, d, f); r.OK || same(r, first) {
			t.Fatalf("forgery %s got %+v", f, r)
		}
	}
	refusedAs(forgeries[0], protocol.ErrIDReused)
	if again := deliver(ctx, d, withTS(legit)); !same(again, first) {
		t.Fatalf("legitimate redelivery: %+v, first %+v", again, first)
	}
	if again := deliver(ctx, d, `{"id":"L","op":"mission.pause"}`); !same(again, pause) {
		t.Fatalf("the unsigned pause again: %+v, first %+v", again, pause)
	}
	if n := h.ops(protocol.OpMissionStart); n != 1 {
		t.Fatalf("mission.start ran %d times", n)
	}
}

// A panic in an op is the command's one INTERNAL reply (the runner's
// guard, here on the tick goroutine); it is not kept, so a retry runs
// afresh, and the intake goes on.
func TestPanicInAnOpAcrossTheSeam(t *testing.T) {
	s := startSeam(t, "", nil)
	s.hw.panicBind.Store(true)
	load := `{"id":"p1","op":"mission.load","start":true,"mission":` + seamMission + `}`
	for range 2 {
		if r := s.deliver(load); r.OK || r.Error.Code != protocol.ErrInternal || !strings.Contains(r.Error.Message, "broken binding") {
			t.Fatalf("load whose start panics: %+v %+v", r, r.Error)
		}
	}
	s.hw.panicBind.Store(false)
	if r := s.deliver(load); !r.OK {
		t.Fatalf("retry once the cause is gone: %+v", r.Error)
	}
	if n := s.count("mission.started"); n != 1 {
		t.Fatalf("started %d times", n)
	}
}

// The cache holds at most ReplyCache entries: the oldest finished one is
// forgotten first (a redelivery of it runs again: the bound is what makes
// "never twice" hold for the last ReplyCache ids only), and an entry still
// running is never forgotten: with every entry running, a new command is
// answered BUSY without running.
func TestReplyCacheBound(t *testing.T) {
	h := &fakeHandler{}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: h, ReplyCache: 2, StaleAfter: -1, CommandRate: 1e9, CommandBurst: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c", "c", "b"} {
		deliver(ctx, d, `{"id":"`+id+`","op":"mission.pause"}`)
	}
	if h.count("a") != 1 || h.count("b") != 1 || h.count("c") != 1 || d.replies.len() != 2 {
		t.Fatalf("calls a %d b %d c %d, %d entries", h.count("a"), h.count("b"), h.count("c"), d.replies.len())
	}
	deliver(ctx, d, `{"id":"a","op":"mission.pause"}`)
	if h.count("a") != 2 || d.replies.len() != 2 {
		t.Fatalf("a forgotten id: %d calls, %d entries", h.count("a"), d.replies.len())
	}

	release := make(chan struct{})
	bh := &countingBlocker{blockingHandler: blockingHandler{release: release}}
	d.cfg.Commands, d.cfg.CommandTimeout = bh, time.Millisecond
	d.replies = newReplyCache(2)
	dctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); d.doing.Wait() })
	for _, id := range []string{"x", "y"} {
		if r := deliver(dctx, d, `{"id":"`+id+`","op":"mission.pause"}`); r.OK || r.Error.Code != protocol.ErrInternal {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	if r := deliver(dctx, d, `{"id":"z","op":"mission.pause"}`); r.OK || r.Error.Code != protocol.ErrBusy {
		t.Fatalf("a command with every entry running: %+v", r)
	}
	close(release)
	for _, id := range []string{"x", "y"} {
		e, _ := d.replies.get(cacheKey{id: id})
		<-e.done
	}
	d.cfg.CommandTimeout = mqtttest.WaitLong
	if r := deliver(dctx, d, `{"id":"z","op":"mission.pause"}`); !r.OK {
		t.Fatalf("z once there is room: %+v", r.Error)
	}
	if n := bh.calls.Load(); n != 3 {
		t.Fatalf("%d calls, want x, y and z once", n)
	}
}

// An e-stop is never held by a cache entry: one under the id of a command
// still running engages and is answered at once, and leaves the running
// command's entry (and its outcome) alone.
func TestEStopNotHeldByARunningEntry(t *testing.T) {
	release := make(chan struct{})
	h := &selective{blockingHandler{release: release}}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: h, CommandTimeout: time.Millisecond, StaleAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); d.doing.Wait() })
	load := `{"id":"E","op":"mission.load","mission":{"name":"x"}}`
	if r := deliver(ctx, d, load); r.OK || r.Error.Code != protocol.ErrInternal {
		t.Fatalf("load: %+v", r)
	}
	if r := d.estopNow(ctx, estopOrder{topic: protocol.LeafCmd, id: "E", reply: true, payload: []byte(`{"id":"E","op":"estop"}`)}); !r.OK || r.ID != "E" {
		t.Fatalf("e-stop under a running id: %+v", r)
	}
	close(release)
	e, _ := d.replies.get(cacheKey{id: "E"})
	<-e.done
	d.cfg.CommandTimeout = mqtttest.WaitLong
	if r := deliver(ctx, d, load); !r.OK {
		t.Fatalf("the load's outcome after the e-stop: %+v", r.Error)
	}
}
