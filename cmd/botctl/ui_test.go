package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// botctl ui refuses, before it connects to anything, to serve the
// dashboard where other machines reach it without TLS, with TLS files
// half given, or with a token file that is missing, too short, or
// readable by other users.
func TestUIRefusals(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	_ = os.WriteFile(short, []byte("abc\n"), 0o600)
	open := filepath.Join(dir, "open")
	_ = os.WriteFile(open, []byte("0123456789abcdef0123\n"), 0o644)
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
		{[]string{"ui", "--token-file", open}, "readable by other users"},
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

// With --token-file the token is the file's, and it is not printed.
func TestUITokenFile(t *testing.T) {
	const token = "fleet-dashboard-token-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := freeAddr(t)
	out, errb := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "--listen", addr, "--token-file", file, "--broker", "tcp://127.0.0.1:1"}, strings.NewReader(""), out, errb)
	}()
	login := func(tok string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/login", strings.NewReader(`{"token":"`+tok+`"}`))
		req.Header.Set("X-Botctl", "1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	deadline := time.Now().Add(20 * time.Second)
	for login(token) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("no login with the file's token; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := login("0123456789abcdef0123456789abcdef"); code != http.StatusUnauthorized {
		t.Errorf("another token: %d", code)
	}
	if strings.Contains(out.String(), token) || !strings.Contains(out.String(), "/login") {
		t.Errorf("stdout %q: want the login URL without the token", out.String())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("ui did not stop")
	}
}

// botctl ui on a port that is taken says how to pick another one.
func TestUIPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	r := botctl(t, "ui", "--listen", addr, "--broker", "tcp://127.0.0.1:1", "--timeout", "100ms")
	want := fmt.Sprintf("%s is taken (another botctl ui?): serve on another port with --listen 127.0.0.1:%d, or --listen 127.0.0.1:0", addr, p+1)
	if r.code != exitRefused || !strings.Contains(r.stderr, want) {
		t.Errorf("%v\nwant exit %d and %q", r, exitRefused, want)
	}
}
