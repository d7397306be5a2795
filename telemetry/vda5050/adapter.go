package vda5050

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// Runner is what the adapter needs of botd's mission runner: it commands
// it like a ground station, and reads its state.
type Runner interface {
	Do(ctx context.Context, c protocol.Command) protocol.Reply
	State() protocol.State
	Blackboard() []protocol.BlackboardValue
}

// Options configure an Adapter.
type Options struct {
	Config Config // defaults filled and validated by the caller
	// Conn carries the broker URLs, the client id and the credentials;
	// the adapter sets the will, the birth, the goodbye and its
	// subscriptions.
	Conn   transport.Options
	Runner Runner
	// Reading returns a sensor reading (the pose: Config.PoseKey.x, ...).
	Reading func(key string) (float64, time.Time, bool)
	// Factsheet describes the robot (speeds, size); the adapter fills in
	// the header, the protocol limits and features.
	Factsheet FactsheetInfo
	// MaxPayload is the largest order or instantActions message read
	// [256 KiB]; a larger one is refused unread.
	MaxPayload int
	Logger     *slog.Logger
	// SetPose sets the robot's pose (x, y in metres on Config.MapID,
	// theta in rad) for the initPosition instant action; nil when the
	// robot's pose source cannot be set (initPosition then FAILS, saying
	// so).
	SetPose func(x, y, theta float64) error
	// Now is the clock (tests); Dial opens the connection (tests).
	Now  func() time.Time
	Dial func(transport.Options) (transport.Conn, error)
	// Poll is how often the runner's state is read [100ms].
	Poll time.Duration
}

// Adapter speaks VDA 5050 for one robot. Run owns everything it holds;
// the MQTT handlers only queue what arrives.
type Adapter struct {
	o      Options
	cfg    *Config
	log    *slog.Logger
	topics topics
	conn   transport.Conn
	inbox  chan inbound
	// dropped counts messages refused at the door (too large, queue
	// full, retained), each reported by Run as a state error.
	dropped  atomic.Uint64
	doorErrs chan Error
	headers  [nHeaders]atomic.Uint32 // per topic

	// Owned by Run's goroutine.
	run       *orderRun
	errs      []Error
	instant   []ActionState
	lastState string
	lastSent  time.Time
	connects  uint64
	pose      poseTracker
	loadCount int
	savedMark runMark // the run as last saved to Config.StateFile
	// opened is the last blackboard snapshot's keyOpened values, by
	// an action's place in its step.
	opened map[int]int
	// headerRes is, per topic, the headerId up to which ids are reserved
	// in Config.StateFile: after a restart (or a crash) the counts go on
	// from there, so headerIds keep increasing.
	headerRes [nHeaders]uint32
	ctx       context.Context // Run's, for the commands observe sends
}

type inbound struct {
	topic   string
	payload []byte
}

type topics struct {
	order, instantActions, state, visualization, connection, factsheet string
}

// Header indices (headerIds count per topic).
const (
	hState = iota
	hVisualization
	hConnection
	hFactsheet
	nHeaders
)

// headerBlock is how many headerIds per topic are reserved in the state
// file at a time; a new reservation is written when half of one is used
// (at 10 messages a second, every 51 s), so a restart skips at most one
// block.
const headerBlock = 1024

// maxErrors bounds state.errors: the newest are kept.
const (
	maxErrors  = 16
	maxInstant = 32
	queueLen   = 16
)

