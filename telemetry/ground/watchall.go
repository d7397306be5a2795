package ground

import (
	"bytes"

	"github.com/botd-project/botd/telemetry/protocol"
)

// WatchAll follows every robot through one wildcard subscription
// ({prefix}/+/+, robot topics only) instead of a Watch each: the MQTT
// client matches every message against every subscription it holds, so a
// Watch a robot costs each message time in proportion to the fleet (at a
// thousand robots that matching, not decoding, is most of a ground
// station's CPU). handlers returns the handlers of a robot (the same for
// every message of it, or nil to skip the robot); messages are decoded and
// delivered as Watch does, on the Client's goroutine, in arrival order.
func (g *Client) WatchAll(handlers func(robot string) *RobotHandlers) (stop func() error, err error) {
	filter := protocol.RobotsFilter(g.cfg.Prefix, "+")
	handler := func(topic string, payload []byte) {
		robot, leaf, ok := protocol.SplitTopic(g.cfg.Prefix, topic)
		if !ok || robot == protocol.GCSSegment {
			return
		}
		p := bytes.Clone(payload)
		g.enqueue(func() {
			if h := handlers(robot); h != nil {
				h.deliver(topic, leaf, p)
			}
		})
	}
	if err := g.conn.Subscribe(filter, protocol.QoSReliable, handler); err != nil {
		return nil, err
	}
	return func() error { return g.conn.Unsubscribe(filter) }, nil
}
