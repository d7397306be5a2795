package transport

import (
	"strings"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// resendFilter is paho's message store with one change: after a
// reconnect paho resends every unacknowledged QoS 1 publish from the
// store (Get is only called for that), and for the messages NoResend
// picks it sends an empty, non-retained message to the Discard topic
// instead.
//
// Why: the owners of those messages resend them themselves, fresher and
// in order. paho's copy of an old retained state could otherwise reach
// the broker after the fresh one and stay retained, and its copy of an
// event could overtake the outbox's resend. Dropping the message from the
// store instead would leak its packet id (paho frees an id only on the
// acknowledgement), so paho is given something harmless to send.
//
// paho has a second way to send an old message on a new connection: a
// Publish stored and waiting to hand its packet to the writer when the
// connection drops hands it to the next connection's writer, ahead of
// everything published after the reconnect (an outbox event overtook the
// outbox's resend of the events before it). Before every dial, disarm
// turns each such packet into the harmless one in place: paho's store
// holds the same packet the waiting Publish will hand over.
type resendFilter struct {
	paho.Store
	discard  string
	noResend func(topic string, retained bool) bool
}

func (s *resendFilter) Get(key string) packets.ControlPacket {
	p := s.Store.Get(key)
	pub, ok := p.(*packets.PublishPacket)
	if !ok || pub.Qos == 0 || !s.noResend(pub.TopicName, pub.Retain) {
		return p
	}
	d := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
	d.Qos = pub.Qos
	d.MessageID = pub.MessageID
	d.TopicName = s.discard
	return d
}

// disarm rewrites, in place, every stored outbound publish that NoResend
// picks into an empty message to the Discard topic (same packet id and
// QoS). It runs before paho dials again, when no writer of the old
// connection runs and the next one has not started.
func (s *resendFilter) disarm() {
	for _, key := range s.Store.All() {
		if !strings.HasPrefix(key, "o.") { // paho's outbound keys
			continue
		}
		pub, ok := s.Store.Get(key).(*packets.PublishPacket)
		if !ok || pub.Qos == 0 || pub.TopicName == s.discard || !s.noResend(pub.TopicName, pub.Retain) {
			continue
		}
		pub.TopicName, pub.Payload, pub.Retain = s.discard, nil, false
	}
}
