package broker

import (
	"encoding/binary"
	"sync/atomic"

	mqtt "github.com/mochi-mqtt/server/v2"
)

// smallPublish is the size up to which a message to the daemon's own
// connection gets a reserve past the bound: an e-stop, or any short
// command, still gets through while a flood of large messages is shed.
const smallPublish = 4 << 10

// ownQueue is what a send queue of the daemon's own connection needs
// beyond a stranger's: its bound, and what to do with a message shed.
//
// The bound: a message (PUBLISH) is queued while the bytes waiting stay
// within limit (2 × limit for a message of at most smallPublish bytes,
// ownRoom), and, at QoS 1 or 2, while the bytes mochi keeps in flight for
// the connection (a copy of every such message sent and not yet
// acknowledged: in this queue, in the sockets' buffers, in the client's
// hands) stay within it too; and always when nothing else waits, so one
// message of any size the broker accepts gets through. Past that it is
// shed: a QoS 0 message is forgotten, a QoS 1 or 2 one is also taken out
// of mochi's messages in flight for the connection (mochi would
// otherwise keep it and its send quota forever, since the client never
// gets it to acknowledge). A control packet (an acknowledgement, a ping
// response) is never shed: it waits for the bytes waiting to drop to
// limit + limit/2. So at most 2 × limit bytes, or one packet, wait
// for an own connection, as much again in flight, and mochi's writer is
// held back only by a control packet.
//
// Shedding is safe for the daemon's commands: the broker already
// acknowledged them to their sender (as when mochi drops for a full
// queue), and a ground station that gets no reply sends the command
// again with the same id.
type ownQueue struct {
	limit int
	// release takes a shed QoS 1 or 2 message out of mochi's in-flight
	// messages (its packet id).
	release func(id uint16)
	// unacked is what mochi keeps in flight for the connection, in bytes
	// (inflight.go; about 64 bytes a message more than its packet).
	unacked func() int64
	shed    *atomic.Int64 // the listener's count
	onShed  func()        // logs
}

// writeOwn queues p for an own connection; q.mu is held. mochi writes
// whole packets: one, or several small ones it batched.
func (q *sendQueue) writeOwn(p []byte) (int, error) {
	rest := p
	for len(rest) > 0 {
		n, ok := packetLen(rest)
		if !ok { // not whole packets (never seen): kept, as control data
			n = len(rest)
		}
		if err := q.ownPacket(rest[:n], ok); err != nil {
			return len(p) - len(rest), err
		}
		rest = rest[n:]
	}
	return len(p), nil
}

func (q *sendQueue) ownPacket(pk []byte, whole bool) error {
	pub, qos, id := false, byte(0), uint16(0)
	if whole {
		pub, qos, id = publishHead(pk)
	}
	room := q.own.limit + q.own.limit/2
	if pub {
		room = int(ownRoom(q.own.limit, len(pk)))
	}
	for {
		if q.err != nil {
			return q.err
		}
		held := len(q.buf) + q.writing
		var unacked int64 // this message included
		if qos > 0 && q.own.unacked != nil {
			unacked = q.own.unacked()
		}
		alone := held == 0 && unacked <= int64(len(pk))+128
		switch {
		case alone || held+len(pk) <= room && unacked <= int64(room):
			q.queue(pk)
			return nil
		case pub:
			if qos > 0 && q.own.release != nil {
				q.own.release(id)
			}
			q.own.shed.Add(1)
			if q.own.onShed != nil {
				q.own.onShed()
			}
			return nil
		}
		q.space.Wait()
	}
}

// ownRoom is how many bytes may wait (to be written, or in mochi's
// queue, or to be acknowledged) for an own connection when a message of
// size bytes joins them: the bound, and twice the bound for a short one
// (a flood of large messages sheds itself at the bound, and what is in
// flight for it, acknowledged only once the client has read it, stays
// near the bound for as long as the flood lasts).
func ownRoom(limit, size int) int64 {
	if size <= smallPublish {
		return 2 * int64(limit)
	}
	return int64(limit)
}

// packetLen is the length of the MQTT packet b starts with; false when b
// does not hold all of it.
func packetLen(b []byte) (int, bool) {
	rem, mult := 0, 1
	for i := 1; i < len(b) && i <= 4; i++ {
		rem += int(b[i]&0x7f) * mult
		if b[i]&0x80 == 0 {
			n := i + 1 + rem
			return n, n <= len(b)
		}
		mult *= 128
	}
	return 0, false
}

// publishHead reads a whole packet's type, and for a PUBLISH its QoS and
// packet id (0 at QoS 0).
func publishHead(pk []byte) (pub bool, qos byte, id uint16) {
	if pk[0]>>4 != 3 {
		return false, 0, 0
	}
	qos = pk[0] >> 1 & 3
	if qos == 0 {
		return true, 0, 0
	}
	i := 1
	for pk[i]&0x80 != 0 {
		i++
	}
	i++ // past the remaining length
	if i+2 > len(pk) {
		return true, qos, 0
	}
	at := i + 2 + int(binary.BigEndian.Uint16(pk[i:]))
	if at+2 > len(pk) {
		return true, qos, 0
	}
	return true, qos, binary.BigEndian.Uint16(pk[at:])
}

// releaseInflight takes a message shed for cl out of mochi's messages in
// flight, as mochi does for one it drops itself (server.go,
// publishToClient).
func releaseInflight(srv *mqtt.Server, cl *mqtt.Client, h *inflightHook) func(uint16) {
	return func(id uint16) {
		pk, ok := cl.State.Inflight.Get(id)
		if id == 0 || !ok || !cl.State.Inflight.Delete(id) {
			return
		}
		atomic.AddInt64(&srv.Info.Inflight, -1)
		cl.State.Inflight.IncreaseSendQuota()
		if h != nil {
			h.done(cl, pk)
		}
	}
}
