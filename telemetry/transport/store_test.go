package transport

import (
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// TestResendFilter: after a reconnect paho resends unacknowledged QoS 1
// messages from its store; retained ones (and any NoResend picks) become
// an empty message on the discard topic, the rest go as they were.
func TestResendFilter(t *testing.T) {
	s := &resendFilter{Store: paho.NewOrderedMemoryStore(), discard: "botd/v1/r/_discard",
		noResend: func(topic string, retained bool) bool { return retained || topic == "botd/v1/r/events" }}
	s.Open()
	defer s.Close()
	put := func(id uint16, topic string, retain bool) {
		p := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
		p.Qos, p.MessageID, p.TopicName, p.Retain, p.Payload = 1, id, topic, retain, []byte("x")
		s.Put("o."+string(rune('0'+id)), p)
	}
	put(1, "botd/v1/r/state", true)
	put(2, "botd/v1/r/events", false)
	put(3, "botd/v1/r/reply", false)
	for key, want := range map[string]string{"o.1": "botd/v1/r/_discard", "o.2": "botd/v1/r/_discard", "o.3": "botd/v1/r/reply"} {
		p := s.Get(key).(*packets.PublishPacket)
		if p.TopicName != want {
			t.Errorf("%s: topic %s, want %s", key, p.TopicName, want)
		}
		if want == s.discard && (p.Retain || len(p.Payload) != 0 || p.MessageID == 0 || p.Qos != 1) {
			t.Errorf("%s: discard message %+v", key, p)
		}
	}
}

// TestResendFilterDisarm: a Publish whose packet is still waiting for the
// writer when the connection drops hands that same packet to the next
// connection's writer. disarm, run before each dial, rewrites the stored
// packet in place, so the waiting copy goes as the harmless message too;
// what NoResend does not pick, and inbound packets, stay as they were.
func TestResendFilterDisarm(t *testing.T) {
	s := &resendFilter{Store: paho.NewOrderedMemoryStore(), discard: "botd/v1/r/_discard",
		noResend: func(topic string, retained bool) bool { return retained || topic == "botd/v1/r/events" }}
	s.Open()
	defer s.Close()
	mk := func(key string, id uint16, topic string, retain bool) *packets.PublishPacket {
		p := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
		p.Qos, p.MessageID, p.TopicName, p.Retain, p.Payload = 1, id, topic, retain, []byte("x")
		s.Put(key, p)
		return p
	}
	waiting := mk("o.7", 7, "botd/v1/r/events", false) // the pointer paho's writer would get
	state := mk("o.8", 8, "botd/v1/r/state", true)
	reply := mk("o.9", 9, "botd/v1/r/reply", false)
	inbound := mk("i.3", 3, "botd/v1/r/events", false)
	s.disarm()
	for _, p := range []*packets.PublishPacket{waiting, state} {
		if p.TopicName != s.discard || p.Retain || len(p.Payload) != 0 || p.Qos != 1 || p.MessageID == 0 {
			t.Errorf("packet %d not disarmed in place: %+v", p.MessageID, p)
		}
	}
	if reply.TopicName != "botd/v1/r/reply" || string(reply.Payload) != "x" {
		t.Errorf("a message NoResend does not pick was changed: %+v", reply)
	}
	if inbound.TopicName != "botd/v1/r/events" || string(inbound.Payload) != "x" {
		t.Errorf("an inbound packet was changed: %+v", inbound)
	}
	s.disarm() // again, before a dial that follows a failed one: no change
	if waiting.TopicName != s.discard {
		t.Errorf("second disarm: %+v", waiting)
	}
}
