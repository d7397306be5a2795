package ground

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/protocol"
)

// DefaultStaleAfter is how old a robot's telemetry may be before a ground
// station calls it stale: the robot publishes its state at least once a
// second, so a few seconds of silence mean it is gone, whatever its
// retained connection says (the broker node that held its last will may
// have died with it).
const DefaultStaleAfter = 5 * time.Second

// Stale says whether the robot's telemetry is older than after at now (the
// ground's clock): nothing live heard within after, and the robot's own
// timestamp on its latest state is older too (a station that has just
// connected has heard only retained messages, which may be old). The last
// will (CONNECTION_BROKEN) is the fast path to the same conclusion; this
// is the one that always works.
func (r RobotInfo) Stale(now time.Time, after time.Duration) bool {
	if after <= 0 {
		after = DefaultStaleAfter
	}
	if !r.LiveAt.IsZero() && now.Sub(r.LiveAt) <= after {
		return false
	}
	if r.State != nil {
		if ts, err := r.State.Header.Time(); err == nil && now.Sub(ts) <= after {
			return false
		}
	}
	return true
}

// rebirthLoop asks robots for their state after every connect of the
// ground station (state.request: the robot republishes its connection,
// factsheet, state, tree and a status keyframe): a broker node the station
// (re)connects to need not hold their retained messages (a cluster need
// not share them, and a node that is new to the station may never have
// had them). On the first connection only the watched robots are asked;
// on a reconnect every robot heard of too.
func (g *Client) rebirthLoop() {
	var asked uint64 // conn.Connects() of the last round
	for {
		link := g.conn.LinkChanged()
		if n := g.conn.Connects(); g.conn.IsUp() && n != asked {
			asked = n
			g.requestStates(n > 1)
		}
		select {
		case <-g.done:
			return
		case <-link:
		}
	}
}

// requestStates publishes state.request to the watched robots (and with
// heard, every robot heard of) without waiting for the replies.
func (g *Client) requestStates(heard bool) {
	g.mu.Lock()
	robots := make(map[string]bool, len(g.watches))
	for r := range g.watches {
		robots[r] = true
	}
	if heard {
		for r := range g.robots {
			robots[r] = true
		}
	}
	g.mu.Unlock()
	for robot := range robots {
		t, err := protocol.NewTopics(g.cfg.Prefix, robot)
		if err != nil {
			continue
		}
		c := protocol.Command{ID: uuid.NewString(), Op: protocol.OpStateRequest, TS: protocol.FormatTS(g.cfg.Clock.Now())}
		payload, _ := json.Marshal(c)
		if _, err := g.conn.PublishAsync(t.Cmd(), protocol.QoSReliable, false, payload); err != nil {
			g.log.Debug("state.request", "robot", robot, "err", err)
		}
	}
}
