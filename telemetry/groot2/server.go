package groot2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Source is what the endpoint reads from the runner (*runner.Runner).
// Both methods return at once whatever the tick is doing.
type Source interface {
	TreeView(letters []byte) (runner.TreeView, bool)
	Blackboard() []protocol.BlackboardValue
}

var _ Source = (*runner.Runner)(nil)

// Config configures a Server.
type Config struct {
	// Addr is host:port of the request socket (REP); the publisher (PUB)
	// takes the next port. Port 0 picks a free pair (tests).
	Addr     string
	Source   Source
	Registry *bt.Registry // node types for the tree's model (nil: the built-ins)
	Logger   *slog.Logger
	// Now is the clock of recordings (nil: time.Now).
	Now func() time.Time
	// MaxConns bounds the connections of each socket (0: 16).
	MaxConns int
	// RecordEvery is how often a recording samples the statuses (0:
	// 10 ms).
	RecordEvery time.Duration
	// AllowDebug allows hooks (breakpoints, node replacement) through
	// Debug; without it they are answered with an error.
	AllowDebug bool
	// Debug applies hooks (the runner); nil: no hooks.
	Debug Debugger
	// HookSilence is how long the client may stay silent before the
	// runner releases its hooks (0: runner.DefaultHookSilence, 5 s).
	HookSilence time.Duration
}

func (c *Config) defaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 16
	}
	if c.RecordEvery <= 0 {
		c.RecordEvery = 10 * time.Millisecond
	}
}

// Server is the Groot2 endpoint: it answers Groot2's requests about the
// runner's tree. It only reads from the runner, never waits for it.
type Server struct {
	cfg    Config
	rep    net.Listener
	pub    net.Listener
	mu     sync.Mutex
	cur    *treeState
	buf    []byte // letters
	rec    recorder
	recCh  chan struct{} // wakes the recorder when a recording starts
	connMu sync.Mutex
	conns  map[net.Conn]struct{}
	// hits are the uids of hook hits to publish (hooks.go).
	hits  chan uint16
	subMu sync.Mutex
	subs  map[*subscriber]struct{}
}

// New binds both sockets (so a taken port is an error at start).
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	if cfg.Source == nil {
		return nil, errors.New("groot2: no source")
	}
	rep, pub, err := listenPair(cfg.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, rep: rep, pub: pub, cur: idleState(), recCh: make(chan struct{}, 1), conns: map[net.Conn]struct{}{},
		hits: make(chan uint16, 64), subs: map[*subscriber]struct{}{}}
	if cfg.AllowDebug && cfg.Debug != nil {
		cfg.Debug.EnableHooks(runner.HookConfig{Silence: cfg.HookSilence, OnHit: s.hit})
	}
	return s, nil
}

// listenPair listens on addr and on the next port.
func listenPair(addr string) (net.Listener, net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("groot2: address %q: %w", addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65534 {
		return nil, nil, fmt.Errorf("groot2: address %q: the port must be 0 to 65534 (the publisher takes the next one)", addr)
	}
	for range 50 {
		rep, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			return nil, nil, fmt.Errorf("groot2: %w", err)
		}
		rp := rep.Addr().(*net.TCPAddr).Port
		pub, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(rp+1)))
		if err == nil {
			return rep, pub, nil
		}
		rep.Close()
		if p != 0 {
			return nil, nil, fmt.Errorf("groot2: the publisher port: %w", err)
		}
	}
	return nil, nil, errors.New("groot2: found no free pair of ports")
}

// Addr is the request socket's address (the publisher's port is one
// more).
func (s *Server) Addr() *net.TCPAddr { return s.rep.Addr().(*net.TCPAddr) }

// Run serves until ctx ends, then closes every connection and returns
// once its goroutines have exited.
func (s *Server) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); s.accept(s.rep, zmq4.Rep, &wg) }()
	go func() { defer wg.Done(); s.accept(s.pub, zmq4.Pub, &wg) }()
	go func() { defer wg.Done(); s.record(ctx) }()
	go func() { defer wg.Done(); s.publish(ctx) }()
	s.cfg.Logger.Info("groot2 endpoint listening", "rep", s.rep.Addr().String(), "pub", s.pub.Addr().String())
	<-ctx.Done()
	s.rep.Close()
	s.pub.Close()
	s.connMu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.conns = nil // track refuses what is accepted from now on
	s.connMu.Unlock()
	wg.Wait()
	return nil
}

