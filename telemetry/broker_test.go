package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

func TestBrokerCredentials(t *testing.T) {
	if _, err := StartBroker(context.Background(), BrokerConfig{Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("broker off loopback without credentials")
	}
	creds := filepath.Join(t.TempDir(), "users")
	_ = os.WriteFile(creds, []byte("# users\nrover-1:s3cret*\n"), 0o600)
	b, err := StartBroker(context.Background(), BrokerConfig{Addr: "127.0.0.1:0", Credentials: creds})
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
	o := testConn(b.URL())
	o.ClientID, o.Username, o.PasswordFile = "file-client", "rover-1", pw
	c, err := Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "connected with the password file", c.IsUp)
	_ = c.Close()
	t.Setenv("BOTD_TEST_PW", "s3cret*")
	o.ClientID, o.PasswordFile, o.PasswordEnv = "env-client", "", "BOTD_TEST_PW"
	if c, err = Dial(o); err != nil {
		t.Fatal(err)
	}
	eventually(t, "connected with the password variable", c.IsUp)
	_ = c.Close()
	o.PasswordEnv = "BOTD_TEST_UNSET"
	if _, err := Dial(o); err == nil {
		t.Error("unset password variable accepted")
	}
}

func TestBrokerCloseOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, err := StartBroker(ctx, BrokerConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	eventually(t, "listener closed", func() bool {
		c, err := net.DialTimeout("tcp", b.Addr(), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	_ = b.Close()
}

// The same round trip against Debian's mosquitto: the protocol assumes
// nothing of the embedded broker.
func TestMosquittoRoundTrip(t *testing.T) {
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		t.Skip("mosquitto not installed (apt-get install -y mosquitto); CI installs it")
	}
	port := freePort(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "mosquitto.conf")
	_ = os.WriteFile(conf, fmt.Appendf(nil, "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n", port), 0o600)
	cmd := exec.Command(bin, "-c", conf)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("mosquitto:\n%s", out.String())
		}
	})
	url := fmt.Sprintf("tcp://127.0.0.1:%d", port)
	eventually(t, "mosquitto listening", func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	h := startDaemon(t, url, nil)
	h.waitUp(t)
	g := newTestGround(t, url, func(c *GroundConfig) { c.Presence = true })
	roundTrip(t, g, h)
	eventually(t, "station online over mosquitto", func() bool { l, _ := h.links.last(); return l.GCSOnline })

	tp := h.d.Topics()
	late := newRecorder(t, url, tp.Connection(), tp.State(), tp.Tree(), tp.Factsheet())
	for _, topic := range []string{tp.Connection(), tp.State(), tp.Tree(), tp.Factsheet()} {
		eventually(t, "retained "+topic, hasTopic(late, topic, func(m rmsg) bool { return m.retained }))
	}
	sub := newRecorder(t, url, tp.Events())
	emit(h.d.EventSink(), 1, 5)
	eventually(t, "events", func() bool { f, _ := eventsIn(t, sub.on(tp.Events())); return len(f) == 5 })
	firsts, _ := eventsIn(t, sub.on(tp.Events()))
	checkAllInOrder(t, firsts, 5)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A connection that never sends CONNECT does not hold up Close, nor does
// one accepted while the broker closes.
func TestBrokerCloseWithSilentConnection(t *testing.T) {
	b, err := StartBroker(context.Background(), BrokerConfig{Addr: "127.0.0.1:0"})
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
	go func() { // keeps connecting while the broker closes
		defer close(dialer)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if c, err := net.Dial("tcp", b.Addr()); err == nil {
				c.Close()
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(connectTimeout / 2):
		t.Error("Close waited for a connection that never sent CONNECT")
	}
	close(stop)
	<-dialer
	<-closed
}
