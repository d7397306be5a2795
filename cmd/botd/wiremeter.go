package main

import (
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// wireMeter counts what a robot's MQTT connections carry, read off the
// bytes as they pass (botd fleet wraps every connection in one): bytes
// each way, PUBLISH packets each way, and the time from a QoS 1 PUBLISH
// written to its PUBACK read (the broker's acknowledgement latency). It
// reads MQTT 3.1.1 framing only; nothing is changed on the way.
type wireMeter struct {
	bytesOut, bytesIn atomic.Uint64
	pubOut, pubIn     atomic.Uint64
	// ackMaxNs is the slowest acknowledgement since the last take.
	ackMaxNs atomic.Int64
	acks     *latencyHist // shared by the whole fleet
	now      func() time.Time
}

// wrap is a transport.Options.WrapConn.
func (m *wireMeter) wrap(c net.Conn) (net.Conn, error) {
	mc := &meteredConn{Conn: c, m: m, pending: map[uint16]time.Time{}}
	mc.out.onPacket = mc.sent
	mc.in.onPacket = mc.received
	return mc, nil
}

// takeAckMax returns the slowest acknowledgement since the last call and
// starts over.
func (m *wireMeter) takeAckMax() time.Duration { return time.Duration(m.ackMaxNs.Swap(0)) }

type meteredConn struct {
	net.Conn
	m *wireMeter
	// out is fed by the writers, in order, under wmu: paho writes from
	// two goroutines (its outgoing packets and its keepalive's PINGREQ);
	// in by paho's one reader.
	wmu     sync.Mutex
	out, in mqttScanner

	mu      sync.Mutex
	pending map[uint16]time.Time // QoS 1 publishes written, by packet id
}

// maxPending bounds the publishes awaiting an acknowledgement that are
// timed; past it (a broker that stopped answering) the rest go untimed.
const maxPending = 4096

func (c *meteredConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.m.bytesOut.Add(uint64(n))
		c.out.feed(p[:n])
	}
	return n, err
}

func (c *meteredConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.m.bytesIn.Add(uint64(n))
		c.in.feed(p[:n])
	}
	return n, err
}

func (c *meteredConn) sent(typ, flags byte, id uint16, hasID bool) {
	if typ != pktPublish {
		return
	}
	c.m.pubOut.Add(1)
	if hasID && flags&0x08 == 0 { // a first send (not DUP) of a QoS 1/2 publish
		c.mu.Lock()
		if len(c.pending) < maxPending {
			c.pending[id] = c.m.now()
		}
		c.mu.Unlock()
	}
}

func (c *meteredConn) received(typ, _ byte, id uint16, hasID bool) {
	switch typ {
	case pktPublish:
		c.m.pubIn.Add(1)
	case pktPuback:
		if !hasID {
			return
		}
		c.mu.Lock()
		t, ok := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if !ok {
			return
		}
		d := c.m.now().Sub(t)
		c.m.acks.add(d)
		for {
			old := c.m.ackMaxNs.Load()
			if int64(d) <= old || c.m.ackMaxNs.CompareAndSwap(old, int64(d)) {
				break
			}
		}
	}
}

// MQTT control packet types read by the meter.
const (
	pktPublish = 3
	pktPuback  = 4
)

// mqttScanner follows MQTT framing across arbitrary chunks and calls
// onPacket once per PUBLISH and PUBACK with the packet id when the packet
// has one. A stream that is not MQTT stops it (it counts nothing more).
type mqttScanner struct {
	onPacket func(typ, flags byte, id uint16, hasID bool)

	state  int // 0 type byte, 1 remaining length, 2 body
	typ    byte
	flags  byte
	remain int
	shift  uint
	// head keeps the body's first bytes, up to need: the topic length,
	// the topic and the packet id of a PUBLISH, the id of a PUBACK.
	head   []byte
	need   int
	done   bool // onPacket was called for this packet
	broken bool
}

// maxTrackedTopic bounds the topic a scanner keeps to reach a PUBLISH's
// packet id; a longer one is counted, not timed.
const maxTrackedTopic = 1024

func (s *mqttScanner) feed(p []byte) {
	for len(p) > 0 && !s.broken {
		switch s.state {
		case 0:
			s.typ, s.flags = p[0]>>4, p[0]&0x0f
			s.remain, s.shift, s.head, s.done = 0, 0, s.head[:0], false
			s.need = 0
			switch {
			case s.typ == pktPublish && s.flags&0x06 != 0:
				s.need = 2 // the topic length first
			case s.typ == pktPuback:
				s.need = 2
			}
			s.state = 1
			p = p[1:]
		case 1:
			b := p[0]
			p = p[1:]
			s.remain |= int(b&0x7f) << s.shift
			s.shift += 7
			if b&0x80 != 0 {
				if s.shift >= 28 {
					s.broken = true
				}
				continue
			}
			s.state = 2
			if s.remain == 0 {
				s.end()
			}
		case 2:
			n := min(len(p), s.remain)
			for off := 0; !s.done && s.need > len(s.head) && off < n; {
				take := min(n-off, s.need-len(s.head))
				s.head = append(s.head, p[off:off+take]...)
				off += take
				s.grow()
			}
			p = p[n:]
			s.remain -= n
			if s.remain == 0 {
				s.end()
			}
		}
	}
}

// grow extends need once a PUBLISH's topic length is known, and reports
// the packet when its head is complete.
func (s *mqttScanner) grow() {
	if s.typ == pktPublish && s.need == 2 && len(s.head) == 2 {
		tl := int(s.head[0])<<8 | int(s.head[1])
		if tl > maxTrackedTopic {
			s.need = 0 // counted at its end, untimed
			return
		}
		s.need = 2 + tl + 2
	}
	if s.need > 0 && len(s.head) >= s.need && !s.done {
		s.done = true
		s.onPacket(s.typ, s.flags, uint16(s.head[s.need-2])<<8|uint16(s.head[s.need-1]), true)
	}
}

func (s *mqttScanner) end() {
	if !s.done && (s.typ == pktPublish || s.typ == pktPuback) {
		s.done = true
		s.onPacket(s.typ, s.flags, 0, false)
	}
	s.state = 0
}

// latencyHist is a histogram of durations in buckets growing by 2^(1/4)
// (about 19 %) from 10 µs to about 3 minutes; safe for concurrent use.
type latencyHist struct {
	buckets [histBuckets]atomic.Uint64
}

const (
	histBuckets = 100
	histBase    = 10 * time.Microsecond
)

func (h *latencyHist) add(d time.Duration) {
	i := 0
	if d > histBase {
		i = min(int(4*math.Log2(float64(d)/float64(histBase)))+1, histBuckets-1)
	}
	h.buckets[i].Add(1)
}

// take returns the counts since the last take and starts over.
func (h *latencyHist) take() []uint64 {
	out := make([]uint64, histBuckets)
	for i := range h.buckets {
		out[i] = h.buckets[i].Swap(0)
	}
	return out
}

// histQuantile is the upper bound of the bucket holding quantile q of
// counts (0 when there are none).
func histQuantile(counts []uint64, q float64) time.Duration {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank && c > 0 {
			return time.Duration(float64(histBase) * math.Pow(2, float64(i)/4))
		}
	}
	return 0
}
