package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// botctl ui refuses, before it connects to anything, to serve the
// dashboard where other machines reach it without TLS, with TLS files
// half given, or with a token file that is missing or too short.
func TestUIRefusals(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	_ = os.WriteFile(short, []byte("abc\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ui", "--listen", "0.0.0.0:0"}, "reachable from other machines"},
		{[]string{"ui", "--listen", ":8080"}, "reachable from other machines"},
		{[]string{"ui", "--listen", "192.0.2.10:8080"}, "reachable from other machines"},
		{[]string{"ui", "--https-cert", "c.pem"}, "--https-cert and --https-key go together"},
		{[]string{"ui", "--token-file", filepath.Join(dir, "none")}, "--token-file"},
		{[]string{"ui", "--token-file", short}, "at least 16 characters"},
	} {
		r := botctl(t, append(c.args, "--broker", "tcp://127.0.0.1:1")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("botctl %q: %v\nwant exit %d and %q", c.args, r, exitUsage, c.want)
		}
	}
}

// Every botctl process has its own ground-station id (its MQTT client id
// and presence), botd-gcs-<name>-<random>, named after --gcs, else the
// broker user.
func TestGCSIDPerProcess(t *testing.T) {
	a, b := &cli{username: "alice@ops"}, &cli{username: "alice@ops"}
	ida, idb := a.gcsID(), b.gcsID()
	if ida == idb {
		t.Fatalf("two processes share the id %s", ida)
	}
	if ida != a.gcsID() {
		t.Error("the id changed within a process")
	}
	for _, id := range []string{ida, idb} {
		if !strings.HasPrefix(id, "botd-gcs-alice-ops-") || len(id) != len("botd-gcs-alice-ops-")+16 {
			t.Errorf("id %q: want botd-gcs-alice-ops-<16 hex>", id)
		}
	}
	if id := (&cli{gcs: "field", username: "alice"}).gcsID(); !strings.HasPrefix(id, "botd-gcs-field-") {
		t.Errorf("--gcs field: %q", id)
	}
	c := &cli{username: "bob", broker: "tcp://127.0.0.1:1", timeout: 1}
	if g := c.groundConfig(true); g.GCS != g.Conn.ClientID || g.GCS != c.gcsID() {
		t.Errorf("presence %q and client id %q differ", g.GCS, g.Conn.ClientID)
	}
}
