package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// signedDaemon is botd's serve running in this process, so the test can
// look at the simulated robot's wheels.
type signedDaemon struct {
	world *sim.World
	stop  func()
}

func startSignedDaemon(t *testing.T, cfgFile, stateDir string) *signedDaemon {
	t.Helper()
	cfg, err := loadConfig(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	built := make(chan *system, 1)
	testBuilt = func(s *system) {
		if s.cfg.StateDir == stateDir {
			built <- s
		}
	}
	t.Cleanup(func() { testBuilt = nil })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), io.Discard) }()
	var s *system
	select {
	case s = <-built:
	case err := <-done:
		cancel()
		t.Fatalf("botd did not start: %v", err)
	}
	d := &signedDaemon{world: s.world}
	var once sync.Once
	d.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("botd: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Error("botd did not stop")
			}
		})
	}
	t.Cleanup(d.stop)
	return d
}

// wheels is the largest wheel speed the simulated robot has had since
// the last reset, sampled every millisecond.
type wheelWatch struct {
	mu   sync.Mutex
	most float64
}

func (w *wheelWatch) run(ctx context.Context, world *sim.World) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, r := range world.Robots() {
			l, rr := r.Wheels()
			w.mu.Lock()
			w.most = math.Max(w.most, math.Max(math.Abs(l), math.Abs(rr)))
			w.mu.Unlock()
		}
	}
}

func (w *wheelWatch) take() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.most
	w.most = 0
	return m
}