// New checks the options and builds the adapter; Run connects.
func New(o Options) (*Adapter, error) {
	if o.Runner == nil || o.Reading == nil {
		return nil, errors.New("vda5050: Runner and Reading are required")
	}
	if o.MaxPayload <= 0 {
		o.MaxPayload = 256 << 10
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Dial == nil {
		o.Dial = transport.Dial
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	a := &Adapter{o: o, cfg: &o.Config, log: o.Logger, inbox: make(chan inbound, queueLen), doorErrs: make(chan Error, queueLen)}
	root := strings.Join([]string{a.cfg.Interface, "v" + strings.Split(Version, ".")[0], a.cfg.Manufacturer, a.cfg.SerialNumber}, "/") + "/"
	a.topics = topics{order: root + "order", instantActions: root + "instantActions", state: root + "state",
		visualization: root + "visualization", connection: root + "connection", factsheet: root + "factsheet"}
	return a, nil
}

// Topics returns the topic of each kind, by name (order, state, ...).
func (a *Adapter) Topics() map[string]string {
	t := a.topics
	return map[string]string{"order": t.order, "instantActions": t.instantActions, "state": t.state,
		"visualization": t.visualization, "connection": t.connection, "factsheet": t.factsheet}
}

func (a *Adapter) header(topic int) Header {
	return Header{HeaderID: a.headers[topic].Add(1) - 1, Timestamp: a.timestamp(), Version: Version,
		Manufacturer: a.cfg.Manufacturer, SerialNumber: a.cfg.SerialNumber}
}

// timestamp is ISO 8601 UTC with milliseconds.
func (a *Adapter) timestamp() string {
	return a.o.Now().UTC().Format("2006-01-02T15:04:05.000Z")
}

func (a *Adapter) connection(state string) transport.Message {
	b, _ := json.Marshal(Connection{Header: a.header(hConnection), ConnectionState: state})
	return transport.Message{Topic: a.topics.connection, Payload: b, QoS: 1, Retain: true}
}

// Run connects and serves until ctx is done, then publishes OFFLINE and
// disconnects. It never commands the runner after ctx is done.
func (a *Adapter) Run(ctx context.Context) error {
	a.ctx = ctx
	a.loadSaved()
	a.save() // reserves the headerIds before the first message (the will)
	opts := a.o.Conn
	will := a.connection("CONNECTIONBROKEN")
	opts.Will = &will
	opts.Birth = func() transport.Message { return a.connection("ONLINE") }
	opts.Goodbye = func() transport.Message { return a.connection("OFFLINE") }
	opts.Subscriptions = []transport.Subscription{
		{Filter: a.topics.order, QoS: 0, Handler: a.receive, Retained: a.retained},
		{Filter: a.topics.instantActions, QoS: 0, Handler: a.receive, Retained: a.retained},
	}
	if opts.Logger == nil {
		opts.Logger = a.log
	}
	conn, err := a.o.Dial(opts)
	if err != nil {
		return fmt.Errorf("vda5050: %w", err)
	}
	a.conn = conn
	defer conn.Close()
	poll := time.NewTicker(a.o.Poll)
	defer poll.Stop()
	vis := time.NewTicker(time.Duration(float64(time.Second) / a.cfg.VisualizationHz))
	defer vis.Stop()
	for {
		select {
		case <-ctx.Done():
			a.observe()
			a.save()
			a.publishState(true)
			return nil
		case m := <-a.inbox:
			a.handle(ctx, m)
			a.observe()
			a.save()
			a.publishState(false)
		case e := <-a.doorErrs:
			a.addError(e)
			a.publishState(false)
		case <-poll.C:
			if n := conn.Connects(); n != a.connects && conn.IsUp() {
				a.connects = n
				a.publishFactsheet()
				a.publishState(true)
			}
			a.observe()
			a.save()
			a.publishState(false)
		case <-vis.C:
			a.publishVisualization()
		}
	}
}

// receive queues a message for Run, refusing what is too large or what
// finds the queue full (each a state error): it never blocks the MQTT
// client.
func (a *Adapter) receive(topic string, payload []byte) {
	if len(payload) > a.o.MaxPayload {
		a.door(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{{"topic", a.kind(topic)}},
			ErrorDescription: fmt.Sprintf("a %d-byte message: this robot reads at most %d bytes", len(payload), a.o.MaxPayload)})
		return
	}
	select {
	case a.inbox <- inbound{topic: topic, payload: payload}:
	default:
		a.door(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{{"topic", a.kind(topic)}},
			ErrorDescription: "messages arrive faster than the robot takes them: one was dropped unread"})
	}
}

// retained refuses an order or instant action the broker kept: it was
// sent to whichever vehicle came by, at some time in the past.
func (a *Adapter) retained(topic string, payload []byte) {
	if len(payload) == 0 {
		return
	}
	a.door(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{{"topic", a.kind(topic)}},
		ErrorDescription: "a retained message was not executed: clear it (an empty retained message) and send it unretained"})
}

func (a *Adapter) door(e Error) {
	a.dropped.Add(1)
	select {
	case a.doorErrs <- e:
	default: // already reporting a burst of them
	}
}

func (a *Adapter) kind(topic string) string {
	return topic[strings.LastIndexByte(topic, '/')+1:]
}

// addError keeps the newest errors, replacing an identical one.
func (a *Adapter) addError(e Error) {
	for i, old := range a.errs {
		if old.ErrorType == e.ErrorType && old.ErrorDescription == e.ErrorDescription {
			a.errs = append(a.errs[:i], a.errs[i+1:]...)
			break
		}
	}
	a.errs = append(a.errs, e)
	if len(a.errs) > maxErrors {
		a.errs = a.errs[len(a.errs)-maxErrors:]
	}
	a.log.Warn("vda5050: refused", "type", e.ErrorType, "why", e.ErrorDescription)
}

// clearOrderErrors drops the errors about orders (a new order was
// accepted).
func (a *Adapter) clearOrderErrors() {
	kept := a.errs[:0]
	for _, e := range a.errs {
		if !hasRef(e, "topic", "order") {
			kept = append(kept, e)
		}
	}
	a.errs = kept
}

func hasRef(e Error, k, v string) bool {
	for _, r := range e.ErrorReferences {
		if r.ReferenceKey == k && r.ReferenceValue == v {
			return true
		}
	}
	return false
}

func (a *Adapter) publish(topic string, retain bool, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		a.log.Error("vda5050: encoding", "topic", topic, "err", err)
		return
	}
	if a.conn == nil || !a.conn.IsUp() {
		return // the state goes out again after the reconnect
	}
	if _, err := a.conn.PublishAsync(topic, 0, retain, b); err != nil {
		a.log.Debug("vda5050: publish", "topic", topic, "err", err)
	}
}
