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
