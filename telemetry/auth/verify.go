package auth

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"path"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Defaults of VerifierConfig.
const (
	DefaultMaxValidity = 10 * time.Minute
	DefaultSkew        = 30 * time.Second
)

// VerifierConfig is what a robot trusts.
type VerifierConfig struct {
	Robot string
	// Keys are the trusted public keys by key id.
	Keys map[string]ed25519.PublicKey
	// Revoked lists key ids or base64 public keys that sign nothing any
	// more, even when Keys still holds them.
	Revoked []string
	// MaxValidity refuses an envelope whose expiry is further than this
	// from its issue time [DefaultMaxValidity].
	MaxValidity time.Duration
	// Skew is how far the signer's clock may be off the robot's
	// [DefaultSkew].
	Skew    time.Duration
	Nonces  *NonceStore
	Now     func() time.Time // [time.Now]
	Enabled bool             // false: every command passes
}

// Verifier checks commands' envelopes on the robot.
type Verifier struct {
	cfg     VerifierConfig
	revoked map[string]bool
}

// NewVerifier returns a verifier; with cfg.Enabled it needs a nonce store.
func NewVerifier(cfg VerifierConfig) (*Verifier, error) {
	if cfg.MaxValidity <= 0 {
		cfg.MaxValidity = DefaultMaxValidity
	}
	if cfg.Skew <= 0 {
		cfg.Skew = DefaultSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Enabled && cfg.Nonces == nil {
		return nil, fmt.Errorf("signed commands need a nonce store")
	}
	v := &Verifier{cfg: cfg, revoked: map[string]bool{}}
	for _, r := range cfg.Revoked {
		v.revoked[r] = true
	}
	return v, nil
}

func refusal(code, path, format string, args ...any) *protocol.ReplyError {
	return &protocol.ReplyError{Code: code, Message: fmt.Sprintf(format, args...), Path: path}
}

// Check authorises command c, whose JSON text is payload. It returns nil
// for an op that needs no envelope, or when signed commands are off. The
// cheap checks come first (presence, sizes, form, key, robot, times),
// then the signature, then the hashes of the arguments and document (a
// pass over the payload), then the nonce, which is on disk when Check
// returns nil: the command may take effect.
func (v *Verifier) Check(c protocol.Command, payload []byte) *protocol.ReplyError {
	if v == nil || !v.cfg.Enabled || !Signed[c.Op] {
		return nil
	}
	a := c.Auth
	if a == nil || (a.Env == "" && a.Sig == "") {
		return refusal(protocol.ErrSignatureRequired, "/auth", "this robot accepts %s only with a signed envelope (botctl --key)", c.Op)
	}
	if len(a.Sig) != base64.StdEncoding.EncodedLen(ed25519.SignatureSize) {
		return refusal(protocol.ErrBadSignature, "/auth/sig", "sig: want a base64 Ed25519 signature (%d characters)", base64.StdEncoding.EncodedLen(ed25519.SignatureSize))
	}
	e, err := ParseEnvelope(a.Env)
	if err != nil {
		return refusal(protocol.ErrBadSignature, "/auth/env", "%v", err)
	}
	pub, known := v.cfg.Keys[e.KeyID]
	if !known {
		return refusal(protocol.ErrBadSignature, "/auth/env", "unknown key id %q", e.KeyID)
	}
	if v.revoked[e.KeyID] || v.revoked[base64.StdEncoding.EncodeToString(pub)] {
		return refusal(protocol.ErrBadSignature, "/auth/env", "key %q is revoked", e.KeyID)
	}
	if e.Op != c.Op {
		return refusal(protocol.ErrBadSignature, "/op", "the envelope is for %s, not %s", e.Op, c.Op)
	}
	if ok, _ := path.Match(e.Robot, v.cfg.Robot); !ok {
		return refusal(protocol.ErrWrongRobot, "/auth/env", "the envelope is for robot %q, this is %q", e.Robot, v.cfg.Robot)
	}
	if r := v.checkTimes(e); r != nil {
		return r
	}
	// The signature covers the envelope only, so it is checked before
	// the arguments are hashed: a forgery costs one verification, never a
	// pass over a large document.
	if !verifySig(pub, a.Env, a.Sig) {
		return refusal(protocol.ErrBadSignature, "/auth/sig", "the signature does not match key %q", e.KeyID)
	}
	members, err := Members(payload)
	if err != nil {
		return refusal(protocol.ErrInvalidJSON, "", "%v", err)
	}
	args, doc, err := ArgsHash(c.Op, members)
	if err != nil {
		return refusal(protocol.ErrValidation, "/mission", "%v", err)
	}
	if args != e.Args {
		return refusal(protocol.ErrBadSignature, "/auth/env", "the command's arguments are not the ones signed")
	}
	if doc != e.Doc {
		return refusal(protocol.ErrBadSignature, "/auth/env", "the command's document is not the one signed")
	}
	switch err := v.cfg.Nonces.Use(e.KeyID, e.Nonce, e.IssuedAt); {
	case err == nil:
		return nil
	case isReplay(err):
		return refusal(protocol.ErrReplayed, "/auth/env", "%v", err)
	default:
		return refusal(protocol.ErrStorageFailed, "", "the nonce cannot be stored, so a replay could not be recognised: %v", err)
	}
}

func (v *Verifier) checkTimes(e Envelope) *protocol.ReplyError {
	now := v.cfg.Now()
	iat, exp := time.Unix(e.IssuedAt, 0), time.Unix(e.Expires, 0)
	switch {
	case !exp.After(iat):
		return refusal(protocol.ErrExpired, "/auth/env", "the envelope expires (%d) before it is issued (%d)", e.Expires, e.IssuedAt)
	case exp.Sub(iat) > v.cfg.MaxValidity:
		return refusal(protocol.ErrExpired, "/auth/env", "the envelope is valid for %s, more than this robot's max_validity %s", exp.Sub(iat), v.cfg.MaxValidity)
	case iat.Sub(now) > v.cfg.Skew:
		return refusal(protocol.ErrExpired, "/auth/env", "the envelope is issued at %s, more than %s ahead of the robot's clock (%s)",
			iat.UTC().Format(time.RFC3339), v.cfg.Skew, now.UTC().Format(time.RFC3339))
	case now.Sub(exp) > v.cfg.Skew:
		return refusal(protocol.ErrExpired, "/auth/env", "the envelope expired at %s (robot clock %s)",
			exp.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}
