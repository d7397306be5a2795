package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// DaemonConfig configures the robot side. Zero values take the defaults
// in brackets.
type DaemonConfig struct {
	Robot  string
	Prefix string // [DefaultPrefix]
	// Conn holds the broker URLs, credentials and TLS. The daemon sets the
	// client id [botd-{robot}], last will, birth and goodbye messages,
	// subscriptions and NoResend itself.
	Conn transport.Options
	// EStopUsername is the broker user name of the e-stop connection
	// [Conn.Username], with the same password. A broker that binds client
	// ids to user names (mosquitto's use_username_as_clientid) needs a
	// user of its own for each of the robot's two connections.
	EStopUsername string
	// StateDir holds the event outbox (StateDir/outbox).
	StateDir string
	Outbox   OutboxConfig // bounds; Dir is ignored

	Source   Source
	Commands CommandHandler
	// Authorize checks a command's signed envelope (payload is its JSON
	// text) before it goes to Commands; a non-nil error is the reply and
	// the command does nothing. It runs on the command intake goroutine,
	// never on the e-stop path. Nil accepts every command.
	Authorize func(c protocol.Command, payload []byte) *protocol.ReplyError
	Factsheet protocol.FactsheetMsg // header and zero telemetry limits are filled in

	TelemetryHz   float64       // status deltas and blackboard [10]
	KeyframeEvery time.Duration // [5 s]
	// Telemetry by exception. Status changes go out at once (leading
	// edge), at most StatusMaxHz messages a second on average (a burst of
	// 5 passes) [50]. Blackboard values go out only when they changed
	// beyond their deadband (Deadbands, by key pattern
	// [protocol.DefaultDeadbands]), at most BlackboardHz messages a second
	// [2]; every value every BlackboardFullEvery [30 s], on state.request
	// and after a reconnect. Metrics every MetricsEvery [5 s].
	StatusMaxHz         float64
	BlackboardHz        float64
	BlackboardFullEvery time.Duration
	Deadbands           protocol.Deadbands
	MetricsEvery        time.Duration
	MaxPayload          int           // largest command accepted [256 KiB]
	CommandRate         float64       // token bucket refill per second [20]
	CommandBurst        int           // token bucket size [40]
	StaleAfter          time.Duration // older commands get STALE_COMMAND [30 s]; <0 disables
	FutureSkew          time.Duration // commands from further ahead get STALE_COMMAND [5 min]; <0 disables
	CommandTimeout      time.Duration // context deadline for Commands.Do [10 s]
	ReplyCache          int           // replies kept by command id [256]
	EventQueue          int           // events waiting for the outbox [1024]
	CommandQueue        int           // commands waiting for intake; a full queue answers BUSY [256]
	ReplyQueue          int           // replies waiting to be published [4096]
	// CommandQueueBytes bounds the command queue in bytes [4 MiB]: a command
	// that would take it past the bound is answered BUSY too (one
	// command of any accepted size is queued when none waits). Without
	// it the queue could hold CommandQueue × MaxPayload (64 MiB).
	CommandQueueBytes int
	// MaxPublish is the largest message the daemon publishes
	// [protocol.DefaultMaxPublish]; keep it well below the broker's packet
	// limit (bounds.go).
	MaxPublish int
	// TreeBudget: a tree whose nodes' JSON is larger goes gzip-compressed
	// on the retained tree topic [64 KiB].
	TreeBudget int

	// Link is called with every change of the link (and once at start);
	// from a telemetry goroutine, so it must not block for long. While
	// the broker keeps closing connections right after they connect (a
	// client taking the robot's id), a link that comes back is reported
	// only once it has held for LinkGrace [DefaultLinkGrace] (link.go).
	Link      func(protocol.LinkState)
	LinkGrace time.Duration
	// LinkLossTimeout is the runner's link-loss timeout: when set, the
	// MQTT keepalive and ping timeout are derived from it (at most a
	// quarter of it each, see keepAliveFor), so that a broker that goes
	// silent is noticed in time for the failsafe. Conn.KeepAlive and
	// Conn.PingTimeout, when set, are kept if shorter.
	LinkLossTimeout time.Duration
	// Fault reports a problem of telemetry's own that the operator must
	// see in state.errors (e is nil when it cleared), e.g. events that
	// cannot be stored. Called from telemetry goroutines; must not block.
	Fault  func(key string, e *protocol.StateError)
	Logger *slog.Logger
	// Clock is the daemon's clock [the real clock]: header times, the
	// rate limit, stale commands, and every publishing period.
	Clock clockwork.Clock
}

