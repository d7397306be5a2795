package auth

import (
	"crypto/ed25519"
	"encoding/json"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// FuzzEnvelope feeds commands with arbitrary envelopes, signatures and
// arguments to the verifier: it never panics, never takes a forgery, and
// refuses with one of its codes.
func FuzzEnvelope(f *testing.F) {
	fx := newFixture(f)
	for _, c := range []protocol.Command{
		start("m1"),
		{ID: "l", Op: protocol.OpMissionLoad, Mission: json.RawMessage(`"format: botd/mission@1\n"`), Start: true},
		{ID: "b", Op: protocol.OpBlackboardSet, Key: "k", Value: []any{1.0, "x"}},
	} {
		f.Add(fx.signed("ops", "rover-*", c))
	}
	f.Add([]byte(`{"id":"x","op":"mission.start","auth":{"env":"{\"v\":1}","sig":""}}`))
	f.Add([]byte(`{"id":"x","op":"estop.reset","auth":{"env":"","sig":"AAAA"}}`))
	dir := f.TempDir()
	s, err := OpenNonces(NonceConfig{Dir: dir, Window: time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	known := map[string]bool{protocol.ErrSignatureRequired: true, protocol.ErrBadSignature: true, protocol.ErrReplayed: true,
		protocol.ErrExpired: true, protocol.ErrWrongRobot: true, protocol.ErrInvalidJSON: true, protocol.ErrValidation: true}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var c protocol.Command
		if json.Unmarshal(payload, &c) != nil {
			return
		}
		// Keys nobody holds: whatever the input, nothing passes.
		v, _ := NewVerifier(VerifierConfig{Robot: "rover-1", Keys: map[string]ed25519.PublicKey{"ops": fuzzKey}, Nonces: s,
			Now: func() time.Time { return t0 }, Enabled: true})
		r := v.Check(c, payload)
		if !Signed[c.Op] {
			if r != nil {
				t.Fatalf("%s refused: %v", c.Op, r)
			}
			return
		}
		if r == nil {
			t.Fatalf("accepted without a valid signature: %s", payload)
		}
		if !known[r.Code] {
			t.Fatalf("unexpected code %s: %s", r.Code, r.Message)
		}
		if c.Auth != nil {
			ParseEnvelope(c.Auth.Env)
		}
	})
}

// fuzzKey is a public key whose private half nobody has (all zero bytes
// but one: a valid point is not needed for Verify to refuse).
var fuzzKey = func() ed25519.PublicKey {
	k := make(ed25519.PublicKey, ed25519.PublicKeySize)
	k[0] = 1
	return k
}()
