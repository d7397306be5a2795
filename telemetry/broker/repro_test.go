package broker

import (
	"context"
	"fmt"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// The last publish a client got a PUBACK for just before Close still
// reaches the subscribers (a clean daemon stop: its OFFLINE, then the
// broker goes). mochi acknowledges before it queues for subscribers, so
// Close must wait for the hand-over too; thirty rounds make the window
// show without it.
func TestLastPublishBeforeCloseIsDelivered(t *testing.T) {
	lost := 0
	for i := range 30 {
		b, err := Start(context.Background(), Config{Addr: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 16)
		sub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("sub").SetAutoReconnect(false))
		if tok := sub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("subscriber: %v", tok.Error())
		}
		if tok := sub.Subscribe("x/#", 0, func(_ paho.Client, m paho.Message) { got <- string(m.Payload()) }); !tok.WaitTimeout(10 * time.Second) {
			t.Fatal("subscribe timed out")
		}
		pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub"))
		if tok := pub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("publisher: %v", tok.Error())
		}
		last := fmt.Sprintf("OFFLINE-%d", i)
		pub.Publish("x/a", 1, true, last).WaitTimeout(10 * time.Second)
		pub.Disconnect(250)
		b.Close()
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case m := <-got:
				if m == last {
					break wait
				}
			case <-deadline:
				lost++
				break wait
			}
		}
		sub.Disconnect(0)
	}
	if lost > 0 {
		t.Fatalf("%d of 30 last publishes lost at Close", lost)
	}
}
