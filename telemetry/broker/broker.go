package broker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/botd-project/botd/internal/ratelog"
)

// DefaultBrokerAddr is where the embedded broker listens by default.
const DefaultBrokerAddr = "127.0.0.1:1883"

// Config configures the embedded broker.
type Config struct {
	// Addr is host:port; port 0 picks a free one (see Broker.Addr).
	Addr string
	// Credentials is a file of "user:password" lines (# starts a
	// comment). Required when Addr is not a loopback address; when set,
	// every client must present one of them.
	Credentials string
	// TLS, when set, makes the listener speak TLS only.
	TLS *tls.Config
	// Logger receives the broker's log; nil discards it (mochi would
	// otherwise write text to stdout).
	Logger *slog.Logger

	// MaxPacketBytes refuses larger packets from the fixed header on,
	// before their body is read [2 MiB].
	MaxPacketBytes int
	// MaxClients bounds the connections at once [1000].
	MaxClients int

	// MaxQueueBytes bounds the bytes waiting to be sent to one client,
	// and, separately, those sent at QoS 1 or 2 and not yet acknowledged
	// [32 MiB, and at least MaxPacketBytes + 64 KiB]: a client that lets
	// more wait (it does not read, or does not acknowledge, what it
	// subscribed to) is disconnected. A client that subscribes to many
	// retained messages at once gets them all queued: 1,000 robots'
	// factsheets are about 25 MB.
	MaxQueueBytes int
	// MaxQueueMessages bounds the number of messages waiting to be sent to
	// one client [1,024]; past it the broker drops what does not fit for
	// that client. A ground station that subscribes to a fleet's retained
	// topics (connection, state and factsheet) is sent about three a
	// robot at once: a fleet's broker needs more than a robot's.
	MaxQueueMessages int
	// MaxTotalQueueBytes bounds the same for all the clients together
	// [64 MiB, and at least MaxQueueBytes]: past it the client with the
	// most waiting is disconnected.
	MaxTotalQueueBytes int
	// MaxOwnQueueBytes bounds the bytes waiting to be sent to one of the
	// daemon's own connections (Identity), which are never disconnected:
	// a message that does not fit is shed and counted instead
	// (Broker.OwnShed; ownq.go) [1 MiB, at least 64 KiB]. With it, what
	// the broker holds for the daemon under a command flood is this
	// bound, not mochi's 1,024 messages of up to MaxPacketBytes.
	MaxOwnQueueBytes int

	// DrainTimeout bounds how long Close waits for connected clients to
	// receive what is queued for them [2 s].
	DrainTimeout time.Duration

	// Identity, when set, reserves the daemon's client ids for the
	// connections that present its secret (see Identity).
	Identity *Identity

	// Hooks are extra mochi hooks (tests use them to drop packets).
	Hooks []mqtt.Hook
}

// MaxPacketBytes is the largest MQTT packet: a 5-byte fixed header and
// the largest remaining length (268,435,455).
const MaxPacketBytes = 5 + 268_435_455

// Broker is the embedded MQTT broker (mochi-mqtt), in memory only: a
// restart forgets retained messages and sessions, and every client
// republishes its retained topics when it reconnects.
type Broker struct {
	srv  *mqtt.Server
	ln   *guardedListener
	addr string
	tls  bool
	stop func() bool // unhooks the ctx watcher
	once sync.Once
	// drain bounds Close's wait for queued deliveries.
	drain  time.Duration
	fanout *fanoutHook
	ident  *identityHook // nil without Config.Identity
	// inflight bounds what waits for acknowledgement.
	inflight *inflightHook
	// queued bounds what waits in mochi's queues.
	queued *queuedHook
}

