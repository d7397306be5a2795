package missions

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Missions can be signed with Ed25519 over their canonical bytes
// (Canonical: compact JSON with sorted keys), so the signature survives
// re-encoding and a YAML or XML original.

// SignDocument returns the base64 signature of d's canonical bytes.
func SignDocument(key ed25519.PrivateKey, d *Document) (string, error) {
	c := Canonical(d)
	if c == nil {
		return "", errors.New("the document has no canonical form (a NaN or infinite number)")
	}
	return base64.StdEncoding.EncodeToString(ed25519.Sign(key, c)), nil
}

// Keyring holds the public keys that may sign missions, by key id.
type Keyring map[string]ed25519.PublicKey

// ParsePublicKey reads "ID:BASE64" (or just BASE64, with id "default").
func ParsePublicKey(s string) (string, ed25519.PublicKey, error) {
	id, b64 := "default", strings.TrimSpace(s)
	if i := strings.LastIndexByte(b64, ':'); i >= 0 {
		id, b64 = b64[:i], b64[i+1:]
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return "", nil, fmt.Errorf("public key %q: want %d bytes of base64", id, ed25519.PublicKeySize)
	}
	return id, ed25519.PublicKey(raw), nil
}

// LoadPrivateKey reads a base64 Ed25519 private key (64 bytes) or seed
// (32 bytes) from a file.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not base64: %w", path, err)
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		return ed25519.PrivateKey(raw), nil
	}
	return nil, fmt.Errorf("%s: want a %d-byte seed or a %d-byte private key, got %d bytes", path, ed25519.SeedSize, ed25519.PrivateKeySize, len(raw))
}

// Verifier returns a Config.Verify function that requires a valid
// signature on every mission.load.
func (k Keyring) Verifier() func(c Command, doc []byte) *ReplyError {
	return func(c Command, doc []byte) *ReplyError {
		if c.Signature == "" {
			return &ReplyError{Code: ErrSignatureRequired, Message: "this robot accepts only signed missions (botctl sign)", Path: "/signature"}
		}
		sig, err := base64.StdEncoding.DecodeString(c.Signature)
		if err != nil || len(sig) != ed25519.SignatureSize {
			return &ReplyError{Code: ErrBadSignature, Message: "the signature is not a base64 Ed25519 signature", Path: "/signature"}
		}
		d, err := Decode(doc)
		if err != nil {
			return nil // let validation report the document's problems
		}
		canon := Canonical(d)
		if c.KeyID != "" {
			pub, found := k[c.KeyID]
			if !found {
				return &ReplyError{Code: ErrBadSignature, Message: fmt.Sprintf("unknown key id %q", c.KeyID), Path: "/key_id"}
			}
			if !ed25519.Verify(pub, canon, sig) {
				return &ReplyError{Code: ErrBadSignature, Message: fmt.Sprintf("the signature does not match key %q", c.KeyID), Path: "/signature"}
			}
			return nil
		}
		for _, pub := range k {
			if ed25519.Verify(pub, canon, sig) {
				return nil
			}
		}
		return &ReplyError{Code: ErrBadSignature, Message: "the signature matches none of the configured keys", Path: "/signature"}
	}
}
