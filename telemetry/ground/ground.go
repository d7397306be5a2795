package ground

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// Config configures a ground station.
type Config struct {
	// GCS is this ground station's id: its presence topic. Give every
	// process its own (botctl: botd-gcs-{user}-{random}), so that one
	// quitting does not mark another offline.
	GCS    string
	Prefix string // [DefaultPrefix]
	// Conn holds broker URLs, credentials and TLS; the client id defaults
	// to botctl-{gcs}-{random} so several botctl runs can coexist. A broker
	// that lets a client write presence only under its own client id
	// (deploy/mosquitto) needs ClientID == GCS.
	Conn transport.Options
	// Presence publishes {"online": true} (retained) on every connect,
	// with {"online": false} as last will; Close clears it (an empty
	// retained message, which robots read as offline), so that the
	// presences of processes long gone do not pile up on the broker (an
	// MQTT 3.1.1 will cannot be empty). Only for a station that stays
	// connected (watch, dashboard): robots treat it as their operator
	// link.
	Presence bool
	// ReplyTimeout bounds Send when its context has no deadline [10 s].
	ReplyTimeout time.Duration
	// ResendEvery resends an unanswered command with the same id [3 s];
	// the robot answers a repeat with the same reply and does nothing twice.
	ResendEvery time.Duration
	// Queue is how many received messages wait for the callbacks [1024].
	Queue  int
	Logger *slog.Logger
	Clock  clockwork.Clock // [the real clock]
	// Sign, when set, is called once per Send, after the command's id and
	// ts are set and before it is encoded; it may set c.Auth (a robot
	// that requires signed commands needs it). An error fails the Send.
	Sign func(robot string, c *protocol.Command) error
}

// RobotInfo is what a ground station knows of a robot it heard of.
type RobotInfo struct {
	ID         string
	Connection string             // ONLINE, OFFLINE, CONNECTION_BROKEN; "" when not heard
	State      *protocol.StateMsg // latest state, nil when not heard
	LastSeen   time.Time          // ground clock
	// LiveAt is when the robot was last heard live (ground clock): a
	// message the broker did not deliver from its retained store.
	LiveAt time.Time
}

// RobotHandlers receive one robot's messages, decoded. They run one at a
// time on the Client's own goroutine, in arrival order; a slow handler
// delays the others (and, when the queue is full, messages are dropped and
// counted in Dropped), never the MQTT client. Nil handlers are skipped.
type RobotHandlers struct {
	Connection func(protocol.ConnectionMsg)
	Factsheet  func(protocol.FactsheetMsg)
	State      func(protocol.StateMsg)
	Tree       func(protocol.TreeMsg)
	Status     func(protocol.StatusMsg)
	Blackboard func(protocol.BlackboardMsg)
	Event      func(protocol.EventMsg)
	Metrics    func(protocol.MetricsMsg)
	Reply      func(protocol.ReplyMsg)
	Error      func(topic string, err error) // undecodable message
}

// ErrNoReply is returned by Send when no reply came in time.
var ErrNoReply = errors.New("ground: no reply")

// Client is the ground-station side used by botctl.
type Client struct {
	cfg  Config
	conn transport.Conn
	log  *slog.Logger

	mu        sync.Mutex
	robots    map[string]*RobotInfo
	pending   map[string]chan protocol.Reply // by command id
	replySubs map[string]bool                // robots whose reply topic is subscribed
	watches   map[string]uint64              // robot → watch generation

	queue   chan func()
	dropped atomic.Uint64
	done    chan struct{}
	wg      sync.WaitGroup
	closing sync.Once
}

