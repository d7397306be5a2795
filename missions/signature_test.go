package missions

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"testing"
)

func TestSignedMissions(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	id, parsed, err := ParsePublicKey("ops:" + base64.StdEncoding.EncodeToString(pub))
	if err != nil || id != "ops" {
		t.Fatalf("ParsePublicKey: %v %q", err, id)
	}
	ring := Keyring{id: parsed}
	tr := startRunner(t, "", func(c *Config) { c.Verify = ring.Verifier() })

	doc := mission(0, quick)
	d, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := SignDocument(priv, d)
	bad, _ := SignDocument(otherPriv, d)
	for _, tc := range []struct {
		sig, keyID, code string
	}{
		{"", "", ErrSignatureRequired},
		{"!!", "", ErrBadSignature},
		{bad, "", ErrBadSignature},
		{good, "nobody", ErrBadSignature},
	} {
		rep := tr.do(Command{Op: OpMissionLoad, Mission: doc, Signature: tc.sig, KeyID: tc.keyID})
		if rep.OK || rep.Error.Code != tc.code {
			t.Errorf("signature %q key %q: %+v, want %s", tc.sig, tc.keyID, rep.Error, tc.code)
		}
	}
	tr.mustOK(Command{Op: OpMissionLoad, Mission: doc, Signature: good, KeyID: "ops"})
	// The same document as YAML has the same canonical bytes.
	yml, _ := d.YAML()
	if rep := tr.Do(context.Background(), Command{ID: "yaml", Op: OpMissionLoad, Mission: jsonString(string(yml)), Signature: good}); !rep.OK {
		t.Fatalf("YAML with the JSON's signature: %+v", rep.Error)
	}
	// Safer commands need no signature.
	if rep := tr.do(Command{Op: OpEStop}); !rep.OK {
		t.Fatalf("estop refused: %+v", rep.Error)
	}
}

func jsonString(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}