func (c *DaemonConfig) fill() error {
	if c.Source == nil || c.Commands == nil {
		return errors.New("telemetry: daemon needs a Source and a CommandHandler")
	}
	if c.StateDir == "" {
		return errors.New("telemetry: daemon needs a state directory")
	}
	if c.Conn.ClientID == "" {
		c.Conn.ClientID = "botd-" + c.Robot
	}
	if c.TelemetryHz <= 0 {
		c.TelemetryHz = 10
	}
	if c.KeyframeEvery <= 0 {
		c.KeyframeEvery = 5 * time.Second
	}
	if c.MaxPayload <= 0 {
		c.MaxPayload = 256 << 10
	}
	if c.LinkLossTimeout > 0 {
		ka, pt := keepAliveFor(c.LinkLossTimeout)
		if c.Conn.KeepAlive <= 0 || c.Conn.KeepAlive > ka {
			c.Conn.KeepAlive = ka
		}
		if c.Conn.PingTimeout <= 0 || c.Conn.PingTimeout > pt {
			c.Conn.PingTimeout = pt
		}
	}
	if c.MaxPublish <= 0 {
		c.MaxPublish = protocol.DefaultMaxPublish
	}
	if c.MaxPublish < 16<<10 {
		return fmt.Errorf("telemetry: max publish size %d is too small (at least 16 KiB)", c.MaxPublish)
	}
	if c.CommandRate <= 0 {
		c.CommandRate = 20
	}
	if c.CommandBurst <= 0 {
		c.CommandBurst = 40
	}
	if c.StaleAfter == 0 {
		c.StaleAfter = 30 * time.Second
	}
	if c.FutureSkew == 0 {
		c.FutureSkew = 5 * time.Minute
	}
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = 10 * time.Second
	}
	if c.ReplyCache <= 0 {
		c.ReplyCache = 256
	}
	if c.EventQueue <= 0 {
		c.EventQueue = 1024
	}
	if c.CommandQueue <= 0 {
		c.CommandQueue = 256
	}
	if c.ReplyQueue <= 0 {
		c.ReplyQueue = 4096
	}
	if c.CommandQueueBytes <= 0 {
		c.CommandQueueBytes = 4 << 20
	}
	if c.StatusMaxHz <= 0 {
		c.StatusMaxHz = 50
	}
	if c.BlackboardHz <= 0 {
		c.BlackboardHz = 2
	}
	if c.BlackboardFullEvery <= 0 {
		c.BlackboardFullEvery = 30 * time.Second
	}
	if c.Deadbands == nil {
		c.Deadbands = protocol.DefaultDeadbands()
	}
	if c.MetricsEvery <= 0 {
		c.MetricsEvery = 5 * time.Second
	}
	if c.TreeBudget <= 0 {
		c.TreeBudget = 64 << 10
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Link == nil {
		c.Link = func(protocol.LinkState) {}
	}
	if c.LinkGrace <= 0 {
		c.LinkGrace = DefaultLinkGrace
	}
	if c.Fault == nil {
		c.Fault = func(string, *protocol.StateError) {}
	}
	return nil
}