// New connects in the background; Robots fills in as retained
// connection and state messages arrive.
func New(cfg Config) (*Client, error) {
	if err := protocol.ValidGCSID(cfg.GCS); err != nil {
		return nil, err
	}
	if cfg.Prefix == "" {
		cfg.Prefix = protocol.DefaultPrefix
	}
	if err := protocol.ValidPrefix(cfg.Prefix); err != nil {
		return nil, err
	}
	if cfg.ReplyTimeout <= 0 {
		cfg.ReplyTimeout = 10 * time.Second
	}
	if cfg.ResendEvery <= 0 {
		cfg.ResendEvery = 3 * time.Second
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	g := &Client{
		cfg:       cfg,
		log:       cfg.Logger.With("component", "ground", "gcs", cfg.GCS),
		robots:    map[string]*RobotInfo{},
		pending:   map[string]chan protocol.Reply{},
		replySubs: map[string]bool{},
		watches:   map[string]uint64{},
		queue:     make(chan func(), cfg.Queue),
		done:      make(chan struct{}),
	}
	o := cfg.Conn
	if o.ClientID == "" {
		o.ClientID = "botctl-" + cfg.GCS + "-" + uuid.NewString()[:8]
	}
	if o.Logger == nil {
		o.Logger = g.log
	}
	if o.Discard == "" {
		o.Discard = cfg.Prefix + "/" + protocol.GCSSegment + "/" + cfg.GCS + "/" + protocol.LeafDiscard
	}
	o.Subscriptions = append(append([]transport.Subscription(nil), o.Subscriptions...),
		transport.Subscription{Filter: protocol.RobotsFilter(cfg.Prefix, protocol.LeafConnection), QoS: protocol.QoSRetained, Handler: g.onLiveRobotMsg, Retained: g.onRobotMsg},
		transport.Subscription{Filter: protocol.RobotsFilter(cfg.Prefix, protocol.LeafState), QoS: protocol.QoSRetained, Handler: g.onLiveRobotMsg, Retained: g.onRobotMsg},
	)
	if cfg.Presence {
		topic := protocol.GCSStateTopic(cfg.Prefix, cfg.GCS)
		o.Will = &transport.Message{Topic: topic, Payload: g.presence(false), QoS: protocol.QoSRetained, Retain: true}
		o.Birth = func() transport.Message {
			return transport.Message{Topic: topic, Payload: g.presence(true), QoS: protocol.QoSRetained, Retain: true}
		}
		o.Goodbye = func() transport.Message {
			return transport.Message{Topic: topic, Payload: []byte{}, QoS: protocol.QoSRetained, Retain: true}
		}
	}
	conn, err := transport.Dial(o)
	if err != nil {
		return nil, err
	}
	g.conn = conn
	g.wg.Go(g.dispatch)
	g.wg.Go(g.rebirthLoop)
	return g, nil
}

func (g *Client) presence(online bool) []byte {
	b, _ := json.Marshal(protocol.PresenceMsg{Online: online, GCS: g.cfg.GCS, TS: protocol.FormatTS(g.cfg.Clock.Now())})
	return b
}

// Conn exposes the connection (IsUp, LinkChanged).
func (g *Client) Conn() transport.Conn { return g.conn }

// WaitUp waits until the connection is up.
func (g *Client) WaitUp(ctx context.Context) error {
	for {
		ch := g.conn.LinkChanged()
		if g.conn.IsUp() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the broker: %w", ctx.Err())
		case <-ch:
		}
	}
}

// Up reports whether the connection to the broker is up.
func (g *Client) Up() bool { return g.conn.IsUp() }

// Dropped counts messages dropped because the callbacks fell behind.
func (g *Client) Dropped() uint64 { return g.dropped.Load() }

