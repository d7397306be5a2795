package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The signing key comes from --key or $BOTCTL_SIGNING_KEY; its id from
// --key-id, else KEY.pub, else the file name. Only the six ops that can
// move the robot are signed.
func TestSigningKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "keys", "laptop.key")
	if r := botctl(t, "keygen", "--out", key, "--id", "ops"); r.code != 0 || !strings.Contains(r.stdout, `"ops:`) {
		t.Fatalf("keygen --out into a new directory: %v", r)
	}
	if r := botctl(t, "keygen"); r.code != exitUsage {
		t.Errorf("keygen without a file: %v", r)
	}
	newC := func() *cli { return newCLI(context.Background(), strings.NewReader(""), io.Discard, io.Discard) }

	c := newC()
	c.signKey = key
	if err := c.loadSigner(); err != nil || c.signer == nil || c.signer.KeyID != "ops" {
		t.Fatalf("--key: %v, signer %+v", err, c.signer)
	}
	c = newC()
	c.signKey, c.keyID = key, "other"
	if err := c.loadSigner(); err != nil || c.signer.KeyID != "other" {
		t.Fatalf("--key-id: %v", err)
	}
	t.Setenv(signingEnv, key)
	c = newC()
	if err := c.loadSigner(); err != nil || c.signer == nil || c.signer.KeyID != "ops" {
		t.Fatalf("$%s: %v", signingEnv, err)
	}
	for op, want := range map[string]bool{
		protocol.OpMissionLoad: true, protocol.OpMissionStart: true, protocol.OpMissionResume: true,
		protocol.OpMissionInject: true, protocol.OpBlackboardSet: true, protocol.OpEStopReset: true,
		protocol.OpMissionPause: false, protocol.OpMissionAbort: false, protocol.OpEStop: false, protocol.OpStateRequest: false,
	} {
		cmd := protocol.Command{ID: "x", Op: op}
		if err := c.signCommand("rover-1", &cmd); err != nil {
			t.Fatal(err)
		}
		if (cmd.Auth != nil) != want {
			t.Errorf("%s signed: %v, want %v", op, cmd.Auth != nil, want)
		}
	}
	t.Setenv(signingEnv, "")
	c = newC()
	if err := c.loadSigner(); err != nil || c.signer != nil {
		t.Fatalf("no key: %v, signer %+v", err, c.signer)
	}
	c.signKey = filepath.Join(dir, "missing.key")
	if err := c.loadSigner(); err == nil {
		t.Fatal("a missing key file was taken")
	}
}