func (s *Server) accept(ln net.Listener, typ zmq4.SocketType, wg *sync.WaitGroup) {
	sem := make(chan struct{}, s.cfg.MaxConns)
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		select {
		case sem <- struct{}{}:
		default:
			s.cfg.Logger.Warn("groot2: too many connections, refusing one", "peer", c.RemoteAddr().String())
			c.Close()
			continue
		}
		if !s.track(c) {
			c.Close()
			<-sem
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer s.untrack(c)
			s.serveConn(c, typ)
		}()
	}
}

// track registers c to be closed at shutdown (false when the listener is
// already closed).
func (s *Server) track(c net.Conn) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns == nil {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.connMu.Lock()
	delete(s.conns, c)
	s.connMu.Unlock()
	c.Close()
}

func (s *Server) serveConn(c net.Conn, typ zmq4.SocketType) {
	zc, err := openZMTP(c, typ)
	if err != nil {
		s.cfg.Logger.Debug("groot2: handshake failed", "peer", c.RemoteAddr().String(), "err", err)
		return
	}
	if typ == zmq4.Pub {
		s.serveSubscriber(c, zc)
		return
	}
	for {
		msg, err := zc.RecvMsg()
		if err != nil {
			return
		}
		if msg.Type == zmq4.CmdMsg {
			continue // commands: PING is answered by RecvMsg
		}
		envelope, parts, ok := splitEnvelope(msg.Frames)
		if !ok {
			continue
		}
		reply := s.Handle(parts)
		frames := make([][]byte, 0, len(envelope)+len(reply))
		frames = append(append(frames, envelope...), reply...)
		_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := zc.SendMsg(zmq4.NewMsgFrom(frames...)); err != nil {
			return
		}
	}
}

// refresh follows the runner to its current tree (s.mu held).
func (s *Server) refresh() []byte {
	v, ok := s.cfg.Source.TreeView(s.buf)
	if !ok {
		return nil
	}
	s.buf = v.Letters
	if v.Tree != s.cur.tree || v.Doc != s.cur.doc {
		s.cur = newTreeState(v.Doc, v.Tree, s.cfg.Registry)
		if s.cur.err != nil {
			s.cfg.Logger.Warn("groot2: the tree cannot be served", "err", s.cur.err)
		}
	}
	return v.Letters
}

// Handle answers one request (its parts, the envelope taken off). Every
// request gets a reply, an error reply for what cannot be answered.
func (s *Server) Handle(parts [][]byte) [][]byte {
	if len(parts) == 0 {
		return errorReply("wrong request header")
	}
	if s.cfg.AllowDebug && s.cfg.Debug != nil {
		// Any request is the client's heartbeat, as in BT.CPP.
		s.cfg.Debug.HookHeartbeat()
	}
	h, ok := ParseRequestHeader(parts[0])
	if !ok {
		return errorReply("wrong request header")
	}
	s.mu.Lock()
	letters := s.refresh()
	cur := s.cur
	head := replyHeader(h, cur.id)
	if isHookRequest(h.Type) {
		s.mu.Unlock()
		return s.handleHook(h, head, cur, parts)
	}
	defer s.mu.Unlock()
	switch h.Type {
	case ReqFullTree:
		if cur.err != nil {
			return errorReply(cur.err.Error())
		}
		return [][]byte{head, cur.xml}
	case ReqStatus:
		return [][]byte{head, cur.statusReply(letters)}
	case ReqBlackboard:
		if len(parts) != 2 {
			return errorReply("must be 2 parts message")
		}
		body, err := blackboardReply(cur, string(parts[1]), s.cfg.Source.Blackboard())
		if err != nil {
			return errorReply(err.Error())
		}
		return [][]byte{head, body}
	case ReqToggleRecording:
		if len(parts) != 2 {
			return errorReply("must be 2 parts message")
		}
		return s.toggleRecording(head, string(parts[1]))
	case ReqGetTransitions:
		return [][]byte{head, s.rec.take()}
	}
	return errorReply("Request not recognized")
}
