package broker_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/internal/ratelog"
	"github.com/botd-project/botd/telemetry/broker"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A subscriber that reads but never acknowledges fills its in-flight
// store (8,192 messages), and mochi warns once per message it then
// cannot keep: the broker's log holds a few such lines, not thousands.
func TestBrokerLogFloodIsCounted(t *testing.T) {
	var out lockedBuffer
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(&out, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := rawSubscriber(t, b.Addr(), "never-acks")
	go func() { _, _ = io.Copy(io.Discard, c) }() // reads, never acknowledges
	mqtttest.Eventually(t, "the subscriber connected", func() bool { return len(b.Clients()) == 1 })
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	const n = 10000
	var last paho.Token
	for i := range n {
		last = pub.Publish(fmt.Sprintf("t/%d", i), 1, false, "x")
	}
	if !last.WaitTimeout(mqtttest.WaitLong) {
		t.Fatal("publish timed out")
	}
	mqtttest.Eventually(t, "the quota warnings counted", func() bool { return strings.Contains(out.String(), "suppressed=") })
	if n := strings.Count(out.String(), "client store quota reached"); n > ratelog.DefaultBurst+1 {
		t.Errorf("%d quota lines in the log, want at most %d and a count", n, ratelog.DefaultBurst+1)
	}
}
