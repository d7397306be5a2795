package transport

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// Conn is the small MQTT client interface the daemon and the ground
// station use, so that paho v1.5.1 can be swapped for another client.
//
// Nothing is queued while the link is down: publishing then fails at once
// with ErrNotConnected, and each caller resends what it needs after the
// reconnect (the outbox its events, the daemon its retained snapshot).
type Conn interface {
	// Publish hands the message to the broker and waits for the
	// acknowledgement (QoS 1) or the write (QoS 0), never longer than
	// the publish timeout.
	Publish(topic string, qos byte, retain bool, payload []byte) error
	// PublishAsync starts a publish and returns at once.
	PublishAsync(topic string, qos byte, retain bool, payload []byte) (Delivery, error)
	// Subscribe registers h for filter now (when up) and again on every
	// (re)connect. h runs on the client's goroutine: it must not block.
	Subscribe(filter string, qos byte, h Handler) error
	// Unsubscribe forgets filter.
	Unsubscribe(filter string) error
	// IsUp reports whether the connection is open and its subscriptions
	// and birth message are in place.
	IsUp() bool
	// LinkChanged returns a channel closed at the next change of IsUp.
	// Take the channel before reading IsUp so no change is missed.
	LinkChanged() <-chan struct{}
	// Connects counts successful connections (1 after the first).
	Connects() uint64
	// Close publishes the goodbye message (when up) and disconnects.
	Close() error
}

// Handler receives one message; it must not block.
type Handler func(topic string, payload []byte)

// Delivery tracks one PublishAsync.
type Delivery interface {
	// Done is closed when the client is finished with the message.
	Done() <-chan struct{}
	// Acked reports whether the broker acknowledged the message on the
	// connection it was sent on. paho completes a token without error
	// when it resends the message after a reconnect; that does not count.
	Acked() bool
}

// Message is a message to publish.
type Message struct {
	Topic   string
	Payload []byte
	QoS     byte
	Retain  bool
}

var (
	ErrNotConnected = errors.New("transport: not connected to the broker")
	ErrTimeout      = errors.New("transport: publish timed out")
	ErrClosed       = errors.New("transport: connection closed")
)

// pahoConn implements Conn over paho.mqtt.golang v1.5.1.
type pahoConn struct {
	opts   Options
	store  *resendFilter
	client paho.Client
	log    *slog.Logger

	dialGen  atomic.Uint64 // +1 for every network connection paho opens
	readyGen atomic.Uint64 // dialGen whose OnConnect work is complete
	connects atomic.Uint64
	// delayNext arms ReconnectDelay for the next loss (set by every
	// connection, taken by the first reconnect attempt after it).
	delayNext atomic.Bool
	closing   atomic.Bool // Close has begun: no more birth messages
	closed    atomic.Bool
	heard     atomic.Int64 // unix ns the broker last sent anything (heardConn)
	linger    atomic.Int64 // ns a closing socket waits for the broker's close (heardConn)
	dialing   atomic.Value // string: the broker URL last dialled
	broker    atomic.Value // string: the broker URL of the current connection

	mu      sync.Mutex
	subs    map[string]subscription
	changed chan struct{}

	onConnMu  sync.Mutex // one OnConnect at a time
	closeOnce sync.Once
}

type subscription struct {
	qos      byte
	h        Handler
	retained Handler // nil: Handler takes retained messages too
}

// Dial creates a client and starts connecting in the background (it
// retries until the broker answers); watch IsUp and LinkChanged.
func Dial(opts Options) (Conn, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	po, err := opts.paho()
	if err != nil {
		return nil, err
	}
	c := &pahoConn{opts: opts, log: opts.Logger, subs: map[string]subscription{}, changed: make(chan struct{})}
	for _, s := range opts.Subscriptions {
		c.subs[s.Filter] = subscription{qos: s.QoS, h: s.Handler, retained: s.Retained}
	}
	po.SetOnConnectHandler(c.onConnect)
	po.SetConnectionLostHandler(func(_ paho.Client, err error) {
		c.log.Warn("mqtt connection lost", "err", err)
		c.signal()
	})
	po.SetReconnectingHandler(func(paho.Client, *paho.ClientOptions) {
		if opts.ReconnectDelay > 0 && c.delayNext.CompareAndSwap(true, false) {
			time.Sleep(opts.ReconnectDelay)
		}
	})
	po.SetCustomOpenConnectionFn(c.open)
	po.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) {
		// Redelivered before a subscription was restored; acked and dropped.
		c.log.Debug("mqtt message without a subscription", "topic", m.Topic())
	})
	c.store = &resendFilter{
		Store:    paho.NewOrderedMemoryStore(),
		discard:  opts.Discard,
		noResend: opts.NoResend,
	}
	po.SetStore(c.store)
	c.client = paho.NewClient(po)
	c.client.Connect() // ConnectRetry: completes on the first connection; not waited for
	return c, nil
}