// With security.require_signed_missions, through the embedded broker:
// a signed mission is loaded and started; an unsigned injection into it
// is refused and the wheels never turn (the same injection signed turns
// them); captured envelopes sent again, altered, misdirected, expired or
// signed by a revoked key are refused with their codes and change
// nothing; pause, abort and estop need no signature; and a captured
// envelope stays refused after the daemon restarts.
func TestSignedCommandsEndToEnd(t *testing.T) {
	dir, stateDir := t.TempDir(), t.TempDir()
	_, opsKey, _ := ed25519.GenerateKey(rand.Reader)
	_, oldKey, _ := ed25519.GenerateKey(rand.Reader)
	pub := func(k ed25519.PrivateKey) string {
		return base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
	}
	addr := freeAddr(t)
	cfgFile := filepath.Join(dir, "botd.yaml")
	os.WriteFile(cfgFile, fmt.Appendf(nil, `robot: rover-1
hardware: %s
state_dir: %s
failsafe: {require_gcs: false}
security:
  require_signed_missions: true
  public_keys: ["ops:%s", "old:%s"]
  revoked_keys: [old]
  max_validity: 5m
  clock_skew: 10s
broker: {embedded: {listen: '%s'}}
`, mustAbs(t, "../../configs/sim.yaml"), stateDir, pub(opsKey), pub(oldKey), addr), 0o644)
	d := startSignedDaemon(t, cfgFile, stateDir)
	url := "tcp://" + addr
	waitBroker(t, addr)

	ops := &auth.Signer{KeyID: "ops", Key: opsKey}
	signedG := newSigningGround(t, url, func(robot string, c *protocol.Command) error {
		if !auth.Signed[c.Op] {
			return nil
		}
		return ops.Sign(robot, c)
	})
	plain := newGround(t, url, "rover-1")
	plain.waitFor(t, "rover-1 online", func(r *groundRec) bool { return len(r.states) > 0 })

	// Everything sent to the robot, as an eavesdropper sees it.
	var capMu sync.Mutex
	var captured [][]byte
	spy, err := transport.Dial(transport.Options{Brokers: []string{url}, ClientID: "spy"})
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	// Subscribed once connected, SUBACK and all (before that, Subscribe
	// only notes the subscription for the connection to make, and what is
	// sent meanwhile goes uncaptured).
	waitUntil(t, "the spy connected", spy.IsUp)
	topics, _ := protocol.NewTopics("", "rover-1")
	if err := spy.Subscribe(topics.Cmd(), 1, func(_ string, p []byte) {
		capMu.Lock()
		captured = append(captured, append([]byte(nil), p...))
		capMu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	lastCaptured := func(op string) protocol.Command {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			capMu.Lock()
			for i := len(captured) - 1; i >= 0; i-- {
				var c protocol.Command
				if json.Unmarshal(captured[i], &c) == nil && c.Op == op && c.Auth != nil {
					capMu.Unlock()
					return c
				}
			}
			capMu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no signed %s captured", op)
		return protocol.Command{}
	}
	send := func(g *ground.Client, c protocol.Command) protocol.Reply {
		t.Helper()
		if c.ID == "" {
			c.ID = uuid.NewString()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		rep, err := g.Send(ctx, "rover-1", c)
		if err != nil {
			t.Fatalf("%s: %v", c.Op, err)
		}
		return rep
	}
	refused := func(what string, rep protocol.Reply, code string) {
		t.Helper()
		if rep.OK || rep.Error == nil || rep.Error.Code != code {
			t.Errorf("%s: %+v, want %s", what, rep.Error, code)
		}
	}
	accepted := func(what string, rep protocol.Reply) {
		t.Helper()
		if !rep.OK {
			t.Fatalf("%s refused: %+v", what, rep.Error)
		}
	}
	state := func() protocol.StateMsg {
		plain.mu.Lock()
		defer plain.mu.Unlock()
		return plain.lastState()
	}
	ticksLater := func(n uint64) {
		t.Helper()
		from := state().Tick.Count
		plain.waitFor(t, fmt.Sprintf("%d more ticks", n), func(r *groundRec) bool { return r.lastState().Tick.Count >= from+n })
	}
	modeIs := func(mode string) {
		t.Helper()
		plain.waitFor(t, "mode "+mode, func(r *groundRec) bool { return r.lastState().Mode == mode })
	}
	wheels := &wheelWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go wheels.run(ctx, d.world)

	const slotted = "7a1c0f52-3d0e-4b7a-9c11-5e2f8d6a4b01"
	// A mission that idles in a slot until something is injected into it.
	mission := json.RawMessage(`{"format":"botd/mission@1","id":"7a1c0f52-3d0e-4b7a-9c11-5e2f8d6a4b01","name":"slotted","main":"main",
		"trees":{"main":{"type":"Repeater","params":{"count":-1},"children":[{"type":"DynamicSubTree","params":{"slot":"job","default":"idle"}}]},
		"idle":{"type":"Wait","params":{"ms":20}}}}`)
	refused("an unsigned load", send(plain.g, protocol.Command{Op: protocol.OpMissionLoad, Mission: mission, Start: true}), protocol.ErrSignatureRequired)
	accepted("the signed load and start", send(signedG, protocol.Command{Op: protocol.OpMissionLoad, Mission: mission, Start: true}))
	plain.waitFor(t, "the mission running", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeRunning && s.Mission != nil && s.Mission.ID == slotted
	})
	started := state().Mission.Started
	wheels.take()

	drive := json.RawMessage(`{"type":"Drive","params":{"linear":0.3}}`)
	refused("an unsigned inject", send(plain.g, protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: drive}), protocol.ErrSignatureRequired)
	refused("an unsigned blackboard.set", send(plain.g, protocol.Command{Op: protocol.OpBlackboardSet, Key: "speed", Value: 1.0}), protocol.ErrSignatureRequired)
	ticksLater(20)
	if w := wheels.take(); w != 0 {
		t.Fatalf("the wheels turned (%v) after a refused injection", w)
	}

	// Captured envelopes, sent again.
	load := lastCaptured(protocol.OpMissionLoad)
	rep := send(plain.g, load) // verbatim, same id: the first reply again, nothing done twice
	accepted("the verbatim repeat", rep)
	refused("the captured load under a new id", send(plain.g, withID(load)), protocol.ErrReplayed)
	other := withID(load)
	other.Replace = true
	refused("the captured load with replace", send(plain.g, other), protocol.ErrBadSignature)
	accepted("a signed load of a second mission, not started", send(signedG, protocol.Command{Op: protocol.OpMissionLoad,
		Mission: json.RawMessage(`{"format":"botd/mission@1","id":"9b2d1e63-4e1f-4c8b-8d22-6f3a9e7b5c12","main":"m","trees":{"m":{"type":"Wait","params":{"ms":20}}}}`)}))
	second := withID(lastCaptured(protocol.OpMissionLoad))
	second.Start, second.Replace = true, true
	refused("the captured load with start and replace", send(plain.g, second), protocol.ErrBadSignature)
	if s := state(); s.Mission == nil || s.Mission.ID != slotted || !s.Mission.Started.Equal(started) || s.Mode != protocol.ModeRunning {
		t.Fatalf("the running mission changed: %+v", s.Mission)
	}

	// Misdirected, expired, revoked.
	for _, tc := range []struct {
		name   string
		signer *auth.Signer
		robot  string
		code   string
	}{
		{"an envelope for rover-2", ops, "rover-2", protocol.ErrWrongRobot},
		{"an expired envelope", &auth.Signer{KeyID: "ops", Key: opsKey, Now: func() time.Time { return time.Now().Add(-2 * time.Minute) }}, "rover-1", protocol.ErrExpired},
		{"an envelope valid too long", &auth.Signer{KeyID: "ops", Key: opsKey, Validity: time.Hour}, "rover-1", protocol.ErrExpired},
		{"a revoked key", &auth.Signer{KeyID: "old", Key: oldKey}, "rover-1", protocol.ErrBadSignature},
	} {
		c := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionInject, Slot: "job", Tree: drive}
		if err := tc.signer.Sign(tc.robot, &c); err != nil {
			t.Fatal(err)
		}
		refused(tc.name, send(plain.g, c), tc.code)
	}
	ticksLater(20)
	if w := wheels.take(); w != 0 {
		t.Fatalf("the wheels turned (%v) after refused injections", w)
	}

	// The same injection, signed, moves the robot: the checks above could fail.
	accepted("a signed inject", send(signedG, protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: drive}))
	waitUntil(t, "the wheels turning", func() bool { l, r := d.world.Robots()[0].Wheels(); return l != 0 || r != 0 })

	// Safer commands need no signature; the ones that release the robot do.
	accepted("an unsigned pause", send(plain.g, protocol.Command{Op: protocol.OpMissionPause}))
	modeIs(protocol.ModePaused)
	refused("an unsigned resume", send(plain.g, protocol.Command{Op: protocol.OpMissionResume}), protocol.ErrSignatureRequired)
	ticksLater(5)
	if m := state().Mode; m != protocol.ModePaused {
		t.Fatalf("mode %s after a refused resume", m)
	}
	accepted("a signed resume", send(signedG, protocol.Command{Op: protocol.OpMissionResume}))
	modeIs(protocol.ModeRunning)
	accepted("an unsigned estop", send(plain.g, protocol.Command{Op: protocol.OpEStop}))
	modeIs(protocol.ModeEStop)
	waitUntil(t, "the wheels stopped", func() bool { l, r := d.world.Robots()[0].Wheels(); return l == 0 && r == 0 })
	wheels.take()
	refused("an unsigned estop.reset", send(plain.g, protocol.Command{Op: protocol.OpEStopReset}), protocol.ErrSignatureRequired)
	ticksLater(5)
	if m := state().Mode; m != protocol.ModeEStop {
		t.Fatalf("mode %s after a refused estop.reset", m)
	}
	accepted("a signed estop.reset", send(signedG, protocol.Command{Op: protocol.OpEStopReset}))
	plain.waitFor(t, "the e-stop released", func(r *groundRec) bool { return !r.lastState().EStop })
	accepted("an unsigned abort", send(plain.g, protocol.Command{Op: protocol.OpMissionAbort}))
	plain.waitFor(t, "the mission aborted", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mission != nil && s.Mission.Status == protocol.RunAborted
	})

	// After a restart the robot still knows the envelope: the verbatim
	// repeat (its id forgotten with the reply cache) is REPLAYED.
	startCmd := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionStart, MissionID: slotted, Replace: true}
	if err := ops.Sign("rover-1", &startCmd); err != nil {
		t.Fatal(err)
	}
	accepted("a signed start", send(plain.g, startCmd))
	modeIs(protocol.ModeRunning)
	otherMission := withID(startCmd)
	otherMission.MissionID = "9b2d1e63-4e1f-4c8b-8d22-6f3a9e7b5c12"
	refused("the captured start for another mission", send(plain.g, otherMission), protocol.ErrBadSignature)
	if s := state(); s.Mission == nil || s.Mission.ID != slotted {
		t.Fatalf("the running mission changed: %+v", s.Mission)
	}
	d.stop()
	plain.waitFor(t, "rover-1 offline", func(r *groundRec) bool {
		return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOffline
	})
	d = startSignedDaemon(t, cfgFile, stateDir)
	plain.waitFor(t, "rover-1 back online", func(r *groundRec) bool {
		return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOnline
	})
	startCmd.TS, load.TS = "", "" // the same ids, a fresh ts: what a replay after a while looks like
	refused("the captured start after a restart", send(plain.g, startCmd), protocol.ErrReplayed)
	refused("the captured load after a restart", send(plain.g, load), protocol.ErrReplayed)
	accepted("a fresh signed start", send(signedG, protocol.Command{Op: protocol.OpMissionStart, MissionID: slotted}))
}

