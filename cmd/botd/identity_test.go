package main

import (
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/telemetry/protocol"
)

// On the embedded broker (loopback, no credentials) nobody else gets the
// robot's client ids: twenty tries each with the e-stop connection's and
// the main connection's id are refused, the robot stays ONLINE, and an
// e-stop published afterwards engages.
func TestDaemonClientIDsKept(t *testing.T) {
	addr := freeAddr(t)
	startDaemonProc(t, "-listen", addr, "-state-dir", t.TempDir())
	url := "tcp://" + addr
	waitBroker(t, addr)
	r := newGround(t, url, "rover-1")
	r.waitFor(t, "the demo mission running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })
	for i := range 20 {
		for _, id := range []string{"botd-rover-1-estop", "botd-rover-1", "botd-rover-1-lidar"} {
			c := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID(id).SetProtocolVersion(4).
				SetAutoReconnect(false).SetConnectTimeout(5 * time.Second))
			tok := c.Connect()
			if !tok.WaitTimeout(20 * time.Second) {
				t.Fatalf("%s: connect timed out", id)
			}
			if tok.Error() == nil {
				c.Disconnect(0)
				t.Fatalf("try %d: a stranger got the client id %s", i, id)
			}
		}
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(url).SetClientID("stranger").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
		t.Fatalf("an ordinary client: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	topics, _ := protocol.NewTopics("botd/v1", "rover-1")
	if tok := pub.Publish(topics.EStop(), 1, false, "{}"); !tok.WaitTimeout(20 * time.Second) {
		t.Fatal("e-stop publish timed out")
	}
	r.waitFor(t, "ESTOP", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeEStop })
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conn {
		if c != protocol.ConnOnline {
			t.Fatalf("connection states %v: the robot was not ONLINE throughout", r.conn)
		}
	}
}
