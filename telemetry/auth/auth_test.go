package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	t      testing.TB
	dir    string
	now    time.Time
	mu     sync.Mutex
	keys   map[string]ed25519.PrivateKey
	store  *NonceStore
	v      *Verifier
	robot  string
	revoke []string
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{t: t, dir: t.TempDir(), now: t0, keys: map[string]ed25519.PrivateKey{}, robot: "rover-1"}
	for _, id := range []string{"ops", "old"} {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		f.keys[id] = priv
	}
	f.open()
	return f
}

func (f *fixture) clock() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }

func (f *fixture) advance(d time.Duration) { f.mu.Lock(); f.now = f.now.Add(d); f.mu.Unlock() }

func (f *fixture) open() {
	f.t.Helper()
	if f.store != nil {
		f.store.Close()
	}
	s, err := OpenNonces(NonceConfig{Dir: f.dir, Window: 10*time.Minute + time.Minute, Skew: 30 * time.Second, Now: f.clock})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { s.Close() })
	f.store = s
	pubs := map[string]ed25519.PublicKey{}
	for id, k := range f.keys {
		pubs[id] = k.Public().(ed25519.PublicKey)
	}
	f.v, err = NewVerifier(VerifierConfig{Robot: f.robot, Keys: pubs, Revoked: f.revoke, Nonces: s, Now: f.clock, Enabled: true})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) signer(id string) *Signer {
	return &Signer{KeyID: id, Key: f.keys[id], Now: f.clock}
}

