package ground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// Fleet sends one command to many robots at once and collects their
// replies: every command is published before any reply is awaited, so
// the whole fleet is reached within one round trip, not one per robot.
// It also keeps the robots' labels (from their retained factsheets) for
// label selectors.
type Fleet struct {
	g *Client

	mu         sync.Mutex
	labels     map[string]map[string]string // robot → labels, from its factsheet
	followed   bool
	repliesSub bool
	pending    map[string]pendingReply // by command id
}

// NewFleet works through g's connection.
func NewFleet(g *Client) *Fleet {
	return &Fleet{g: g, labels: map[string]map[string]string{}, pending: map[string]pendingReply{}}
}

// FollowLabels subscribes to every robot's factsheet (retained, so each
// robot's arrives at once) and keeps its labels. Factsheets are large (the
// node catalog): only label selectors need them.
func (f *Fleet) FollowLabels() error {
	f.mu.Lock()
	done := f.followed
	f.mu.Unlock()
	if done {
		return nil
	}
	err := f.g.conn.Subscribe(protocol.RobotsFilter(f.g.cfg.Prefix, protocol.LeafFactsheet), protocol.QoSRetained, f.onFactsheet)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.followed = true
	f.mu.Unlock()
	return nil
}

// onFactsheet runs on the MQTT client's goroutine; it reads the labels
// only.
func (f *Fleet) onFactsheet(topic string, payload []byte) {
	robot, _, ok := protocol.SplitTopic(f.g.cfg.Prefix, topic)
	if !ok || len(payload) == 0 {
		return
	}
	var m struct {
		Labels map[string]string `json:"labels"`
	}
	if err := json.Unmarshal(payload, &m); err != nil || protocol.ValidLabels(m.Labels) != nil {
		f.g.log.Debug("factsheet without usable labels", "robot", robot)
		m.Labels = map[string]string{}
	}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	f.mu.Lock()
	f.labels[robot] = m.Labels
	f.mu.Unlock()
}

// Labels returns a robot's labels and whether its factsheet was heard.
func (f *Fleet) Labels(robot string) (map[string]string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.labels[robot]
	return l, ok
}

// Select returns the robots heard on the broker that sel matches, by id.
// With a label selector, a robot whose factsheet was not heard has no
// labels.
func (f *Fleet) Select(sel Selector) []RobotInfo {
	var out []RobotInfo
	for _, r := range f.g.Robots() {
		labels, _ := f.Labels(r.ID)
		if sel.Match(r.ID, labels) {
			out = append(out, r)
		}
	}
	return out
}

// Result is one robot's answer to a fleet command.
type Result struct {
	Robot string
	// Answered: a reply came (Reply holds it); else the robot did not
	// answer in time, or the command could not be published (Err).
	Answered bool
	Reply    protocol.Reply
	// Latency is from the command's publish to its reply.
	Latency time.Duration
	Err     error
}

