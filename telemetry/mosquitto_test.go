package telemetry

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
)

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
	mqtttest.Eventually(t, "mosquitto listening", func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	h := startDaemon(t, url, nil)
	h.waitUp(t)
	g := newTestGround(t, url, func(c *ground.Config) { c.Presence = true })
	roundTrip(t, g, h)
	mqtttest.Eventually(t, "station online over mosquitto", func() bool { l, _ := h.links.last(); return l.GCSOnline })
	tp := h.d.Topics()
	late := mqtttest.NewRecorder(t, url, tp.Connection(), tp.State(), tp.Tree(), tp.Factsheet())
	for _, topic := range []string{tp.Connection(), tp.State(), tp.Tree(), tp.Factsheet()} {
		mqtttest.Eventually(t, "retained "+topic, hasTopic(late, topic, func(m mqtttest.Msg) bool { return m.Retained }))
	}
	sub := mqtttest.NewRecorder(t, url, tp.Events())
	emit(h.d.EventSink(), 1, 5)
	mqtttest.Eventually(t, "events", func() bool { f, _ := eventsIn(t, sub.On(tp.Events())); return len(f) == 5 })
	firsts, _ := eventsIn(t, sub.On(tp.Events()))
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