// Start starts the broker; it serves until Close or until ctx is
// done.
func Start(ctx context.Context, cfg Config) (*Broker, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultBrokerAddr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxPacketBytes <= 0 {
		cfg.MaxPacketBytes = 2 << 20
	}
	// Past MQTT's largest packet a limit means nothing, and past 32 bits
	// it would wrap in mochi's uint32 (and the queue bounds below in a
	// 32-bit int): an error, not a smaller limit.
	if cfg.MaxPacketBytes > MaxPacketBytes {
		return nil, fmt.Errorf("broker: max packet bytes %d: at most %d (MQTT's largest packet)", cfg.MaxPacketBytes, MaxPacketBytes)
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 1000
	}
	if cfg.MaxQueueBytes <= 0 {
		cfg.MaxQueueBytes = 32 << 20
	}
	if cfg.MaxQueueMessages <= 0 {
		cfg.MaxQueueMessages = 1024
	}
	cfg.MaxQueueMessages = min(cfg.MaxQueueMessages, 1<<20)
	cfg.MaxQueueBytes = max(cfg.MaxQueueBytes, cfg.MaxPacketBytes+64<<10)
	if cfg.MaxTotalQueueBytes <= 0 {
		cfg.MaxTotalQueueBytes = 64 << 20
	}
	cfg.MaxTotalQueueBytes = max(cfg.MaxTotalQueueBytes, cfg.MaxQueueBytes)
	if cfg.MaxOwnQueueBytes <= 0 {
		cfg.MaxOwnQueueBytes = 1 << 20
	}
	cfg.MaxOwnQueueBytes = max(cfg.MaxOwnQueueBytes, 64<<10)
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 2 * time.Second
	}
	loopback, err := isLoopback(cfg.Addr)
	if err != nil {
		return nil, err
	}
	var users map[string]string
	if cfg.Credentials != "" {
		if users, err = readCredentials(cfg.Credentials); err != nil {
			return nil, err
		}
	} else if !loopback {
		return nil, fmt.Errorf("broker on %s: credentials are required off loopback", cfg.Addr)
	}

	caps := mqtt.NewDefaultServerCapabilities() // a partial Capabilities zeroes the rest
	caps.MaximumMessageExpiryInterval = 0       // retained connection/factsheet must never expire
	// Bounded input: a packet over the limit is refused at its fixed
	// header, before its body is buffered; a stalled subscriber holds at
	// most MaxQueueMessages queued messages; sessions of clients that left are kept
	// an hour, not forever.
	caps.MaximumPacketSize = uint32(cfg.MaxPacketBytes)
	caps.MaximumClients = int64(cfg.MaxClients)
	caps.MaximumClientWritesPending = int32(cfg.MaxQueueMessages)
	caps.MaximumSessionExpiryInterval = 3600
	// Repeated lines are counted, not written (a stalled subscriber makes
	// mochi warn once per message it cannot deliver).
	log := slog.New(quietEnds{ratelog.New(cfg.Logger.Handler(), 0, 0)}).With("component", "broker")
	srv := mqtt.New(&mqtt.Options{
		Capabilities: caps,
		Logger:       log,
		InlineClient: false,
	})
	// First: it refuses a reserved id before any other hook admits it.
	var ident *identityHook
	if cfg.Identity != nil {
		ident = &identityHook{id: *cfg.Identity, srv: srv, log: log}
		if err := srv.AddHook(ident, nil); err != nil {
			return nil, fmt.Errorf("broker identity: %w", err)
		}
	}
	if err := srv.AddHook(&passwordHook{users: users}, nil); err != nil {
		return nil, fmt.Errorf("broker auth: %w", err)
	}
	for _, h := range cfg.Hooks {
		if err := srv.AddHook(h, nil); err != nil {
			return nil, fmt.Errorf("broker hook: %w", err)
		}
	}
	inflight := newInflightHook(int64(cfg.MaxQueueBytes), int64(cfg.MaxTotalQueueBytes), srv.Clients, ident.owns, log)
	if ident != nil {
		ident.inflight = inflight
	}
	if err := srv.AddHook(inflight, nil); err != nil {
		return nil, fmt.Errorf("broker hook: %w", err)
	}
	// Next to last, so it counts only publishes every other hook let
	// through.
	fanout := &fanoutHook{}
	if err := srv.AddHook(fanout, nil); err != nil {
		return nil, fmt.Errorf("broker hook: %w", err)
	}
	// Last, so it counts only publishes every other hook let through,
	// and after fanout, which counts (and mochi's OnPublished uncounts)
	// a publish this one sheds; its listener is set below, before the
	// broker serves.
	queued := newQueuedHook(srv, nil, ident.owns, log)
	if err := srv.AddHook(queued, nil); err != nil {
		return nil, fmt.Errorf("broker hook: %w", err)
	}
	nl, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("broker listen on %s: %w", cfg.Addr, err)
	}
	if cfg.TLS != nil {
		nl = tls.NewListener(nl, cfg.TLS)
	}
	gl := newGuardedListener(nl, cfg.MaxQueueBytes, int64(cfg.MaxTotalQueueBytes), func(c net.Conn) {
		log.Warn("client disconnected: it does not read what it subscribed to", "remote", c.RemoteAddr().String(), "max_queue_bytes", cfg.MaxQueueBytes)
	})
	queued.ln = gl
	gl.ownLimit = cfg.MaxOwnQueueBytes
	gl.onShed = func() {
		log.Warn("message to the robot's own connection shed: it does not read as fast as it gets messages", "max_own_queue_bytes", cfg.MaxOwnQueueBytes)
	}
	if err := srv.AddListener(listeners.NewNet("botd", gl)); err != nil {
		_ = nl.Close()
		return nil, fmt.Errorf("broker listener: %w", err)
	}
	if err := srv.Serve(); err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	b := &Broker{srv: srv, ln: gl, addr: nl.Addr().String(), tls: cfg.TLS != nil, drain: cfg.DrainTimeout, fanout: fanout, ident: ident, inflight: inflight, queued: queued}
	b.stop = context.AfterFunc(ctx, func() { _ = b.Close() })
	return b, nil
}