// Daemon is the robot side: it publishes what the Source exposes, keeps
// events in the outbox until the broker has them, and turns commands into
// Commands.Do calls with exactly one reply each. Nothing it does blocks
// the tick: the runner only ever calls the non-blocking EventSink and
// signals Changed.
type Daemon struct {
	cfg    DaemonConfig
	topics protocol.Topics
	log    *slog.Logger
	src    Source
	outbox *Outbox

	events   *queue[protocol.Event]
	cmds     chan inboundCmd
	cmdBytes atomic.Int64  // payload bytes in cmds
	requests chan struct{} // state.request: republish everything

	// Replies, published by the reply loop; e-stop replies go first.
	replyQ       *queue[protocol.Reply]
	estopReplies chan protocol.Reply

	// E-stops the MQTT callbacks received (daemon_estop.go).
	estopSig    chan struct{} // one slot: never blocks a callback
	estopMu     sync.Mutex
	estopOrders []estopOrder

	seq struct{ connection, factsheet, state, tree, status, blackboard, events, metrics, reply atomic.Uint64 }

	droppedEvents   atomic.Uint64
	storageFault    atomic.Bool   // the last event could not be stored
	droppedCommands atomic.Uint64 // commands left without a reply
	retainedCmds    atomic.Uint64 // retained commands ignored
	publishFailures atomic.Uint64

	limiter *tokenBucket
	replies *replyCache
	doing   sync.WaitGroup // Commands.Do calls of the intake (replycache.go)

	// reborn is set while ONLINE is being republished over a stale will
	// (onOwnConnection).
	reborn atomic.Bool

	presenceMu sync.Mutex
	presence   map[string]presence // by ground station id
	presenceCh chan struct{}
	quickDrops atomic.Uint64 // connections closed within LinkGrace (link.go)

	running atomic.Bool
	conn    atomic.Value // Conn, once Run has dialled
}

type presence struct {
	online  bool
	connect uint64 // conn.Connects() when received: older ones are stale
}

// NewDaemon checks the config and opens the outbox.
func NewDaemon(cfg DaemonConfig) (*Daemon, error) {
	topics, err := protocol.NewTopics(cfg.Prefix, cfg.Robot)
	if err != nil {
		return nil, err
	}
	cfg.Prefix = topics.Prefix()
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	ocfg := cfg.Outbox
	ocfg.Dir = filepath.Join(cfg.StateDir, "outbox")
	if ocfg.Logger == nil {
		ocfg.Logger = cfg.Logger
	}
	if ocfg.Clock == nil {
		ocfg.Clock = cfg.Clock
	}
	if ocfg.MaxEvent <= 0 || ocfg.MaxEvent > cfg.MaxPublish {
		ocfg.MaxEvent = cfg.MaxPublish
	}
	ob, err := OpenOutbox(ocfg)
	if err != nil {
		return nil, err
	}
	d := &Daemon{
		cfg:          cfg,
		topics:       topics,
		log:          cfg.Logger.With("component", "telemetry", "robot", cfg.Robot),
		src:          cfg.Source,
		outbox:       ob,
		events:       newQueue[protocol.Event](cfg.EventQueue),
		cmds:         make(chan inboundCmd, cfg.CommandQueue),
		requests:     make(chan struct{}, 1),
		replyQ:       newQueue[protocol.Reply](cfg.ReplyQueue),
		estopReplies: make(chan protocol.Reply, 64),
		estopSig:     make(chan struct{}, 1),
		limiter:      newTokenBucket(cfg.CommandRate, cfg.CommandBurst, cfg.Clock.Now()),
		replies:      newReplyCache(cfg.ReplyCache),
		presence:     map[string]presence{},
		presenceCh:   make(chan struct{}, 1),
	}
	// Resent events keep their numbers; new ones follow them, also after
	// a restart that found the outbox empty.
	d.seq.events.Store(ob.LastSeq())
	if n := ob.Corrupt(); n > 0 {
		d.events.offer(protocol.Event{Kind: "events.corrupt", Level: "warning",
			Message: fmt.Sprintf("%d damaged or oversized event files in the outbox were moved to %s and not published", n, filepath.Join(ocfg.Dir, corruptDir))})
	}
	if why := ob.StateCorrupt(); why != "" {
		d.events.offer(protocol.Event{Kind: "events.state_corrupt", Level: "warning", Data: map[string]any{"boot": ob.Boot()},
			Message: fmt.Sprintf("the outbox state (%s) was damaged (%s) and was moved to %s.corrupt; event numbering starts a new boot (%d)",
				stateFile, protocol.Truncate(why, 200), stateFile, ob.Boot())})
	}
	return d, nil
}

func (d *Daemon) currentConn() transport.Conn {
	c, _ := d.conn.Load().(transport.Conn)
	return c
}

// Topics returns the daemon's topic names.
func (d *Daemon) Topics() protocol.Topics { return d.topics }

// EventSink returns the function the runner reports events to. It never
// blocks: when the queue to the outbox is full the event is dropped and
// counted (metrics dropped.events).
func (d *Daemon) EventSink() EventSink {
	return func(e protocol.Event) {
		if !d.events.offer(e) {
			d.droppedEvents.Add(1)
		}
	}
}

