package ground

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/botd-project/botd/telemetry/protocol"
)

// FleetFacts is the part of a robot's factsheet a fleet view uses.
type FleetFacts struct {
	Version  string                `json:"version"`
	Labels   map[string]string     `json:"labels,omitempty"`
	Geofence *protocol.Geofence    `json:"geofence,omitempty"`
	Poses    []protocol.PoseSource `json:"poses,omitempty"`
}

// FleetHandlers receive every robot's factsheet and blackboard messages:
// what a view of the whole fleet needs beyond Robots (labels, fences and
// poses). They run on the MQTT client's goroutine, so they must be quick
// and never block; nil handlers are skipped.
type FleetHandlers struct {
	Factsheet  func(robot string, f FleetFacts)
	Blackboard func(robot string, m protocol.BlackboardMsg)
	// Error gets a payload that could not be decoded.
	Error func(robot, topic string, err error)
}

// Fleet payload bounds: a bigger message is refused unread.
const (
	maxFleetFactsheet  = 4 << 20
	maxFleetBlackboard = 1 << 20
)

// WatchFleet subscribes to {prefix}/+/factsheet and {prefix}/+/blackboard
// and calls h for each message. stop unsubscribes. It does not replace a
// robot's Watch (the messages of a watched robot reach both).
func (g *Client) WatchFleet(h FleetHandlers) (stop func() error, err error) {
	fail := func(robot, topic string, err error) {
		if h.Error != nil {
			h.Error(robot, topic, err)
		}
	}
	facts := protocol.RobotsFilter(g.cfg.Prefix, protocol.LeafFactsheet)
	bb := protocol.RobotsFilter(g.cfg.Prefix, protocol.LeafBlackboard)
	onFacts := func(topic string, payload []byte) {
		robot, _, ok := protocol.SplitTopic(g.cfg.Prefix, topic)
		if !ok || len(payload) == 0 || h.Factsheet == nil {
			return
		}
		if len(payload) > maxFleetFactsheet {
			fail(robot, topic, errors.New("factsheet too large"))
			return
		}
		var f FleetFacts
		if err := json.Unmarshal(payload, &f); err != nil {
			fail(robot, topic, err)
			return
		}
		h.Factsheet(robot, f)
	}
	onBB := func(topic string, payload []byte) {
		robot, _, ok := protocol.SplitTopic(g.cfg.Prefix, topic)
		if !ok || len(payload) == 0 || h.Blackboard == nil {
			return
		}
		if len(payload) > maxFleetBlackboard {
			fail(robot, topic, errors.New("blackboard message too large"))
			return
		}
		m, err := protocol.DecodeBlackboard(payload)
		if err != nil {
			fail(robot, topic, err)
			return
		}
		h.Blackboard(robot, m)
	}
	if err := g.conn.Subscribe(facts, protocol.QoSRetained, onFacts); err != nil {
		return nil, err
	}
	if err := g.conn.Subscribe(bb, protocol.QoSStream, onBB); err != nil {
		_ = g.conn.Unsubscribe(facts)
		return nil, err
	}
	return func() error {
		return errors.Join(g.conn.Unsubscribe(facts), g.conn.Unsubscribe(bb))
	}, nil
}

// SendEStop is Send for an e-stop published on the robot's estop topic,
// which the daemon reads on a connection of its own so that nothing queued
// for its command topic delays it (PROTOCOL.md, E-stop). It waits for the
// reply like Send; c.Op must be estop.
func (g *Client) SendEStop(ctx context.Context, robot string, c protocol.Command) (protocol.Reply, error) {
	if c.Op != protocol.OpEStop {
		return protocol.Reply{}, errors.New("ground: SendEStop with op " + c.Op)
	}
	return g.send(ctx, robot, c, true)
}
