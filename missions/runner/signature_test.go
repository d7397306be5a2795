package runner

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

func TestSignedMissions(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	id, parsed, err := missions.ParsePublicKey("ops:" + base64.StdEncoding.EncodeToString(pub))
	if err != nil || id != "ops" {
		t.Fatalf("ParsePublicKey: %v %q", err, id)
	}
	ring := missions.Keyring{id: parsed}
	tr := startRunner(t, "", func(c *Config) { c.Verify = SignedOnly(ring) })

	doc := mission(0, quick)
	d, err := missions.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := missions.SignDocument(priv, d)
	bad, _ := missions.SignDocument(otherPriv, d)
	for _, tc := range []struct {
		sig, keyID, code string
	}{
		{"", "", protocol.ErrSignatureRequired},
		{"!!", "", protocol.ErrBadSignature},
		{bad, "", protocol.ErrBadSignature},
		{good, "nobody", protocol.ErrBadSignature},
	} {
		rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Signature: tc.sig, KeyID: tc.keyID})
		if rep.OK || rep.Error.Code != tc.code {
			t.Errorf("signature %q key %q: %+v, want %s", tc.sig, tc.keyID, rep.Error, tc.code)
		}
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Signature: good, KeyID: "ops"})
	// The same document as YAML has the same canonical bytes.
	yml, _ := d.YAML()
	if rep := tr.Do(context.Background(), protocol.Command{ID: "yaml", Op: protocol.OpMissionLoad, Mission: jsonString(string(yml)), Signature: good}); !rep.OK {
		t.Fatalf("YAML with the JSON's signature: %+v", rep.Error)
	}
	// Safer commands need no signature.
	if rep := tr.do(protocol.Command{Op: protocol.OpEStop}); !rep.OK {
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
