package transport

import (
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
