package broker

import (
	"log/slog"
	"sync"
	"sync/atomic"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// inflightHook bounds in bytes what mochi keeps for a client at QoS 1 and
// 2 until the client acknowledges it. mochi bounds that by count only
// (8192 messages, each a copy of up to the packet limit): a subscriber
// that reads but never acknowledges, or a session kept for a client that
// left, would hold gigabytes. Past the bound a connected client is
// disconnected (a clean session then frees everything); a session whose
// client is gone gets nothing more until it comes back.
type inflightHook struct {
	mqtt.HookBase
	limit   int64
	clients *mqtt.Clients
	log     *slog.Logger
	dropped atomic.Int64 // messages not kept for a session over its bound
	slow    atomic.Int64 // clients disconnected over their bound

	mu    sync.Mutex
	held  map[string]map[uint16]int64 // by client id, by packet id: bytes
	total map[string]int64
}

func newInflightHook(limit int64, clients *mqtt.Clients, log *slog.Logger) *inflightHook {
	return &inflightHook{limit: limit, clients: clients, log: log, held: map[string]map[uint16]int64{}, total: map[string]int64{}}
}

func (h *inflightHook) ID() string { return "botd-inflight" }

func (h *inflightHook) Provides(b byte) bool {
	return b == mqtt.OnQosPublish || b == mqtt.OnQosComplete || b == mqtt.OnQosDropped || b == mqtt.OnDisconnect ||
		b == mqtt.OnSessionEstablished
}

func inflightSize(pk packets.Packet) int64 {
	return int64(len(pk.Payload)+len(pk.TopicName)) + 64
}

// OnQosPublish runs when mochi keeps a message for cl (also when it sends
// one again: the same packet id replaces its entry).
func (h *inflightHook) OnQosPublish(cl *mqtt.Client, pk packets.Packet, _ int64, _ int) {
	if pk.FixedHeader.Type != packets.Publish {
		return
	}
	size := inflightSize(pk)
	h.mu.Lock()
	m := h.held[cl.ID]
	if m == nil {
		m = map[uint16]int64{}
		h.held[cl.ID] = m
	}
	h.total[cl.ID] += size - m[pk.PacketID]
	m[pk.PacketID] = size
	over := h.total[cl.ID] > h.limit
	if over && cl.Closed() {
		// Nobody to disconnect: keep nothing more for the session.
		h.total[cl.ID] -= size
		delete(m, pk.PacketID)
	}
	h.mu.Unlock()
	switch {
	case !over:
	case cl.Closed():
		cl.State.Inflight.Delete(pk.PacketID)
		h.dropped.Add(1)
		h.log.Warn("message not kept for a client that left: its session holds too much", "client", cl.ID, "max_queue_bytes", h.limit)
	default:
		h.slow.Add(1)
		h.log.Warn("client disconnected: it does not acknowledge what it receives", "client", cl.ID, "max_queue_bytes", h.limit)
		cl.Stop(errSlowConsumer)
	}
}

func (h *inflightHook) done(cl *mqtt.Client, pk packets.Packet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.held[cl.ID]
	size, ok := m[pk.PacketID]
	if !ok {
		return
	}
	delete(m, pk.PacketID)
	if h.total[cl.ID] -= size; len(m) == 0 {
		delete(h.held, cl.ID)
		delete(h.total, cl.ID)
	}
}

func (h *inflightHook) OnQosComplete(cl *mqtt.Client, pk packets.Packet) { h.done(cl, pk) }
func (h *inflightHook) OnQosDropped(cl *mqtt.Client, pk packets.Packet)  { h.done(cl, pk) }

// OnDisconnect forgets an expiring session (mochi clears its messages).
func (h *inflightHook) OnDisconnect(cl *mqtt.Client, _ error, expire bool) {
	if !expire || cl.IsTakenOver() {
		return
	}
	h.mu.Lock()
	delete(h.held, cl.ID)
	delete(h.total, cl.ID)
	h.mu.Unlock()
}

// OnSessionEstablished counts again what the session holds (mochi may
// have handed a message to a client in the moment between clearing its
// session and forgetting it), and forgets the clients that are gone.
func (h *inflightHook) OnSessionEstablished(cl *mqtt.Client, _ packets.Packet) {
	m := map[uint16]int64{}
	var total int64
	for _, pk := range cl.State.Inflight.GetAll(false) {
		if pk.FixedHeader.Type == packets.Publish {
			m[pk.PacketID] = inflightSize(pk)
			total += m[pk.PacketID]
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, cl.ID)
	delete(h.total, cl.ID)
	if len(m) > 0 {
		h.held[cl.ID], h.total[cl.ID] = m, total
	}
	h.prune()
}

// prune forgets the clients mochi forgot; h.mu is held.
func (h *inflightHook) prune() {
	for id := range h.total {
		if _, ok := h.clients.Get(id); !ok {
			delete(h.held, id)
			delete(h.total, id)
		}
	}
}

// bytes is what is kept in flight for every client.
func (h *inflightHook) bytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prune()
	var n int64
	for _, t := range h.total {
		n += t
	}
	return n
}