// open dials the broker; counting here, synchronously before paho
// resends anything on the new connection, is what lets Delivery.Acked
// tell a real acknowledgement from a token completed by a reconnect.
func (c *pahoConn) open(u *url.URL, o paho.ClientOptions) (net.Conn, error) {
	c.store.disarm()
	c.dialGen.Add(1)
	c.dialing.Store(u.Redacted())
	conn, err := dialURL(u, o)
	if err != nil {
		return nil, err
	}
	conn = &heardConn{Conn: conn, at: &c.heard, linger: &c.linger}
	if c.opts.WrapConn != nil {
		return c.opts.WrapConn(conn)
	}
	return conn, nil
}

// heardConn records when the broker last sent anything (a PINGRESP
// included): a silent broker's last contact, which a link-loss timer
// measures from, is earlier than the moment the client notices it.
//
// Its Close after a DISCONNECT is a lingering close: it reads until the
// broker closes its end (or the linger time runs out) and only then
// closes. A socket closed with unread bytes in its receive buffer (a
// message the broker sent a moment before) is reset, not closed, and a
// reset can throw away the DISCONNECT the broker has not read yet: the
// broker then ends the client with an error and sends its last will
// after a clean goodbye.
type heardConn struct {
	net.Conn
	at     *atomic.Int64
	linger *atomic.Int64
}

func (h *heardConn) Close() error {
	if d := time.Duration(h.linger.Load()); d > 0 {
		if cw, ok := h.Conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		if h.Conn.SetReadDeadline(time.Now().Add(d)) == nil {
			var buf [512]byte
			for {
				if _, err := h.Conn.Read(buf[:]); err != nil {
					break
				}
			}
		}
	}
	return h.Conn.Close()
}

func (h *heardConn) Read(b []byte) (int, error) {
	n, err := h.Conn.Read(b)
	if n > 0 {
		h.at.Store(time.Now().UnixNano())
	}
	return n, err
}

// LastHeard is when the broker last sent anything on any connection (zero:
// never).
func (c *pahoConn) LastHeard() time.Time {
	if ns := c.heard.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Heard is a Conn that knows when the broker last sent anything.
type Heard interface{ LastHeard() time.Time }

var _ Heard = (*pahoConn)(nil)

// Current is a Conn that knows which of its brokers it is connected to.
type Current interface {
	// Broker is the URL of the broker of the current (or last)
	// connection, without a password; "" before the first.
	Broker() string
}

var _ Current = (*pahoConn)(nil)

func (c *pahoConn) Broker() string {
	s, _ := c.broker.Load().(string)
	return s
}

func (c *pahoConn) onConnect(cl paho.Client) {
	c.delayNext.Store(true)
	c.onConnMu.Lock()
	defer c.onConnMu.Unlock()
	gen := c.dialGen.Load()
	// paho dials the list in order and connects on the first that
	// answers: the URL dialled last is the one connected.
	b, _ := c.dialing.Load().(string)
	c.broker.Store(b)
	c.connects.Add(1)
	c.log.Info("mqtt connected", "connection", gen, "broker", b)

	c.mu.Lock()
	subs := make(map[string]subscription, len(c.subs))
	for f, s := range c.subs {
		subs[f] = s
	}
	c.mu.Unlock()
	// CleanSession: the broker forgot our subscriptions and paho does not
	// restore them.
	for f, s := range subs {
		if err := c.subscribe(cl, f, s); err != nil {
			c.log.Warn("mqtt resubscribe", "filter", f, "err", err)
		}
	}
	if c.opts.Birth != nil && !c.closing.Load() {
		m := c.opts.Birth()
		if err := c.wait(cl.Publish(m.Topic, m.QoS, m.Retain, m.Payload)); err != nil {
			c.log.Warn("mqtt birth message", "topic", m.Topic, "err", err)
		}
	}
	if c.dialGen.Load() == gen && cl.IsConnectionOpen() {
		c.readyGen.Store(gen)
	}
	c.signal()
}

func wrapHandler(s subscription) paho.MessageHandler {
	return func(_ paho.Client, m paho.Message) {
		if s.retained != nil && m.Retained() {
			s.retained(m.Topic(), m.Payload())
			return
		}
		s.h(m.Topic(), m.Payload())
	}
}

func (c *pahoConn) wait(t paho.Token) error {
	if !t.WaitTimeout(c.opts.PublishTimeout) {
		return ErrTimeout
	}
	return t.Error()
}

func (c *pahoConn) signal() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *pahoConn) LinkChanged() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

func (c *pahoConn) IsUp() bool {
	// IsConnected is also true while paho is reconnecting.
	return !c.closed.Load() && c.client.IsConnectionOpen() && c.readyGen.Load() == c.dialGen.Load()
}

func (c *pahoConn) Connects() uint64 { return c.connects.Load() }

