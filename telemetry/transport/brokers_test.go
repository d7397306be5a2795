package transport_test

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/transport"
)

func TestParseBrokers(t *testing.T) {
	got, err := transport.ParseBrokers(" tcp://a:1883, ssl://b:8883 ,")
	if err != nil || !slices.Equal(got, []string{"tcp://a:1883", "ssl://b:8883"}) {
		t.Fatalf("got %q, %v", got, err)
	}
	for in, want := range map[string]string{
		"":                       "no broker URL",
		" , ":                    "no broker URL",
		"a:1883":                 "scheme",
		"http://a:1883":          `unknown scheme "http"`,
		"tcp://":                 "no host",
		"tcp://a:x":              "port",
		"tcp://a:1,udp://b:2":    `unknown scheme "udp"`,
		"tcp://a:1883/%zz,tcp:/": "invalid URL escape",
	} {
		if _, err := transport.ParseBrokers(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", in, err, want)
		}
	}
	// One string holding a list, as a config's broker.url would: refused,
	// never dialled as a host named "a:1,tcp:".
	if err := transport.CheckBroker("tcp://a:1,tcp://b:2"); err == nil {
		t.Fatal("a comma-separated list taken as one URL")
	}
}

// Order is a permutation, the same for the same key, and spreads keys
// over the first position.
func TestOrder(t *testing.T) {
	list := []string{"tcp://a:1", "tcp://b:1", "tcp://c:1"}
	first := map[string]int{}
	for i := range 300 {
		key := fmt.Sprintf("rover-%d", i)
		o := transport.Order(list, key)
		if !slices.Equal(o, transport.Order(list, key)) {
			t.Fatalf("%s: two orders", key)
		}
		if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, list) {
			t.Fatalf("%s: %q is not a permutation", key, o)
		}
		first[o[0]]++
	}
	for _, b := range list {
		if first[b] < 60 { // 100 expected
			t.Errorf("%s first for %d of 300 robots: %v", b, first[b], first)
		}
	}
	if o := transport.Order(list[:1], "x"); !slices.Equal(o, list[:1]) {
		t.Fatal(o)
	}
}

// With the first broker of its list down, the connection goes to the next
// one and says which it is on.
func TestConnFailsOverAndSaysWhere(t *testing.T) {
	down := "tcp://" + freeAddr(t)
	b := mqtttest.StartBroker(t, "")
	o := mqtttest.Options(down)
	o.Brokers = append(o.Brokers, b.URL())
	o.ClientID = "failover"
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mqtttest.Eventually(t, "up on the second broker", c.IsUp)
	if got := c.(transport.Current).Broker(); got != b.URL() {
		t.Fatalf("on %q, want %q", got, b.URL())
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
