package groot2

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// The endpoint speaks ZMTP through go-zeromq's connection layer
// (zmq4.Open: the greeting, the NULL handshake, frame writing), not its
// REP socket, whose reader takes the last empty frame of a request for
// the envelope delimiter: a request with an empty part (a BLACKBOARD
// request naming no blackboard) would be answered with the client's own
// frames in front of the reply. Here the envelope ends at the first empty
// frame, as libzmq's REP has it, and every connection is answered on
// itself. go-zeromq also allocates a frame at whatever size the peer
// announces; frameGuard refuses a frame larger than maxFrame before the
// library sees its size.

// maxFrame bounds what a client may send in one frame: Groot2 sends a
// 6-byte header and a short string.
const maxFrame = 64 << 10

// handshakeTimeout bounds the ZMTP greeting and handshake; writeTimeout a
// reply. A client that stops reading loses its connection, nothing else.
const (
	handshakeTimeout = 5 * time.Second
	writeTimeout     = 5 * time.Second
)

var errFrameTooLarge = errors.New("groot2: a ZMTP frame larger than the endpoint accepts")

// frameGuard follows the ZMTP byte stream a peer sends (the 64-byte
// greeting, then frames: a flags byte, a 1- or 8-byte size, the body) and
// fails the read that would deliver a size above max.
type frameGuard struct {
	net.Conn
	max      uint64
	greeting int    // greeting bytes still to come
	sizeLeft int    // size bytes still to come (0: the next byte is flags)
	size     uint64 // the size read so far
	body     uint64 // body bytes still to come
}

func newFrameGuard(c net.Conn, max uint64) *frameGuard {
	return &frameGuard{Conn: c, max: max, greeting: 64}
}

func (g *frameGuard) Read(p []byte) (int, error) {
	n, err := g.Conn.Read(p)
	if verr := g.follow(p[:n]); verr != nil {
		return 0, verr
	}
	return n, err
}

func (g *frameGuard) follow(b []byte) error {
	for len(b) > 0 {
		switch {
		case g.greeting > 0:
			k := min(g.greeting, len(b))
			g.greeting -= k
			b = b[k:]
		case g.body > 0:
			k := uint64(len(b))
			if k > g.body {
				k = g.body
			}
			g.body -= k
			b = b[k:]
		case g.sizeLeft > 0:
			g.size = g.size<<8 | uint64(b[0])
			g.sizeLeft--
			b = b[1:]
			if g.sizeLeft == 0 {
				if g.size > g.max {
					return fmt.Errorf("%w (%d bytes)", errFrameTooLarge, g.size)
				}
				g.body = g.size
			}
		default: // flags
			g.size = 0
			g.sizeLeft = 1
			if b[0]&0x02 != 0 { // LONG
				g.sizeLeft = 8
			}
			b = b[1:]
		}
	}
	return nil
}

// openZMTP performs the ZMTP handshake as a socket of type typ on an
// accepted connection.
func openZMTP(c net.Conn, typ zmq4.SocketType) (*zmq4.Conn, error) {
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	zc, err := zmq4.Open(newFrameGuard(c, maxFrame), null.Security(), typ, nil, true, nil)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return zc, nil
}

// splitEnvelope returns the envelope of a request as a REP socket reads
// it (the frames up to and including the first empty one) and the
// request's parts; ok is false when there is no delimiter (libzmq's REP
// drops such a message).
func splitEnvelope(frames [][]byte) (envelope, parts [][]byte, ok bool) {
	for i, f := range frames {
		if len(f) == 0 {
			return frames[:i+1], frames[i+1:], true
		}
	}
	return nil, nil, false
}