// Robots lists the robots heard on {prefix}/+/connection and
// {prefix}/+/state, by id.
func (g *Client) Robots() []RobotInfo {
	g.mu.Lock()
	out := make([]RobotInfo, 0, len(g.robots))
	for _, r := range g.robots {
		out = append(out, *r)
	}
	g.mu.Unlock()
	slices.SortFunc(out, func(a, b RobotInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// onLiveRobotMsg is onRobotMsg for a message published now (not one the
// broker kept): the robot was live then.
func (g *Client) onLiveRobotMsg(topic string, payload []byte) {
	g.robotMsg(topic, payload, true)
}

// onRobotMsg runs on the MQTT client's goroutine.
func (g *Client) onRobotMsg(topic string, payload []byte) {
	g.robotMsg(topic, payload, false)
}

func (g *Client) robotMsg(topic string, payload []byte, live bool) {
	robot, leaf, ok := protocol.SplitTopic(g.cfg.Prefix, topic)
	if !ok || len(payload) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.robots[robot]
	if r == nil {
		r = &RobotInfo{ID: robot}
		g.robots[robot] = r
	}
	switch leaf {
	case protocol.LeafConnection:
		m, err := protocol.DecodeConnection(payload)
		if err != nil {
			g.log.Debug("bad connection message", "robot", robot, "err", err)
			return
		}
		r.Connection = m.State
		live = live && m.State == protocol.ConnOnline // a will is the broker's word, not the robot's
	case protocol.LeafState:
		m, err := protocol.DecodeState(payload)
		if err != nil {
			g.log.Debug("bad state message", "robot", robot, "err", err)
			return
		}
		r.State = &m
	}
	r.LastSeen = g.cfg.Clock.Now()
	if live {
		r.LiveAt = r.LastSeen
	}
}

// Watch subscribes to every topic of robot and calls h for each message.
// A second Watch of the same robot replaces the first. stop unsubscribes.
func (g *Client) Watch(robot string, h RobotHandlers) (stop func() error, err error) {
	t, err := protocol.NewTopics(g.cfg.Prefix, robot)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	gen := g.watches[robot] + 1
	g.watches[robot] = gen
	g.mu.Unlock()
	handler := func(topic string, payload []byte) {
		_, leaf, ok := protocol.SplitTopic(g.cfg.Prefix, topic)
		if !ok {
			return
		}
		p := bytes.Clone(payload)
		g.enqueue(func() { h.deliver(topic, leaf, p) })
	}
	if err := g.conn.Subscribe(t.All(), protocol.QoSReliable, handler); err != nil {
		return nil, err
	}
	return func() error {
		g.mu.Lock()
		current := g.watches[robot] == gen
		g.mu.Unlock()
		if !current {
			return nil
		}
		return g.conn.Unsubscribe(t.All())
	}, nil
}

func (g *Client) enqueue(f func()) {
	select {
	case g.queue <- f:
	default:
		g.dropped.Add(1)
	}
}

func (g *Client) dispatch() {
	for {
		select {
		case <-g.done:
			return
		case f := <-g.queue:
			f()
		}
	}
}

func (h RobotHandlers) deliver(topic, leaf string, p []byte) {
	if len(p) == 0 {
		return // a cleared retained message
	}
	fail := func(err error) {
		if h.Error != nil {
			h.Error(topic, err)
		}
	}
	switch leaf {
	case protocol.LeafConnection:
		call(h.Connection, protocol.DecodeConnection, p, fail)
	case protocol.LeafFactsheet:
		call(h.Factsheet, protocol.DecodeFactsheet, p, fail)
	case protocol.LeafState:
		call(h.State, protocol.DecodeState, p, fail)
	case protocol.LeafTree:
		call(h.Tree, protocol.DecodeTree, p, fail)
	case protocol.LeafStatus:
		call(h.Status, protocol.DecodeStatus, p, fail)
	case protocol.LeafBlackboard:
		call(h.Blackboard, protocol.DecodeBlackboard, p, fail)
	case protocol.LeafEvents:
		call(h.Event, protocol.DecodeEvent, p, fail)
	case protocol.LeafMetrics:
		call(h.Metrics, protocol.DecodeMetrics, p, fail)
	case protocol.LeafReply:
		call(h.Reply, protocol.DecodeReply, p, fail)
	}
}

func call[T any](f func(T), decode func([]byte) (T, error), p []byte, fail func(error)) {
	if f == nil {
		return
	}
	m, err := decode(p)
	if err != nil {
		fail(err)
		return
	}
	f(m)
}

// onReply runs on the MQTT client's goroutine: hand the reply to the
// waiting Send, if any.
func (g *Client) onReply(_ string, payload []byte) {
	m, err := protocol.DecodeReply(payload)
	if err != nil || m.ID == "" {
		return
	}
	g.mu.Lock()
	ch := g.pending[m.ID]
	g.mu.Unlock()
	if ch != nil {
		select {
		case ch <- m.Reply:
		default: // a duplicate; the first one is enough
		}
	}
}

func (g *Client) subscribeReplies(t protocol.Topics) error {
	g.mu.Lock()
	done := g.replySubs[t.Robot()]
	g.mu.Unlock()
	if done {
		return nil
	}
	if err := g.conn.Subscribe(t.Reply(), protocol.QoSReliable, g.onReply); err != nil {
		return err
	}
	g.mu.Lock()
	g.replySubs[t.Robot()] = true
	g.mu.Unlock()
	return nil
}

// Send sends c to robot and waits for its reply. It fills in c.ID (when
// empty) and c.TS, and resends the same command every ResendEvery and
// after a reconnect until the reply comes, ctx is done, or ReplyTimeout
// passes (when ctx has no deadline). A refused command is a reply with
// OK false, not an error.
func (g *Client) Send(ctx context.Context, robot string, c protocol.Command) (protocol.Reply, error) {
	return g.send(ctx, robot, c, false)
}

func (g *Client) send(ctx context.Context, robot string, c protocol.Command, estopTopic bool) (protocol.Reply, error) {
	t, err := protocol.NewTopics(g.cfg.Prefix, robot)
	if err != nil {
		return protocol.Reply{}, err
	}
	if c.Op == "" {
		return protocol.Reply{}, errors.New("ground: command without op")
	}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	if c.TS == "" {
		c.TS = protocol.FormatTS(g.cfg.Clock.Now())
	}
	if g.cfg.Sign != nil && c.Auth == nil {
		if err := g.cfg.Sign(robot, &c); err != nil {
			return protocol.Reply{}, fmt.Errorf("ground: signing %s: %w", c.Op, err)
		}
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return protocol.Reply{}, fmt.Errorf("ground: encoding command: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.ReplyTimeout)
		defer cancel()
	}
	ch := make(chan protocol.Reply, 1)
	g.mu.Lock()
	if g.pending[c.ID] != nil {
		g.mu.Unlock()
		return protocol.Reply{}, fmt.Errorf("ground: command %s is already being sent", c.ID)
	}
	g.pending[c.ID] = ch
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.pending, c.ID)
		g.mu.Unlock()
	}()

	resend := g.cfg.Clock.NewTimer(0)
	defer resend.Stop()
	var sentOn uint64 // conn.Connects() of the last send
	subscribed := false
	for {
		link := g.conn.LinkChanged()
		if g.conn.IsUp() && !subscribed {
			if err := g.subscribeReplies(t); err != nil {
				g.log.Debug("subscribing to replies", "robot", robot, "err", err)
			} else {
				subscribed = true
			}
		}
		select {
		case r := <-ch:
			return r, nil
		case <-ctx.Done():
			return protocol.Reply{}, fmt.Errorf("%w to %s %s from %s: %w", ErrNoReply, c.Op, c.ID, robot, ctx.Err())
		case <-link:
			if n := g.conn.Connects(); g.conn.IsUp() && n != sentOn {
				resend.Reset(0) // reconnected: the command or its reply may be lost
			}
		case <-resend.Chan():
			if subscribed && g.conn.IsUp() {
				sentOn = g.conn.Connects()
				topic := t.Cmd()
				if estopTopic {
					topic = t.EStop()
				}
				if err := g.conn.Publish(topic, protocol.QoSReliable, false, payload); err != nil {
					g.log.Debug("sending command", "robot", robot, "id", c.ID, "err", err)
				}
			}
			resend.Reset(g.cfg.ResendEvery)
		}
	}
}

// Close clears its presence (with Presence), disconnects and stops
// the callbacks.
func (g *Client) Close() error {
	var err error
	g.closing.Do(func() {
		err = g.conn.Close()
		close(g.done)
		g.wg.Wait()
	})
	return err
}
