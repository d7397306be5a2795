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
// re-encoding and a YAML or imported original.

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

// VerifyDocument checks sig, a base64 Ed25519 signature of the canonical
// form of the document in doc, against the key keyID (or against every
// key when keyID is ""). On failure it returns the command field at fault
// ("/signature" or "/key_id") with the reason. A document that does not
// decode is not this function's to judge: it returns nil, and validation
// reports the document's problems.
func (k Keyring) VerifyDocument(keyID, sig string, doc []byte) (field string, err error) {
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(raw) != ed25519.SignatureSize {
		return "/signature", errors.New("the signature is not a base64 Ed25519 signature")
	}
	d, err := Decode(doc)
	if err != nil {
		return "", nil
	}
	canon := Canonical(d)
	if keyID != "" {
		pub, found := k[keyID]
		if !found {
			return "/key_id", fmt.Errorf("unknown key id %q", keyID)
		}
		if !ed25519.Verify(pub, canon, raw) {
			return "/signature", fmt.Errorf("the signature does not match key %q", keyID)
		}
		return "", nil
	}
	for _, pub := range k {
		if ed25519.Verify(pub, canon, raw) {
			return "", nil
		}
	}
	return "/signature", errors.New("the signature matches none of the configured keys")
}