func (d *Daemon) header(seq *atomic.Uint64) protocol.Header {
	return protocol.Header{Robot: d.topics.Robot(), Seq: seq.Add(1), TS: protocol.FormatTS(d.cfg.Clock.Now()), Boot: d.outbox.Boot()}
}

func (d *Daemon) connectionMsg(state string, seq uint64) []byte {
	b, _ := json.Marshal(protocol.ConnectionMsg{
		Header: protocol.Header{Robot: d.topics.Robot(), Seq: seq, TS: protocol.FormatTS(d.cfg.Clock.Now()), Boot: d.outbox.Boot()},
		State:  state,
	})
	return b
}

func (d *Daemon) connOptions() transport.Options {
	o := d.cfg.Conn
	o.Subscriptions = append(append([]transport.Subscription(nil), o.Subscriptions...),
		transport.Subscription{Filter: d.topics.Cmd(), QoS: protocol.QoSReliable, Handler: d.onCommand, Retained: d.onRetainedCommand},
		transport.Subscription{Filter: protocol.GCSStateFilter(d.topics.Prefix()), QoS: protocol.QoSRetained, Handler: d.onPresence},
		// Its own connection topic, for a will published while it is up
		// (the retained value at subscribe time is the old one, which the
		// birth replaces anyway).
		transport.Subscription{Filter: d.topics.Connection(), QoS: protocol.QoSRetained, Handler: d.onOwnConnection, Retained: func(string, []byte) {}},
	)
	// The will is fixed for the client's life; seq 0 says the broker sent it.
	o.Will = &transport.Message{Topic: d.topics.Connection(), Payload: d.connectionMsg(protocol.ConnBroken, 0), QoS: protocol.QoSRetained, Retain: true}
	o.Birth = func() transport.Message {
		return transport.Message{Topic: d.topics.Connection(), Payload: d.connectionMsg(protocol.ConnOnline, d.seq.connection.Add(1)), QoS: protocol.QoSRetained, Retain: true}
	}
	o.Goodbye = func() transport.Message {
		return transport.Message{Topic: d.topics.Connection(), Payload: d.connectionMsg(protocol.ConnOffline, d.seq.connection.Add(1)), QoS: protocol.QoSRetained, Retain: true}
	}
	events := d.topics.Events()
	o.NoResend = func(topic string, retained bool) bool { return retained || topic == events }
	o.Discard = d.topics.Discard()
	if o.Logger == nil {
		o.Logger = d.log
	}
	return o
}

