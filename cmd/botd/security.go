package main

import (
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"time"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/protocol"
)

// commandAuth builds the verifier of signed command envelopes
// (security.require_signed_missions) and opens its nonce store in the
// state directory. Without the flag it returns nil: every command passes.
func commandAuth(cfg *Config, stateDir string, log *slog.Logger, now func() time.Time) (*auth.Verifier, *auth.NonceStore, error) {
	sec := cfg.Security
	if !sec.RequireSignedMissions {
		return nil, nil, nil
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range sec.PublicKeys {
		id, pub, err := missions.ParsePublicKey(k)
		if err != nil {
			return nil, nil, err
		}
		keys[id] = pub
	}
	maxValidity, skew := sec.maxValidity(), sec.clockSkew()
	nonces, err := auth.OpenNonces(auth.NonceConfig{Dir: stateDir, Window: maxValidity + 2*skew, Skew: skew,
		Logger: log.With("part", "auth"), Now: now})
	if err != nil {
		return nil, nil, fmt.Errorf("the nonce store of signed commands: %w", err)
	}
	v, err := auth.NewVerifier(auth.VerifierConfig{Robot: cfg.Robot, Keys: keys, Revoked: sec.RevokedKeys,
		MaxValidity: maxValidity, Skew: skew, Nonces: nonces, Now: now, Enabled: true})
	if err != nil {
		nonces.Close()
		return nil, nil, err
	}
	return v, nonces, nil
}

// authorizer is what telemetry calls for each command: the verifier's
// check, with a log line for each refusal of an envelope (the command
// rate limit bounds them).
func authorizer(v *auth.Verifier, log *slog.Logger) func(protocol.Command, []byte) *protocol.ReplyError {
	if v == nil {
		return nil
	}
	return func(c protocol.Command, payload []byte) *protocol.ReplyError {
		r := v.Check(c, payload)
		if r != nil {
			log.Warn("command refused: signed envelope", "op", c.Op, "id", c.ID, "code", r.Code, "reason", r.Message)
		}
		return r
	}
}

// noncesDamagedEvent reports a nonce store found damaged at start.
func noncesDamagedEvent(reason string) protocol.Event {
	return protocol.Event{Kind: "security.nonces_damaged", Level: "error",
		Message: "the store of signed-command nonces was damaged: " + reason}
}

func (s SecurityConfig) maxValidity() time.Duration {
	if s.MaxValidity > 0 {
		return s.MaxValidity
	}
	return auth.DefaultMaxValidity
}

func (s SecurityConfig) clockSkew() time.Duration {
	if s.ClockSkew > 0 {
		return s.ClockSkew
	}
	return auth.DefaultSkew
}