// Send publishes cmd (each robot its own command id) to every robot on its
// leaf topic (protocol.LeafCmd, or protocol.LeafEStop for an e-stop), all
// before waiting, then collects the replies until each robot answered or
// ctx is done; an unanswered command is published again (same id: a robot
// does it once) every ResendEvery. Results come in the order of robots.
func (f *Fleet) Send(ctx context.Context, robots []string, leaf string, cmd protocol.Command) ([]Result, error) {
	if cmd.Op == "" {
		return nil, errors.New("ground: command without op")
	}
	if leaf != protocol.LeafCmd && leaf != protocol.LeafEStop {
		return nil, fmt.Errorf("ground: commands go on cmd or estop, not %q", leaf)
	}
	if err := f.subscribeReplies(ctx); err != nil {
		return nil, err
	}
	type out struct {
		topic   string
		payload []byte
		id      string
		sent    time.Time
	}
	outs := make([]out, len(robots))
	// One reply a robot at most reaches it (onReply forgets the id at the
	// first), so it never blocks.
	replies := make(chan fleetReply, len(robots))
	results := make([]Result, len(robots))
	f.mu.Lock()
	for i, robot := range robots {
		t, err := protocol.NewTopics(f.g.cfg.Prefix, robot)
		if err != nil {
			f.mu.Unlock()
			return nil, err
		}
		c := cmd
		c.ID = uuid.NewString()
		c.TS = protocol.FormatTS(f.g.cfg.Clock.Now())
		p, err := json.Marshal(c)
		if err != nil {
			f.mu.Unlock()
			return nil, fmt.Errorf("ground: encoding command: %w", err)
		}
		topic := t.Cmd()
		if leaf == protocol.LeafEStop {
			topic = t.EStop()
		}
		f.pending[c.ID] = pendingReply{ch: replies, i: i}
		outs[i] = out{topic: topic, payload: p, id: c.ID}
		results[i] = Result{Robot: robot}
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		for _, o := range outs {
			delete(f.pending, o.id)
		}
		f.mu.Unlock()
	}()

	// Publish everything at once: paho queues the packets, the broker
	// fans them out; nothing waits for an acknowledgement here.
	publish := func() {
		for i := range outs {
			if results[i].Answered {
				continue
			}
			now := time.Now()
			if _, err := f.g.conn.PublishAsync(outs[i].topic, protocol.QoSReliable, false, outs[i].payload); err != nil {
				results[i].Err = err
				continue
			}
			results[i].Err = nil
			if outs[i].sent.IsZero() {
				outs[i].sent = now // latency counts from the first send
			}
		}
	}
	publish()
	resend := time.NewTicker(f.g.cfg.ResendEvery)
	defer resend.Stop()
	left := len(outs)
	for left > 0 {
		select {
		case r := <-replies:
			results[r.i].Answered = true
			results[r.i].Reply = r.rep
			results[r.i].Latency = r.at.Sub(outs[r.i].sent)
			results[r.i].Err = nil
			left--
		case <-resend.C:
			publish()
		case <-ctx.Done():
			return results, nil
		}
	}
	return results, nil
}

// subscribeReplies subscribes once to every robot's reply topic.
func (f *Fleet) subscribeReplies(ctx context.Context) error {
	f.mu.Lock()
	done := f.repliesSub
	f.mu.Unlock()
	if done {
		return nil
	}
	if err := f.g.WaitUp(ctx); err != nil {
		return err
	}
	err := f.g.conn.Subscribe(protocol.RobotsFilter(f.g.cfg.Prefix, protocol.LeafReply), protocol.QoSReliable, f.onReply)
	if err != nil {
		return fmt.Errorf("subscribing to the robots' replies: %w", err)
	}
	f.mu.Lock()
	f.repliesSub = true
	f.mu.Unlock()
	return nil
}

// onReply runs on the MQTT client's goroutine.
func (f *Fleet) onReply(_ string, payload []byte) {
	m, err := protocol.DecodeReply(payload)
	if err != nil || m.ID == "" {
		return
	}
	at := time.Now()
	f.mu.Lock()
	p, ok := f.pending[m.ID]
	delete(f.pending, m.ID) // a duplicate finds nothing
	f.mu.Unlock()
	if ok {
		p.ch <- fleetReply{i: p.i, rep: m.Reply, at: at}
	}
}

// pendingReply is where a fleet command's reply goes.
type pendingReply struct {
	ch chan<- fleetReply
	i  int
}

type fleetReply struct {
	i   int
	rep protocol.Reply
	at  time.Time
}

// RobotIDs are the ids of rs.
func RobotIDs(rs []RobotInfo) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	slices.Sort(ids)
	return ids
}

// NoMatchError says that sel matched none of the robots heard (listed,
// up to a few).
func NoMatchError(sel Selector, heard []RobotInfo) error {
	if len(heard) == 0 {
		return fmt.Errorf("%w %q: no robot is on this broker", ErrNoMatch, sel.String())
	}
	ids := RobotIDs(heard)
	more := ""
	if len(ids) > 8 {
		more = fmt.Sprintf(" and %d more", len(ids)-8)
		ids = ids[:8]
	}
	return fmt.Errorf("%w %q; robots heard: %s%s", ErrNoMatch, sel.String(), strings.Join(ids, ", "), more)
}

var _ transport.Handler = (*Fleet)(nil).onReply