// Run connects and serves until ctx is done, then publishes the final
// state and OFFLINE, disconnects, and returns after its goroutines have
// exited. A Daemon runs once.
func (d *Daemon) Run(ctx context.Context) error {
	if !d.running.CompareAndSwap(false, true) {
		return errors.New("telemetry: daemon already ran")
	}
	conn, err := transport.Dial(d.connOptions())
	if err != nil {
		return err
	}
	d.conn.Store(conn)
	estopConn, err := transport.Dial(d.estopConnOptions())
	if err != nil {
		_ = conn.Close()
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	wg.Go(func() { d.eventLoop(runCtx) })
	wg.Go(func() { _ = d.outbox.Run(runCtx, conn, d.topics.Events()) })
	wg.Go(func() { d.publishLoop(runCtx, conn) })
	wg.Go(func() { d.intakeLoop(runCtx, d.cmds) })
	wg.Go(func() { d.estopLoop(runCtx) })
	wg.Go(func() { d.replyLoop(runCtx, conn) })
	wg.Go(func() { d.linkLoop(runCtx, conn) })
	wg.Go(func() { d.watchConn(runCtx, estopConn, "estop", d.cfg.Conn.ClientID+"-estop") })
	<-ctx.Done()
	wg.Wait()

	up := conn.IsUp()
	if up {
		d.publishState(conn, nil)
	}
	closeErr := conn.Close() // OFFLINE (the goodbye), then a clean DISCONNECT: no will
	// OFFLINE last: should the broker have taken the main connection's
	// end for a broken one after all (its DISCONNECT lost), its
	// CONNECTION_BROKEN came before this; the e-stop connection has no
	// will, so nothing follows. It is the goodbye again, with its seq (a
	// ground station sees a repeat, not a new state).
	offline := false
	if estopConn.IsUp() {
		seq := d.seq.connection.Load()
		if !up {
			seq = d.seq.connection.Add(1) // no goodbye went out
		}
		msg := d.connectionMsg(protocol.ConnOffline, seq)
		if err := estopConn.Publish(d.topics.Connection(), protocol.QoSRetained, true, msg); err != nil {
			d.log.Warn("publishing OFFLINE on the e-stop connection", "err", err)
		} else {
			offline = true
		}
	}
	if err := estopConn.Close(); err != nil {
		d.log.Warn("closing the e-stop connection", "err", err)
	}
	switch {
	case closeErr != nil && !offline:
		d.log.Warn("closing the broker connection", "err", closeErr)
	case up || offline:
		d.log.Info("final state and OFFLINE published; disconnected")
	default:
		d.log.Warn("the broker link was down at shutdown: no OFFLINE published (the broker sends the last will)")
	}
	return nil
}

// eventLoop moves events from the sink's queue into the outbox, what is
// queued together in one batch (one directory sync for up to
// eventBatch events); on the way out it stores what is still queued, so
// it survives the restart.
func (d *Daemon) eventLoop(ctx context.Context) {
	batch := make([]protocol.Event, 0, eventBatch)
	// drain takes what is queued behind the events in batch.
	drain := func() {
		for len(batch) < eventBatch {
			e, ok := d.events.take()
			if !ok {
				return
			}
			batch = append(batch, e)
		}
	}
	for {
		select {
		case <-d.events.wait():
			batch = batch[:0]
			drain()
			if len(batch) > 0 {
				d.storeEvents(batch)
			}
		case <-ctx.Done():
			for {
				batch = batch[:0]
				drain()
				if len(batch) == 0 {
					return
				}
				d.storeEvents(batch)
			}
		}
	}
}

// eventBatch bounds the events stored with one directory sync.
const eventBatch = 64

// storeEvents numbers, encodes and stores events in the outbox; one that
// cannot be stored is sent live and raised as a fault.
func (d *Daemon) storeEvents(events []protocol.Event) {
	pending := make([]OutboxEvent, 0, len(events))
	kinds := make([]string, 0, len(events))
	for _, e := range events {
		if e.Time.IsZero() {
			e.Time = d.cfg.Clock.Now()
		}
		e = boundEvent(e, d.cfg.MaxPublish)
		h := d.header(&d.seq.events)
		b, err := json.Marshal(protocol.EventMsg{Header: h, ID: uuid.NewString(), Event: e})
		if err != nil {
			d.droppedEvents.Add(1)
			d.log.Error("event not encodable, dropped", "kind", e.Kind, "err", err)
			continue
		}
		pending = append(pending, OutboxEvent{Seq: h.Seq, Payload: b})
		kinds = append(kinds, e.Kind)
	}
	if len(pending) == 0 {
		return
	}
	failed := false
	for i, err := range d.outbox.AddBatch(pending) {
		if err == nil {
			continue
		}
		failed = true
		// Not kept: say so where the operator looks, and send it live
		// all the same.
		d.log.Error("event not stored; sending it live", "kind", kinds[i], "seq", pending[i].Seq, "err", err)
		d.cfg.Fault("events.storage", &protocol.StateError{Code: protocol.ErrStorageFailed, Level: "ERROR", Ref: "events",
			Message: fmt.Sprintf("events cannot be stored (%v): sent live, lost if the link is down", err)})
		d.storageFault.Store(true)
		if c := d.currentConn(); c != nil && c.IsUp() {
			if _, err := c.PublishAsync(d.topics.Events(), protocol.QoSReliable, false, pending[i].Payload); err != nil {
				d.log.Warn("event sent live failed", "kind", kinds[i], "err", err)
			}
		}
	}
	if !failed && d.storageFault.Swap(false) {
		d.cfg.Fault("events.storage", nil)
	}
}

// onPresence runs on the MQTT client's goroutine: record and signal.
// onOwnConnection says ONLINE again when a last will of this robot (seq
// 0: the broker sent it) is published while the robot is connected: the
// will of an earlier connection, on a broker node that died. aedes
// publishes a dead node's wills once its peers miss its heartbeats,
// seconds after the robot is back on another node, and the broker would
// keep CONNECTION_BROKEN for a robot that runs. One republish at a time,
// off paho's callback goroutine.
func (d *Daemon) onOwnConnection(_ string, payload []byte) {
	m, err := protocol.DecodeConnection(payload)
	if err != nil || m.State != protocol.ConnBroken || m.Seq != 0 || m.Robot != d.topics.Robot() {
		return
	}
	conn := d.currentConn()
	if conn == nil || !conn.IsUp() || !d.reborn.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer d.reborn.Store(false)
		d.log.Info("a last will of an earlier connection was published while this one is up (a broker node that died): ONLINE again")
		if err := conn.Publish(d.topics.Connection(), protocol.QoSRetained, true, d.connectionMsg(protocol.ConnOnline, d.seq.connection.Add(1))); err != nil {
			d.log.Warn("ONLINE after a stale will not published", "err", err)
		}
	}()
}

