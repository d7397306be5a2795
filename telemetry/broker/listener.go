package broker

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// ConnectTimeout bounds how long a new connection may take to send its
// CONNECT (mochi sets no deadline before it, so a silent connection would
// be kept forever and hold up Close).
const ConnectTimeout = 10 * time.Second

// guardedListener works around two gaps in mochi v2.7.9's shutdown:
// Server.Close waits for client goroutines (a WaitGroup) while its
// listener still accepts, and a goroutine started for a connection
// accepted then calls Add concurrently with that Wait (a data race, and
// Close may return before the client is gone); and a connection that has
// not sent CONNECT is not yet a client, so Close neither disconnects it nor
// stops waiting for it. shut stops accepting, closes the connections that
// have not completed CONNECT, and waits until every accepted connection
// has reached mochi's first read (after its Add). Each connection also
// gets a deadline for its CONNECT (mochi sets none before it).
//
// Each connection's writes also go through a sendQueue bounded in bytes
// (sendq.go).
type guardedListener struct {
	net.Listener
	mu      sync.Mutex
	closed  bool
	pending map[*guardedConn]struct{} // accepted, CONNECT not yet read

	queueLimit int          // bytes per connection
	totalLimit int64        // bytes in all the queues
	queued     atomic.Int64 // bytes waiting in every connection's queue
	slow       atomic.Int64 // connections closed for their queue
	full       func(net.Conn)
	live       map[*guardedConn]struct{} // accepted, not closed

	ownLimit int          // bytes per own connection (ownq.go)
	ownShed  atomic.Int64 // messages shed for own connections
	onShed   func()       // logs a message shed
}

// setOwn bounds gc's queue as an own connection's (ownq.go).
func (l *guardedListener) setOwn(gc *guardedConn, release func(uint16), unacked func() int64) {
	gc.q.setOwn(&ownQueue{limit: l.ownLimit, release: release, unacked: unacked, shed: &l.ownShed, onShed: l.onShed})
}

type guardedConn struct {
	net.Conn
	l         *guardedListener
	q         *sendQueue
	once      sync.Once
	closeOnce sync.Once
	started   chan struct{} // closed at mochi's first read
}

func newGuardedListener(l net.Listener, queueLimit int, totalLimit int64, full func(net.Conn)) *guardedListener {
	return &guardedListener{Listener: l, pending: map[*guardedConn]struct{}{}, queueLimit: queueLimit, totalLimit: totalLimit,
		full: full, live: map[*guardedConn]struct{}{}}
}

// shed disconnects the connection with the longest queue while all the
// queues together hold more than totalLimit: many clients each within
// their own bound may not add up to more than the broker's.
func (l *guardedListener) shed() {
	if l.queued.Load() <= l.totalLimit {
		return
	}
	l.mu.Lock()
	var worst *guardedConn
	most := 0
	for c := range l.live {
		if n := c.q.len(); n > most && !c.q.isOwn() {
			worst, most = c, n
		}
	}
	l.mu.Unlock()
	if worst != nil {
		worst.q.evict()
	}
}

func (l *guardedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(ConnectTimeout))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	gc := &guardedConn{Conn: c, l: l, started: make(chan struct{})}
	gc.q = newSendQueue(c, l.queueLimit, &l.queued, func(c net.Conn) { l.slow.Add(1); l.full(c) }, l.shed)
	l.pending[gc] = struct{}{}
	l.live[gc] = struct{}{}
	return gc, nil
}

// Write queues b for the connection's writer (sendq.go).
func (c *guardedConn) Write(b []byte) (int, error) { return c.q.Write(b) }

// Close ends the send queue and its writer with the connection.
func (c *guardedConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		c.q.close()
		err = c.Conn.Close()
		c.l.mu.Lock()
		delete(c.l.live, c)
		c.l.mu.Unlock()
	})
	return err
}

func (c *guardedConn) Read(b []byte) (int, error) {
	c.once.Do(func() { close(c.started) })
	return c.Conn.Read(b)
}

// SetDeadline is first called by mochi once it has read CONNECT (it sets
// the keepalive deadline): from then on the connection is a client that
// Server.Close disconnects itself.
func (c *guardedConn) SetDeadline(t time.Time) error {
	c.l.mu.Lock()
	delete(c.l.pending, c)
	c.l.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

// shut stops accepting, closes the connections still before CONNECT, and
// waits until mochi has started on every one of them.
func (l *guardedListener) shut() {
	l.mu.Lock()
	l.closed = true
	pending := make([]*guardedConn, 0, len(l.pending))
	for c := range l.pending {
		pending = append(pending, c)
	}
	l.mu.Unlock()
	_ = l.Listener.Close()
	for _, c := range pending {
		_ = c.Close()
		<-c.started
	}
}

func (l *guardedListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	return l.Listener.Close()
}
