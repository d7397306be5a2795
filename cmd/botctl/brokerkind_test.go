package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// --broker-kind rabbitmq makes botctl's subscriptions QoS 0 and its
// reconnects wait, as the daemon's on RabbitMQ (docs/FLEET.md: a QoS 1
// subscription strands the client while its node is down); other kinds
// change nothing, and an unknown one is a usage error.
func TestBrokerKind(t *testing.T) {
	for _, kind := range []string{"", "mosquitto", "aedes", "emqx", "vernemq", "rabbitmq"} {
		c := newCLI(context.Background(), strings.NewReader(""), io.Discard, io.Discard)
		c.brokerKind = kind
		o := c.groundConfig(false).Conn
		rabbit := kind == "rabbitmq"
		if o.SubscribeAtMostOnce != rabbit || (o.ReconnectDelay == rabbitmqReconnectDelay) != rabbit {
			t.Errorf("--broker-kind %q: SubscribeAtMostOnce %v, ReconnectDelay %v", kind, o.SubscribeAtMostOnce, o.ReconnectDelay)
		}
	}
	for _, args := range [][]string{{"robots"}, {"watch", "rover-1"}} {
		r := botctl(t, append(args, "--broker-kind", "rabbit", "--broker", "tcp://"+freeAddr(t))...)
		expect(t, r, exitUsage, `--broker-kind "rabbit": want one of mosquitto, aedes, emqx, vernemq, rabbitmq`)
	}
}

// On RabbitMQ botctl hears a robot by its live state only (no retained
// connection reaches a wildcard subscription there): with --broker-kind
// rabbitmq, robots waits for the states and lists the robot, and a command
// is sent to a robot with fresh telemetry and no connection message
// instead of being refused as offline. Here the broker is the embedded
// one and the "robot" a publisher of non-retained states that never
// answers, so the command ends in NO_REPLY rather than "offline".
func TestRobotHeardByItsStateOnly(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	tp, _ := protocol.NewTopics("", "live-only")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Slower than the quiet time botctl settles after elsewhere, well
		// within the wait on RabbitMQ.
		tick := time.NewTicker(rabbitmqLiveWait / 2)
		defer tick.Stop()
		for seq := uint64(1); ; seq++ {
			h := protocol.Header{Robot: "live-only", Seq: seq, TS: protocol.FormatTS(time.Now())}
			p, _ := json.Marshal(protocol.StateMsg{Header: h, State: protocol.State{Mode: protocol.ModeIdle, Errors: []protocol.StateError{}}})
			_ = pub.Publish(tp.State(), 0, false, p)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); <-done }()

	r := botctl(t, "robots", "--broker", b.URL(), "--broker-kind", "rabbitmq")
	if r.code != 0 || !strings.Contains(r.stdout, "live-only ") {
		t.Errorf("robots on RabbitMQ did not list the robot heard by its state: %s", r)
	}
	r = botctl(t, "pause", "live-only", "--broker", b.URL(), "--broker-kind", "rabbitmq", "--timeout", "2s")
	if r.code != exitUnreachable || !strings.Contains(r.stderr, "no reply from live-only") || strings.Contains(r.stderr, "offline") {
		t.Errorf("pause to a robot with fresh telemetry and no connection message: %s", r)
	}
}
