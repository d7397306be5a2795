package broker_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/transport"
)

func TestBrokerCredentials(t *testing.T) {
	if _, err := broker.Start(context.Background(), broker.Config{Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("broker off loopback without credentials")
	}
	creds := filepath.Join(t.TempDir(), "users")
	_ = os.WriteFile(creds, []byte("# users\nrover-1:s3cret*\n"), 0o600)
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	try := func(user, pass string) error {
		o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID("c-" + user + pass).SetUsername(user).SetPassword(pass).SetAutoReconnect(false)
		c := paho.NewClient(o)
		tok := c.Connect()
		tok.WaitTimeout(5 * time.Second)
		if tok.Error() == nil {
			c.Disconnect(10)
		}
		return tok.Error()
	}
	if err := try("rover-1", "s3cret*"); err != nil {
		t.Errorf("right password refused: %v", err)
	}
	for _, bad := range [][2]string{{"rover-1", "s3cret"}, {"rover-1", "s3cret*x"}, {"other", "s3cret*"}, {"", ""}} {
		if err := try(bad[0], bad[1]); err == nil {
			t.Errorf("%q/%q accepted", bad[0], bad[1])
		}
	}

	// The client takes its password from a file or the environment.
	pw := filepath.Join(t.TempDir(), "pw")
	_ = os.WriteFile(pw, []byte("s3cret*\n"), 0o600)
	o := mqtttest.Options(b.URL())
	o.ClientID, o.Username, o.PasswordFile = "file-client", "rover-1", pw
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "connected with the password file", c.IsUp)
	_ = c.Close()
	t.Setenv("BOTD_TEST_PW", "s3cret*")
	o.ClientID, o.PasswordFile, o.PasswordEnv = "env-client", "", "BOTD_TEST_PW"
	if c, err = transport.Dial(o); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "connected with the password variable", c.IsUp)
	_ = c.Close()
	o.PasswordEnv = "BOTD_TEST_UNSET"
	if _, err := transport.Dial(o); err == nil {
		t.Error("unset password variable accepted")
	}
}

func TestBrokerCloseOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := broker.Start(ctx, broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	mqtttest.Eventually(t, "listener closed", func() bool {
		c, err := net.DialTimeout("tcp", b.Addr(), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	_ = b.Close()
}

func TestBrokerCloseWithSilentConnection(t *testing.T) {
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	silent, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	stop := make(chan struct{})
	dialer := make(chan struct{})
	var dialed atomic.Int64
	go func() { // keeps connecting while the broker closes
		defer close(dialer)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if c, err := net.Dial("tcp", b.Addr()); err == nil {
				dialed.Add(1)
				c.Close()
			}
		}
	}()
	mqtttest.Eventually(t, "the dialer connecting", func() bool { return dialed.Load() > 0 })
	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(broker.ConnectTimeout / 2):
		t.Error("Close waited for a connection that never sent CONNECT")
	}
	close(stop)
	<-dialer
	<-closed
}
