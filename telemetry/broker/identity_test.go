package broker_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
)

// connect connects a paho client and returns it with the connect error.
func connect(t *testing.T, url, id, user, pass string, onLost func()) (paho.Client, error) {
	t.Helper()
	o := paho.NewClientOptions().AddBroker(url).SetClientID(id).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second).SetProtocolVersion(4)
	if user != "" {
		o.SetUsername(user).SetPassword(pass)
	}
	if onLost != nil {
		o.SetConnectionLostHandler(func(paho.Client, error) { onLost() })
	}
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(mqtttest.WaitLong) {
		t.Fatalf("%s: connect timed out", id)
	}
	if tok.Error() == nil {
		t.Cleanup(func() { c.Disconnect(0) })
	}
	return c, tok.Error()
}

// Clients without the daemon's secret cannot take its client ids: twenty
// tries with the e-stop connection's id leave that connection up, and
// every e-stop published meanwhile reaches it. With a credentials file the
// daemon's connections get in with the secret alone, and a known user
// asking for a reserved id is refused as well.
func TestReservedClientIDs(t *testing.T) {
	creds := filepath.Join(t.TempDir(), "users")
	_ = os.WriteFile(creds, []byte("ground:pw\n"), 0o600)
	for _, tc := range []struct {
		name        string
		credentials string
		user, pass  string // an outsider's credentials
	}{
		{name: "anonymous loopback"},
		{name: "credentials", credentials: creds, user: "ground", pass: "pw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := broker.NewSecret()
			b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", Credentials: tc.credentials,
				Identity: &broker.Identity{IDs: []string{"botd-r1"}, Secret: secret}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var lost atomic.Int64
			estop, err := connect(t, b.URL(), "botd-r1-estop", "botd-r1", secret, func() { lost.Add(1) })
			if err != nil {
				t.Fatalf("the daemon's e-stop connection: %v", err)
			}
			var got atomic.Int64
			if tok := estop.Subscribe("r1/estop", 1, func(paho.Client, paho.Message) { got.Add(1) }); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
				t.Fatalf("subscribe: %v", tok.Error())
			}
			if _, err := connect(t, b.URL(), "botd-r1", "anyone", secret, nil); err != nil {
				t.Fatalf("the daemon's main connection: %v", err)
			}
			pub, err := connect(t, b.URL(), "ground-1", tc.user, tc.pass, nil)
			if err != nil {
				t.Fatalf("an ordinary client: %v", err)
			}
			for i := range 20 {
				for _, try := range [][3]string{
					{"botd-r1-estop", tc.user, tc.pass},
					{"botd-r1-estop", "botd-r1", secret + "x"},
					{"botd-r1", tc.user, tc.pass},
				} {
					if _, err := connect(t, b.URL(), try[0], try[1], try[2], nil); err == nil {
						t.Fatalf("try %d: %s without the secret got in", i, try[0])
					}
				}
				if tok := pub.Publish("r1/estop", 1, false, "stop"); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
					t.Fatalf("publish: %v", tok.Error())
				}
			}
			mqtttest.Eventually(t, "20 e-stops at the e-stop connection", func() bool { return got.Load() == 20 })
			if lost.Load() != 0 || !estop.IsConnectionOpen() {
				t.Fatalf("the e-stop connection was lost %d times", lost.Load())
			}
			if n := b.RefusedIDs(); n != 60 {
				t.Errorf("refused %d, want 60", n)
			}
			// Only the daemon's id and its "-" extensions are reserved.
			if _, err := connect(t, b.URL(), "botd-r10", tc.user, tc.pass, nil); err != nil {
				t.Errorf("botd-r10 refused: %v", err)
			}
		})
	}
}