func (c *pahoConn) Publish(topic string, qos byte, retain bool, payload []byte) error {
	start := time.Now()
	d, err := c.PublishAsync(topic, qos, retain, payload) // may wait up to the write timeout
	if err != nil {
		return err
	}
	left := c.opts.PublishTimeout - time.Since(start)
	if !d.(*delivery).tok.WaitTimeout(max(left, time.Millisecond)) {
		return ErrTimeout
	}
	return d.(*delivery).tok.Error()
}

func (c *pahoConn) PublishAsync(topic string, qos byte, retain bool, payload []byte) (Delivery, error) {
	gen := c.dialGen.Load() // before IsUp: a reconnect in between makes Acked false
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if !c.IsUp() {
		return nil, ErrNotConnected
	}
	return &delivery{tok: c.client.Publish(topic, qos, retain, payload), gen: gen, c: c}, nil
}

type delivery struct {
	tok paho.Token
	gen uint64
	c   *pahoConn
}

func (d *delivery) Done() <-chan struct{} { return d.tok.Done() }

func (d *delivery) Acked() bool {
	select {
	case <-d.tok.Done():
	default:
		return false
	}
	return d.tok.Error() == nil && d.c.dialGen.Load() == d.gen && d.c.client.IsConnectionOpen()
}

func (c *pahoConn) Subscribe(filter string, qos byte, h Handler) error {
	if c.closed.Load() {
		return ErrClosed
	}
	c.mu.Lock()
	c.subs[filter] = subscription{qos: qos, h: h}
	c.mu.Unlock()
	if !c.client.IsConnectionOpen() {
		return nil // OnConnect subscribes
	}
	return c.subscribe(c.client, filter, subscription{qos: qos, h: h})
}

// subackInUse is the SUBACK code of a refused packet id (MQTT 5's 0x91).
const subackInUse = 0x91

// subscribe subscribes and checks the SUBACK, which paho reports only in
// the token's result, not as an error. mochi v2.7.9 (the embedded broker)
// refuses a SUBSCRIBE whose packet id equals the id of one of its own
// unacknowledged messages to this client (0x91), although each side of an
// MQTT connection numbers its packets independently: the retained
// messages of one subscription then make the next one fail, silently. A
// retry goes out with another packet id.
func (c *pahoConn) subscribe(cl paho.Client, filter string, s subscription) error {
	var err error
	for range 8 {
		qos := s.qos
		if c.opts.SubscribeAtMostOnce {
			qos = 0
		}
		t := cl.Subscribe(filter, qos, wrapHandler(s))
		if err = c.wait(t); err != nil {
			return err
		}
		code, ok := byte(0), false
		if st, isSub := t.(*paho.SubscribeToken); isSub {
			for _, v := range st.Result() { // one filter per SUBSCRIBE
				code, ok = v, true
			}
		}
		if !ok || code <= 2 {
			return nil
		}
		err = fmt.Errorf("transport: the broker refused the subscription to %s (code 0x%02x)", filter, code)
		if code != subackInUse {
			return err
		}
		c.log.Debug("mqtt subscribe: packet id in use; retrying", "filter", filter)
	}
	return err
}

func (c *pahoConn) Unsubscribe(filter string) error {
	c.mu.Lock()
	delete(c.subs, filter)
	c.mu.Unlock()
	if !c.client.IsConnectionOpen() {
		return nil
	}
	return c.wait(c.client.Unsubscribe(filter))
}

// Close publishes the goodbye message first (a clean disconnect discards
// the last will, so without it the retained state would stay ONLINE).
func (c *pahoConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		// A birth being published now must not follow the goodbye.
		c.onConnMu.Lock()
		defer c.onConnMu.Unlock()
		// Nothing may arrive once the DISCONNECT is on its way: a broker
		// that writes to the socket this client is about to close ends
		// the client with a write error before it reads the DISCONNECT,
		// and sends the last will after the goodbye (mochi does). The
		// UNSUBACK comes after every message already queued for us.
		if c.IsUp() {
			c.mu.Lock()
			filters := slices.Collect(maps.Keys(c.subs))
			c.mu.Unlock()
			if len(filters) > 0 {
				if uerr := c.wait(c.client.Unsubscribe(filters...)); uerr != nil {
					c.log.Debug("mqtt unsubscribe before the goodbye", "err", uerr)
				}
			}
		}
		if c.opts.Goodbye != nil && c.IsUp() {
			m := c.opts.Goodbye()
			if err = c.Publish(m.Topic, m.QoS, m.Retain, m.Payload); err != nil {
				err = fmt.Errorf("goodbye message: %w", err)
			}
		}
		c.closed.Store(true)
		c.linger.Store(int64(c.opts.PublishTimeout))
		// DISCONNECT is what makes the broker discard the last will: wait
		// until it is written (paho returns as soon as it is), not a fixed
		// quarter second that a busy machine can overrun, closing the
		// socket first and so firing the will after the goodbye.
		c.client.Disconnect(uint(c.opts.PublishTimeout.Milliseconds()))
		c.signal()
	})
	return err
}