// RefusedIDs counts the clients refused because they asked for a client
// id reserved by Config.Identity.
func (b *Broker) RefusedIDs() int64 {
	if b.ident == nil {
		return 0
	}
	return b.ident.refused.Load()
}

// QueuedBytes is what waits to be sent to the clients, in bytes (each
// client's at most Config.MaxQueueBytes): in their send queues, and in
// mochi's queues but for the daemon's own connections'.
func (b *Broker) QueuedBytes() int64 { return b.ln.queued.Load() + b.queued.bytes() }

// InflightBytes is what was sent at QoS 1 or 2 and waits for the clients'
// acknowledgement, in bytes (each client's at most Config.MaxQueueBytes).
func (b *Broker) InflightBytes() int64 { return b.inflight.bytes() }

// Clients are the ids of the clients connected now.
func (b *Broker) Clients() []string {
	var ids []string
	for _, cl := range b.srv.Clients.GetAll() {
		if !cl.Closed() {
			ids = append(ids, cl.ID)
		}
	}
	return ids
}

// OwnShed counts the messages shed for the daemon's own connections
// because more than Config.MaxOwnQueueBytes waited for them.
func (b *Broker) OwnShed() int64 { return b.ln.ownShed.Load() }

// MaxOwnQueueBytes is the bound for one of the daemon's own connections
// (Config.MaxOwnQueueBytes after its defaults).
func (b *Broker) MaxOwnQueueBytes() int { return b.ln.ownLimit }

// MaxQueueBytes is the bound on the bytes waiting for one client
// (Config.MaxQueueBytes after its defaults).
func (b *Broker) MaxQueueBytes() int { return b.ln.queueLimit }

// MaxTotalQueueBytes is the bound for all the clients together
// (Config.MaxTotalQueueBytes after its defaults).
func (b *Broker) MaxTotalQueueBytes() int64 { return b.ln.totalLimit }

// SlowConsumers counts the clients disconnected because more than
// Config.MaxQueueBytes waited to be sent to them, or to be acknowledged.
func (b *Broker) SlowConsumers() int64 { return b.ln.slow.Load() + b.inflight.slow.Load() }

// Addr is the address the broker listens on (with the real port).
func (b *Broker) Addr() string { return b.addr }

// URL is a client URL for the broker (tcp:// or ssl://).
func (b *Broker) URL() string {
	if b.tls {
		return "ssl://" + b.addr
	}
	return "tcp://" + b.addr
}

// Close stops listening, lets every connected client receive what is
// already queued for it (within Config.DrainTimeout: the daemon's final
// OFFLINE must reach its subscribers before the broker goes), then
// disconnects them; it returns after the broker's connection goroutines
// have exited. Safe to call twice.
func (b *Broker) Close() error {
	b.once.Do(func() {
		b.stop()
		b.ln.shut()
		b.waitDrained(time.Now().Add(b.drain))
		_ = b.srv.Close()
	})
	return nil
}

// waitDrained waits until no publish is being handed to subscribers and
// no connected client has a message queued for it, or until deadline.
func (b *Broker) waitDrained(deadline time.Time) {
	for {
		queued := int(b.fanout.inbound.Load()) + int(b.ln.queued.Load())
		for _, cl := range b.srv.Clients.GetAll() {
			if !cl.Closed() {
				queued += pendingWrites(cl)
			}
		}
		if queued == 0 || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("broker address %q: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// passwordHook admits a client whose user name and password are in
// users, or every client when users is nil (a broker on loopback without
// credentials), and lets every admitted client publish and subscribe to
// any topic. It is what mochi's auth hook does with a users ledger and no
// ACL, without that package (which links a second YAML library for its
// rule files into every botd).
type passwordHook struct {
	mqtt.HookBase
	users map[string]string // user: password
}

func (h *passwordHook) ID() string { return "passwords" }

func (h *passwordHook) Provides(b byte) bool {
	return b == mqtt.OnConnectAuthenticate || b == mqtt.OnACLCheck
}

func (h *passwordHook) OnConnectAuthenticate(cl *mqtt.Client, pk packets.Packet) bool {
	if h.users == nil {
		return true
	}
	want, ok := h.users[string(cl.Properties.Username)]
	if ok && subtle.ConstantTimeCompare([]byte(want), pk.Connect.Password) == 1 {
		return true
	}
	h.Log.Info("client failed authentication check", "username", string(cl.Properties.Username), "remote", cl.Net.Remote)
	return false
}

func (h *passwordHook) OnACLCheck(cl *mqtt.Client, topic string, write bool) bool { return true }

// readCredentials reads "user:password" lines.
func readCredentials(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("broker credentials: %w", err)
	}
	users := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, pass, ok := strings.Cut(line, ":")
		if !ok || user == "" || pass == "" {
			return nil, fmt.Errorf("broker credentials %s:%d: want user:password", path, n)
		}
		users[user] = pass // compared exactly: no wildcards
	}
	if len(users) == 0 {
		return nil, errors.New("broker credentials " + path + ": no users")
	}
	return users, nil
}
