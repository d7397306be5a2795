package main

import (
	"context"
	"io"
	"strings"
	"testing"
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
