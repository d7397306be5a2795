package broker

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// errSlowConsumer ends a client that lets more than its byte bound wait
// for it.
var errSlowConsumer = errors.New("client does not read what it subscribed to: its send queue is over its bound")

// sendQueue is a client connection's outgoing bytes, bounded. mochi
// v2.7.9 bounds a client's queue in messages only (1024 here) and writes
// to the socket under the client's lock: a subscriber that never reads
// fills its socket, mochi's writer blocks, and 1024 messages of up to the
// packet limit wait for it, for every such subscriber. Here mochi's
// writes only append to this queue, which a goroutine of its own drains
// to the socket; when the bytes waiting would pass the bound, the
// connection is closed (mochi then ends the client and frees its queue
// and, for a clean session, its in-flight messages). A consumer that reads
// keeps its queue near empty; one that does not is gone after at most
// the bound.
//
// The daemon's own connections (Identity) are never let go: a command
// flood they cannot keep up with must not cost the robot its link. Their
// queue has a bound of its own (Config.MaxOwnQueueBytes) and sheds the
// messages (PUBLISH packets) that do not fit, counted (ownq.go); a
// control packet waits for room, holding mochi's writer back as a full
// socket would. Shedding, not waiting, is what bounds their memory: a
// writer held back leaves mochi queueing up to 1,024 messages of up to
// the packet limit for the connection (a 5,000/s flood of 30 KB commands
// kept 94 MB of queue buffers and 39 MB of mochi's copies live for the
// daemon, 300 MB resident).
type sendQueue struct {
	conn  net.Conn
	limit int
	total *atomic.Int64 // every queue's bytes (the listener's)
	full  func(net.Conn)
	over  func() // called when total passes the listener's bound

	mu      sync.Mutex
	buf     []byte
	err     error         // the queue's end: overflow, a failed write, or Close
	writing int           // bytes taken by the writer, not yet written
	own     *ownQueue     // the daemon's own connection: shed, never evict
	space   *sync.Cond    // on mu: the writer took what was queued, or the queue ended
	wake    chan struct{} // one slot
}

func newSendQueue(c net.Conn, limit int, total *atomic.Int64, full func(net.Conn), over func()) *sendQueue {
	q := &sendQueue{conn: c, limit: limit, total: total, full: full, over: over, wake: make(chan struct{}, 1)}
	q.space = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// setOwn marks the daemon's own connection.
func (q *sendQueue) setOwn(o *ownQueue) {
	q.mu.Lock()
	q.own = o
	q.mu.Unlock()
}

func (q *sendQueue) isOwn() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.own != nil
}

func (q *sendQueue) Write(p []byte) (int, error) {
	q.mu.Lock()
	if q.own != nil {
		defer q.mu.Unlock()
		return q.writeOwn(p)
	}
	if q.err != nil {
		err := q.err
		q.mu.Unlock()
		return 0, err
	}
	if len(q.buf)+q.writing+len(p) > q.limit {
		q.mu.Unlock()
		q.evict()
		return 0, errSlowConsumer
	}
	q.queue(p)
	q.mu.Unlock()
	if q.over != nil {
		q.over()
	}
	return len(p), nil
}

// queue appends p for the writer; q.mu is held.
func (q *sendQueue) queue(p []byte) {
	q.buf = append(q.buf, p...)
	q.total.Add(int64(len(p)))
	q.signal()
}

// evict ends the queue as a slow consumer's and closes its connection
// (mochi then ends the client).
func (q *sendQueue) evict() {
	q.mu.Lock()
	if q.err == nil {
		q.err = errSlowConsumer
	}
	q.drop()
	q.mu.Unlock()
	q.signal()
	q.full(q.conn)
	_ = q.conn.Close()
}

// len is how many bytes wait.
func (q *sendQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf)
}

func (q *sendQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drop forgets what is queued and wakes a waiting writer; q.mu is held.
func (q *sendQueue) drop() {
	q.total.Add(-int64(len(q.buf)))
	q.buf = nil
	q.space.Broadcast()
}

// run writes what is queued until the queue ends.
func (q *sendQueue) run() {
	var out []byte
	for range q.wake {
		for {
			q.mu.Lock()
			if q.err != nil || len(q.buf) == 0 {
				end := q.err != nil
				q.mu.Unlock()
				if end {
					return
				}
				break
			}
			out, q.buf = q.buf, out[:0]
			q.writing = len(out)
			q.mu.Unlock()
			_, err := q.conn.Write(out)
			q.total.Add(-int64(len(out)))
			q.mu.Lock()
			q.writing = 0
			q.space.Broadcast()
			q.mu.Unlock()
			if cap(out) > 64<<10 {
				out = nil // an idle client keeps no large buffer
			}
			if err != nil {
				q.mu.Lock()
				if q.err == nil {
					q.err = err
				}
				q.drop()
				q.mu.Unlock()
				_ = q.conn.Close() // mochi's read ends and it stops the client
				return
			}
		}
	}
}

// close ends the queue (what is queued is dropped: Broker.Close waits for
// the queues to drain before it closes the clients) and its writer.
func (q *sendQueue) close() {
	q.mu.Lock()
	if q.err == nil {
		q.err = net.ErrClosed
	}
	q.drop()
	q.mu.Unlock()
	q.signal()
}