// withID is a captured command under a new id and with a fresh ts (the
// envelope binds neither: ground stations resend with the same id, and
// ts only ages commands).
func withID(c protocol.Command) protocol.Command {
	c.ID, c.TS = uuid.NewString(), ""
	return c
}

// waitUntil is how this package's tests wait for a condition: polled by
// testutil.Eventually, bounded by mqtttest.WaitLong (the bound only
// catches a hang).
func waitUntil(t *testing.T, what string, ok func() bool, details ...func() string) {
	t.Helper()
	testutil.Eventually(t, mqtttest.WaitLong, what, ok, details...)
}

func newSigningGround(t *testing.T, url string, sign func(string, *protocol.Command) error) *ground.Client {
	t.Helper()
	g, err := ground.New(ground.Config{GCS: "signer-" + uuid.NewString()[:8], Conn: transport.Options{Brokers: []string{url}}, Sign: sign})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return g
}

// A damaged nonce store does not stop the daemon: it is kept aside, an
// event says so, and a signed command issued before is refused while a
// fresh one passes once the skew has passed.
func TestDamagedNonceStoreAtStart(t *testing.T) {
	dir, stateDir := t.TempDir(), t.TempDir()
	_, opsKey, _ := ed25519.GenerateKey(rand.Reader)
	addr := freeAddr(t)
	cfgFile := filepath.Join(dir, "botd.yaml")
	os.WriteFile(cfgFile, fmt.Appendf(nil, `robot: rover-1
hardware: %s
state_dir: %s
failsafe: {require_gcs: false}
security:
  require_signed_missions: true
  public_keys: ["ops:%s"]
  clock_skew: 1s
broker: {embedded: {listen: '%s'}}
`, mustAbs(t, "../../configs/sim.yaml"), stateDir, base64.StdEncoding.EncodeToString(opsKey.Public().(ed25519.PublicKey)), addr), 0o644)
	ops := &auth.Signer{KeyID: "ops", Key: opsKey}
	early := protocol.Command{ID: uuid.NewString(), Op: protocol.OpEStopReset}
	if err := ops.Sign("rover-1", &early); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stateDir, auth.NonceFile), []byte("00000000 {\"k\":\"ops\"\n"), 0o600)
	startSignedDaemon(t, cfgFile, stateDir)
	waitBroker(t, addr)
	plain := newGround(t, "tcp://"+addr, "rover-1")
	plain.waitFor(t, "the security.nonces_damaged event", func(r *groundRec) bool { return r.hasEvent("security.nonces_damaged") })
	if _, err := os.Stat(filepath.Join(stateDir, auth.NonceFile+".corrupt")); err != nil {
		t.Errorf("the damaged file was not kept: %v", err)
	}
	if rep := plain.send(t, "rover-1", early); rep.OK || rep.Error.Code != protocol.ErrReplayed {
		t.Errorf("an envelope issued before the damage was found: %+v, want REPLAYED", rep.Error)
	}
	// botctl signs each try afresh: once the skew has passed, one passes.
	waitUntil(t, "a fresh envelope accepted", func() bool {
		c := protocol.Command{ID: uuid.NewString(), Op: protocol.OpEStopReset}
		ops.Sign("rover-1", &c)
		rep := plain.send(t, "rover-1", c)
		if !rep.OK && rep.Error.Code != protocol.ErrReplayed {
			t.Fatalf("a fresh envelope: %+v", rep.Error)
		}
		if !rep.OK {
			time.Sleep(200 * time.Millisecond) // well under the command rate limit
		}
		return rep.OK
	})
}
