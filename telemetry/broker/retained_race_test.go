package broker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/telemetry/broker"
)

// A retained message set and cleared while another client subscribes with
// a wildcard: mochi-mqtt v2.7.9 read a topic's retained path without the
// lock its writer held (a data race that could tear the string and crash
// the broker, so the daemon). The broker is built on a copy with that read
// locked (third_party/mochi-mqtt-server). Under -race the unpatched broker
// fails this test within a few hundred rounds.
func TestRetainedWhileWildcardSubscribes(t *testing.T) {
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dial := func(id string) paho.Client {
		o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetAutoReconnect(false)
		c := paho.NewClient(o)
		if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatalf("%s: connect: %v", id, tok.Error())
		}
		return c
	}
	pub, sub := dial("retain-writer"), dial("wildcard-reader")
	defer pub.Disconnect(10)
	defer sub.Disconnect(10)

	const rounds, topics = 300, 8
	wait := func(what string, tok paho.Token) {
		if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Errorf("%s: %v", what, tok.Error())
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // sets and clears retained messages, one topic level deep and two
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			topic := fmt.Sprintf("r/%d/state", i%topics)
			payload := []byte("on")
			if (i/topics)%2 == 1 {
				payload = nil // clears the retained message
			}
			wait("retained publish", pub.Publish(topic, 1, true, payload))
		}
	}()
	go func() { // subscribes with wildcards, which scans the retained messages
		defer wg.Done()
		noop := func(paho.Client, paho.Message) {}
		for i := 0; i < rounds; i++ {
			filter := []string{"r/+/state", "r/#"}[i%2]
			wait("subscribe", sub.Subscribe(filter, 1, noop))
			wait("unsubscribe", sub.Unsubscribe(filter))
		}
	}()
	wg.Wait()

	// Whatever the interleaving, the retained set ends as the last writes
	// left it, and a new wildcard subscriber gets exactly that.
	want := map[string]bool{}
	for i := rounds - 2*topics; i < rounds; i++ {
		want[fmt.Sprintf("r/%d/state", i%topics)] = (i/topics)%2 == 0
	}
	// A new client: the reader's own queue may still hold what its many
	// subscriptions were sent.
	late := dial("late-reader")
	defer late.Disconnect(10)
	got := make(chan string, 2*topics)
	wait("final subscribe", late.Subscribe("r/+/state", 1, func(_ paho.Client, m paho.Message) {
		if m.Retained() {
			got <- m.Topic()
		}
	}))
	n := 0
	for _, on := range want {
		if on {
			n++
		}
	}
	for i := 0; i < n; i++ {
		select {
		case topic := <-got:
			if !want[topic] {
				t.Errorf("retained %s, cleared last", topic)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d retained messages arrived", i, n)
		}
	}
}