// signed returns c signed for robot with key id, as the wire payload.
func (f *fixture) signed(id, robot string, c protocol.Command) []byte {
	f.t.Helper()
	if err := f.signer(id).Sign(robot, &c); err != nil {
		f.t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// check decodes payload as telemetry does and verifies it; "" is OK.
func (f *fixture) check(payload []byte) string {
	f.t.Helper()
	var c protocol.Command
	if err := json.Unmarshal(payload, &c); err != nil {
		f.t.Fatal(err)
	}
	if r := f.v.Check(c, payload); r != nil {
		return r.Code
	}
	return ""
}

// edit changes members of a payload, keeping its auth.
func edit(t *testing.T, payload []byte, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	json.Unmarshal(payload, &m)
	for k, v := range set {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return b
}

func start(id string) protocol.Command {
	return protocol.Command{ID: "c-" + id, Op: protocol.OpMissionStart, MissionID: id}
}

func TestSignedCommandIsAcceptedOnce(t *testing.T) {
	f := newFixture(t)
	p := f.signed("ops", "rover-1", start("m1"))
	if code := f.check(p); code != "" {
		t.Fatalf("a signed start: %s", code)
	}
	if code := f.check(p); code != protocol.ErrReplayed {
		t.Fatalf("the same envelope again: %q, want REPLAYED", code)
	}
	// Under another command id: still the same envelope.
	if code := f.check(edit(t, p, map[string]any{"id": "other"})); code != protocol.ErrReplayed {
		t.Fatalf("the envelope under another id: %q, want REPLAYED", code)
	}
}

func TestRefusalCodes(t *testing.T) {
	f := newFixture(t)
	tree := json.RawMessage(`{"type":"Wait","params":{"ms":5}}`)
	agent := 0
	load := protocol.Command{ID: "l", Op: protocol.OpMissionLoad, Mission: json.RawMessage(`"format: botd/mission@1\nid: m1\n"`), Start: true}
	for _, tc := range []struct {
		name    string
		payload func() []byte
		want    string
	}{
		{"unsigned start", func() []byte { b, _ := json.Marshal(start("m1")); return b }, protocol.ErrSignatureRequired},
		{"unsigned inject", func() []byte {
			b, _ := json.Marshal(protocol.Command{ID: "i", Op: protocol.OpMissionInject, Slot: "s", Tree: tree})
			return b
		}, protocol.ErrSignatureRequired},
		{"unsigned blackboard.set", func() []byte {
			b, _ := json.Marshal(protocol.Command{ID: "b", Op: protocol.OpBlackboardSet, Key: "k", Value: 1.0})
			return b
		}, protocol.ErrSignatureRequired},
		{"unsigned estop.reset", func() []byte { b, _ := json.Marshal(protocol.Command{ID: "r", Op: protocol.OpEStopReset}); return b }, protocol.ErrSignatureRequired},
		{"empty auth", func() []byte {
			return edit(t, f.signed("ops", "rover-1", start("m1")), map[string]any{"auth": map[string]any{}})
		}, protocol.ErrSignatureRequired},
		{"changed mission id", func() []byte {
			return edit(t, f.signed("ops", "rover-1", start("m1")), map[string]any{"mission_id": "m2"})
		}, protocol.ErrBadSignature},
		{"start added", func() []byte {
			c := load
			c.Start = false
			return edit(t, f.signed("ops", "rover-1", c), map[string]any{"start": true})
		}, protocol.ErrBadSignature},
		{"replace added", func() []byte {
			return edit(t, f.signed("ops", "rover-1", start("m1")), map[string]any{"replace": true})
		}, protocol.ErrBadSignature},
		{"start removed", func() []byte {
			return edit(t, f.signed("ops", "rover-1", load), map[string]any{"start": nil})
		}, protocol.ErrBadSignature},
		{"other document", func() []byte {
			return edit(t, f.signed("ops", "rover-1", load), map[string]any{"mission": "format: botd/mission@1\nid: m1\nrevision: 2\n"})
		}, protocol.ErrBadSignature},
		{"other tree", func() []byte {
			c := protocol.Command{ID: "i", Op: protocol.OpMissionInject, MissionID: "m1", Slot: "s", Tree: tree, Agent: &agent}
			return edit(t, f.signed("ops", "rover-1", c), map[string]any{"tree": map[string]any{"type": "Drive"}})
		}, protocol.ErrBadSignature},
		{"other agent", func() []byte {
			c := protocol.Command{ID: "i", Op: protocol.OpMissionInject, MissionID: "m1", Slot: "s", Tree: tree, Agent: &agent}
			return edit(t, f.signed("ops", "rover-1", c), map[string]any{"agent": 1})
		}, protocol.ErrBadSignature},
		{"other blackboard value", func() []byte {
			c := protocol.Command{ID: "b", Op: protocol.OpBlackboardSet, Key: "speed", Value: 0.5}
			return edit(t, f.signed("ops", "rover-1", c), map[string]any{"value": 5})
		}, protocol.ErrBadSignature},
		{"other op", func() []byte {
			return edit(t, f.signed("ops", "rover-1", protocol.Command{ID: "r", Op: protocol.OpEStopReset}), map[string]any{"op": "mission.resume"})
		}, protocol.ErrBadSignature},
		{"unknown key", func() []byte {
			_, other, _ := ed25519.GenerateKey(rand.Reader)
			s := &Signer{KeyID: "nobody", Key: other, Now: f.clock}
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, protocol.ErrBadSignature},
		{"another key under a trusted id", func() []byte {
			_, other, _ := ed25519.GenerateKey(rand.Reader)
			s := &Signer{KeyID: "ops", Key: other, Now: f.clock}
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, protocol.ErrBadSignature},
		{"garbled signature", func() []byte {
			p := f.signed("ops", "rover-1", start("m1"))
			var c protocol.Command
			json.Unmarshal(p, &c)
			return edit(t, p, map[string]any{"auth": map[string]any{"env": c.Auth.Env, "sig": "!!"}})
		}, protocol.ErrBadSignature},
		{"envelope edited", func() []byte {
			p := f.signed("ops", "rover-1", start("m1"))
			var c protocol.Command
			json.Unmarshal(p, &c)
			env := strings.Replace(c.Auth.Env, `"robot":"rover-1"`, `"robot":"rover-*"`, 1)
			return edit(t, p, map[string]any{"auth": map[string]any{"env": env, "sig": c.Auth.Sig}})
		}, protocol.ErrBadSignature},
		{"unknown envelope member", func() []byte {
			p := f.signed("ops", "rover-1", start("m1"))
			var c protocol.Command
			json.Unmarshal(p, &c)
			env := strings.Replace(c.Auth.Env, `{`, `{"x":1,`, 1)
			return edit(t, p, map[string]any{"auth": map[string]any{"env": env, "sig": c.Auth.Sig}})
		}, protocol.ErrBadSignature},
		{"oversized envelope", func() []byte {
			p := f.signed("ops", "rover-1", start("m1"))
			var c protocol.Command
			json.Unmarshal(p, &c)
			return edit(t, p, map[string]any{"auth": map[string]any{"env": strings.Repeat(" ", MaxEnvBytes) + c.Auth.Env, "sig": c.Auth.Sig}})
		}, protocol.ErrBadSignature},
		{"for rover-2", func() []byte { return f.signed("ops", "rover-2", start("m1")) }, protocol.ErrWrongRobot},
		{"for boat-*", func() []byte { return f.signed("ops", "boat-*", start("m1")) }, protocol.ErrWrongRobot},
		{"for rover-*", func() []byte { return f.signed("ops", "rover-*", start("m1")) }, ""},
		{"expired", func() []byte {
			s := f.signer("ops")
			s.Now = func() time.Time { return f.clock().Add(-2 * time.Minute) }
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, protocol.ErrExpired},
		{"expired within the skew", func() []byte {
			s := f.signer("ops")
			s.Now = func() time.Time { return f.clock().Add(-80 * time.Second) }
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, ""},
		{"not yet valid", func() []byte {
			s := f.signer("ops")
			s.Now = func() time.Time { return f.clock().Add(time.Minute) }
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, protocol.ErrExpired},
		{"valid for too long", func() []byte {
			s := f.signer("ops")
			s.Validity = 11 * time.Minute
			c := start("m1")
			s.Sign("rover-1", &c)
			b, _ := json.Marshal(c)
			return b
		}, protocol.ErrExpired},
		{"signed blackboard.set", func() []byte {
			return f.signed("ops", "rover-1", protocol.Command{ID: "b", Op: protocol.OpBlackboardSet, Key: "speed", Value: map[string]any{"a": []any{1.5, "<x>"}}})
		}, ""},
		{"signed inject", func() []byte {
			return f.signed("ops", "rover-1", protocol.Command{ID: "i", Op: protocol.OpMissionInject, MissionID: "m1", Slot: "s", Tree: tree, Agent: &agent})
		}, ""},
		{"signed load", func() []byte { return f.signed("ops", "rover-1", load) }, ""},
		{"unsigned pause", func() []byte { b, _ := json.Marshal(protocol.Command{ID: "p", Op: protocol.OpMissionPause}); return b }, ""},
		{"unsigned abort", func() []byte { b, _ := json.Marshal(protocol.Command{ID: "a", Op: protocol.OpMissionAbort}); return b }, ""},
		{"unsigned estop", func() []byte { b, _ := json.Marshal(protocol.Command{ID: "e", Op: protocol.OpEStop}); return b }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.check(tc.payload()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRevokedKey(t *testing.T) {
	for _, by := range []string{"id", "public key"} {
		t.Run(by, func(t *testing.T) {
			f := newFixture(t)
			if by == "id" {
				f.revoke = []string{"old"}
			} else {
				f.revoke = []string{base64.StdEncoding.EncodeToString(f.keys["old"].Public().(ed25519.PublicKey))}
			}
			f.open()
			if code := f.check(f.signed("old", "rover-1", start("m1"))); code != protocol.ErrBadSignature {
				t.Errorf("revoked key: %q", code)
			}
			if code := f.check(f.signed("ops", "rover-1", start("m1"))); code != "" {
				t.Errorf("the other key: %q", code)
			}
		})
	}
}

// A refused envelope leaves no trace: the same nonce, genuinely signed,
// is still accepted after a forgery carrying it was refused.
func TestRefusalsRecordNothing(t *testing.T) {
	f := newFixture(t)
	p := f.signed("ops", "rover-1", start("m1"))
	if code := f.check(edit(t, p, map[string]any{"mission_id": "m2"})); code != protocol.ErrBadSignature {
		t.Fatalf("edited: %q", code)
	}
	if f.store.Len() != 0 {
		t.Fatalf("a refused envelope left %d nonces", f.store.Len())
	}
	if code := f.check(p); code != "" {
		t.Fatalf("the genuine one after the forgery: %q", code)
	}
}

func TestDisabledVerifierPassesAll(t *testing.T) {
	v, err := NewVerifier(VerifierConfig{Robot: "r"})
	if err != nil {
		t.Fatal(err)
	}
	c := start("m1")
	b, _ := json.Marshal(c)
	if r := v.Check(c, b); r != nil {
		t.Fatal(r)
	}
	if _, err := NewVerifier(VerifierConfig{Robot: "r", Enabled: true}); err == nil {
		t.Fatal("an enabled verifier without a nonce store")
	}
}

func TestNoncesSurviveAReopen(t *testing.T) {
	f := newFixture(t)
	p := f.signed("ops", "rover-1", start("m1"))
	if code := f.check(p); code != "" {
		t.Fatal(code)
	}
	f.open()
	if f.store.Damaged() != "" {
		t.Fatalf("a sound file reported damaged: %s", f.store.Damaged())
	}
	if code := f.check(p); code != protocol.ErrReplayed {
		t.Fatalf("after a reopen: %q, want REPLAYED", code)
	}
	if code := f.check(f.signed("ops", "rover-1", start("m1"))); code != "" {
		t.Fatalf("a fresh envelope after a reopen: %q", code)
	}
}

func TestNonceStoreIsBounded(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenNonces(NonceConfig{Dir: dir, Window: time.Minute, PerKey: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nonce := func(i int) string { return strings.Repeat("0", 28) + hex4(i) }
	base := t0.Unix()
	for i := range 100 {
		if err := s.Use("ops", nonce(i), base+int64(i/4)); err != nil {
			t.Fatalf("nonce %d: %v", i, err)
		}
	}
	if n := s.Len(); n > 8 {
		t.Fatalf("%d nonces kept, bound 8", n)
	}
	// What was forgotten is refused by its issue time.
	if err := s.Use("ops", nonce(0), base); !errors.Is(err, ErrReplayed) {
		t.Fatalf("a forgotten nonce: %v", err)
	}
	// The file stays bounded too (compaction).
	st, _ := os.Stat(filepath.Join(dir, NonceFile))
	if st.Size() > 4096 {
		t.Fatalf("the file holds %d bytes for 8 nonces", st.Size())
	}
	// Time moving on forgets nonces issued more than a window ago.
	for i := range 4 {
		if err := s.Use("ops", nonce(1000+i), base+3600); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Len(); n != 4 {
		t.Fatalf("%d nonces kept an hour later, want 4", n)
	}
	if err := s.Use("ops", nonce(2000), base+3600-120); !errors.Is(err, ErrReplayed) {
		t.Fatalf("an envelope issued two windows before the newest: %v", err)
	}
}

func hex4(i int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[i>>12&15], digits[i>>8&15], digits[i>>4&15], digits[i&15]})
}

func TestDamagedNonceStoreFailsSafe(t *testing.T) {
	for _, damage := range []struct {
		name string
		do   func(b []byte) []byte
	}{
		{"a flipped byte", func(b []byte) []byte { b[12] ^= 0x20; return b }},
		{"a cut-off line", func(b []byte) []byte { return b[:len(b)-5] }},
		{"garbage", func(b []byte) []byte { return append(b, "not a record\n"...) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			f := newFixture(t)
			early := f.signed("ops", "rover-1", start("m0")) // signed, never delivered
			p := f.signed("ops", "rover-1", start("m1"))
			if code := f.check(p); code != "" {
				t.Fatal(code)
			}
			f.store.Close()
			path := filepath.Join(f.dir, NonceFile)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, damage.do(b), 0o600)
			f.open()
			if f.store.Damaged() == "" {
				t.Fatal("the damage went unnoticed")
			}
			if _, err := os.Stat(path + ".corrupt"); err != nil {
				t.Errorf("the damaged file was not kept aside: %v", err)
			}
			for _, q := range [][]byte{p, early, f.signed("ops", "rover-1", start("m2"))} {
				if code := f.check(q); code != protocol.ErrReplayed {
					t.Errorf("an envelope issued before the damage was found: %q, want REPLAYED", code)
				}
			}
			// Once the window passes, fresh envelopes are taken again,
			// and the floor outlives another restart.
			f.advance(31 * time.Second)
			if code := f.check(f.signed("ops", "rover-1", start("m3"))); code != "" {
				t.Errorf("a fresh envelope after the skew: %q", code)
			}
			f.open()
			if f.store.Damaged() != "" {
				t.Errorf("the rewritten file is damaged: %s", f.store.Damaged())
			}
			if code := f.check(p); code != protocol.ErrReplayed {
				t.Errorf("after another restart: %q", code)
			}
		})
	}
}

// A write that fails leaves the command refused (not replayed), and the
// store works again when the disk does.
func TestNonceStoreWriteFailure(t *testing.T) {
	f := newFixture(t)
	f.store.mu.Lock()
	f.store.f.Close() // every write now fails
	f.store.mu.Unlock()
	if code := f.check(f.signed("ops", "rover-1", start("m1"))); code != protocol.ErrStorageFailed {
		t.Fatalf("a failed write: %q, want STORAGE_FAILED", code)
	}
	if code := f.check(f.signed("ops", "rover-1", start("m1"))); code != "" {
		t.Fatalf("the next envelope (the store rewrites its file): %q", code)
	}
	if os.Getuid() == 0 {
		return // root writes to read-only directories
	}
	os.Chmod(f.dir, 0o500)
	defer os.Chmod(f.dir, 0o700)
	f.store.mu.Lock()
	f.store.broken = true
	f.store.mu.Unlock()
	if code := f.check(f.signed("ops", "rover-1", start("m1"))); code != protocol.ErrStorageFailed {
		t.Fatalf("an unwritable directory: %q, want STORAGE_FAILED", code)
	}
}

// The arguments' hash is defined on bytes, so another implementation
// reproduces it: this is the example of PROTOCOL.md.
func TestArgsHashExample(t *testing.T) {
	payload := []byte(`{"id":"c1","op":"mission.start","mission_id":"patrol-7","replace":true}`)
	m, _ := Members(payload)
	args, doc, err := ArgsHash(protocol.OpMissionStart, m)
	if err != nil || doc != "" {
		t.Fatal(err, doc)
	}
	// printf 'replace:%s\nmission_id:%s\n' $(printf true | sha256sum | cut -c1-64) \
	//   $(printf '"patrol-7"' | sha256sum | cut -c1-64) | sha256sum
	const want = "742c24cb1f845c19efced8ad5a8bd9e31fcfb83c6179babbd53f8374390c4814"
	if args != want {
		t.Errorf("args = %s, want %s", args, want)
	}
}