func (d *Daemon) onPresence(topic string, payload []byte) {
	gcs, ok := protocol.SplitGCSTopic(d.topics.Prefix(), topic)
	if !ok {
		return
	}
	var online bool
	if len(payload) > 0 { // an empty retained message clears the presence
		m, err := protocol.DecodePresence(payload)
		if err != nil {
			d.log.Debug("bad ground station presence", "gcs", gcs, "err", err)
			return
		}
		online = m.Online
	}
	connects := uint64(1) // Run has not stored the conn yet: its first connection
	if conn := d.currentConn(); conn != nil {
		connects = conn.Connects()
	}
	d.presenceMu.Lock()
	if online {
		d.presence[gcs] = presence{online: online, connect: connects}
	} else {
		// Ground stations have an id per process: forget the ones gone.
		delete(d.presence, gcs)
	}
	d.presenceMu.Unlock()
	select {
	case d.presenceCh <- struct{}{}:
	default:
	}
}

func (d *Daemon) linkState(conn transport.Conn) protocol.LinkState {
	ls := protocol.LinkState{Broker: conn.IsUp()}
	if !ls.Broker {
		if h, ok := conn.(transport.Heard); ok {
			ls.DownSince = h.LastHeard()
		}
		return ls // presence is unknown without the broker
	}
	if cur, ok := conn.(transport.Current); ok {
		ls.URL = cur.Broker()
	}
	now := conn.Connects()
	d.presenceMu.Lock()
	defer d.presenceMu.Unlock()
	for _, p := range d.presence {
		if p.online && p.connect == now {
			ls.GCSOnline = true
			break
		}
	}
	return ls
}

// Metrics returns the current metrics figures (without a header).
func (d *Daemon) Metrics() protocol.MetricsMsg {
	m := protocol.MetricsMsg{
		Tick: d.src.State().Tick,
		Queues: protocol.QueueFigures{
			Events:      d.events.len(),
			Outbox:      d.outbox.Len(),
			OutboxBytes: d.outbox.Bytes(),
			Commands:    len(d.cmds),
		},
		Dropped: protocol.DropFigures{
			Events:   d.droppedEvents.Load(),
			Outbox:   d.outbox.Dropped(),
			Commands: d.droppedCommands.Load(),
			Publish:  d.publishFailures.Load(),
			Retained: d.retainedCmds.Load(),
		},
	}
	if conn := d.currentConn(); conn != nil {
		m.Link = d.linkState(conn)
		if n := conn.Connects(); n > 1 {
			m.Reconnects = n - 1
		}
	}
	return m
}

// encode is v's JSON, unless it cannot be encoded or is larger than
// MaxPublish (logged and counted, never sent).
func (d *Daemon) encode(topic string, v any) ([]byte, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		d.publishFailures.Add(1)
		d.log.Error("encoding", "topic", topic, "err", err)
		return nil, false
	}
	if len(b) > d.cfg.MaxPublish {
		d.publishFailures.Add(1)
		d.log.Error("message too large to publish; not sent", "topic", topic, "bytes", len(b), "max", d.cfg.MaxPublish)
		return nil, false
	}
	return b, true
}

func (d *Daemon) publishJSON(conn transport.Conn, topic string, qos byte, retain bool, v any) {
	b, ok := d.encode(topic, v)
	if !ok {
		return
	}
	if err := conn.Publish(topic, qos, retain, b); err != nil {
		d.publishFailures.Add(1)
		d.log.Debug("publish", "topic", topic, "err", fmt.Sprint(err))
	}
}
