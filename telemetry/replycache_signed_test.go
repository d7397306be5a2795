package telemetry

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A signed command answered BUSY because every entry of the reply cache
// is still running is accepted when it is sent again as it was, once
// there is room: the BUSY reply says to send it again with the same id,
// and its envelope's nonce was not spent (the real verifier and nonce
// store). A command refused by its envelope meanwhile pushes no finished
// reply out of the cache.
func TestBusySignedCommandKeepsItsNonce(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	nonces, err := auth.OpenNonces(auth.NonceConfig{Dir: dir, Window: 11 * time.Minute, Skew: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nonces.Close() })
	v, err := auth.NewVerifier(auth.VerifierConfig{Robot: "r", Keys: map[string]ed25519.PublicKey{"ops": pub}, Nonces: nonces, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	bh := &countingBlocker{blockingHandler: blockingHandler{release: release}}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: bh, ReplyCache: 2, CommandTimeout: time.Millisecond,
		StaleAfter: -1, CommandRate: 1e9, CommandBurst: 1 << 30, Authorize: v.Check})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); d.doing.Wait() })

	signer := &auth.Signer{KeyID: "ops", Key: key}
	sign := func(id string) string {
		c := protocol.Command{ID: id, Op: protocol.OpMissionResume}
		if err := signer.Sign("r", &c); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// One finished entry, then two commands that stay running.
	d.cfg.Commands = &fakeHandler{}
	done := sign("done")
	if r := deliver(ctx, d, done); !r.OK {
		t.Fatalf("done: %+v", r.Error)
	}
	d.cfg.Commands = bh
	for _, id := range []string{"x", "y"} {
		if r := deliver(ctx, d, sign(id)); r.OK || r.Error.Code != protocol.ErrInternal {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	if _, ok := d.replies.get(cacheKey{sender: "ops", id: "done"}); ok {
		t.Fatal("y did not push the finished entry out")
	}

	z := sign("z")
	if r := deliver(ctx, d, z); r.OK || r.Error.Code != protocol.ErrBusy || !strings.Contains(r.Error.Message, "same id") {
		t.Fatalf("z with every entry running: %+v", r)
	}
	n := nonces.Len()
	if r := deliver(ctx, d, z); r.OK || r.Error.Code != protocol.ErrBusy {
		t.Fatalf("z again, still no room: %+v", r)
	}
	if nonces.Len() != n {
		t.Fatalf("a BUSY command spent its nonce: %d nonces, %d before", nonces.Len(), n)
	}

	close(release)
	for _, id := range []string{"x", "y"} {
		e, _ := d.replies.get(cacheKey{sender: "ops", id: id})
		<-e.done
	}
	// A forgery with no room to spare: refused by its envelope, it leaves
	// x's and y's replies where they are.
	forged := strings.Replace(sign("f"), `"sig":"`, `"sig":"A`, 1)
	if r := deliver(ctx, d, forged); r.OK || r.Error.Code == protocol.ErrBusy {
		t.Fatalf("a forged command: %+v", r)
	}
	if d.replies.len() != 2 {
		t.Fatalf("%d entries after a forgery, want x and y", d.replies.len())
	}
	d.cfg.CommandTimeout = mqtttest.WaitLong
	if r := deliver(ctx, d, z); !r.OK {
		t.Fatalf("z sent again as it was, once there is room: %+v", r.Error)
	}
	if calls := bh.calls.Load(); calls != 3 {
		t.Fatalf("%d calls, want x, y and z once", calls)
	}
}
