package broker

import (
	"log/slog"
	"sync"
	"sync/atomic"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// inflightHook bounds in bytes what mochi keeps for clients at QoS 1 and
// 2 until they acknowledge it. mochi bounds that by count only (8192
// messages a client, each a copy of up to the packet limit): a subscriber
// that reads but never acknowledges, or a session kept for a client that
// left, would hold gigabytes. Past its bound (or when all the clients
// together pass the broker's, the client holding most) a connected client
// is disconnected (a clean session then frees everything); a session
// whose client is gone loses what it holds and gets nothing more kept
// until it comes back.
type inflightHook struct {
	mqtt.HookBase
	limit      int64 // per client
	totalLimit int64 // all the clients together
	clients    *mqtt.Clients
	own        func(*mqtt.Client) bool // the daemon's connections: not counted, never let go
	log        *slog.Logger
	dropped    atomic.Int64 // messages not kept for a session over its bound
	slow       atomic.Int64 // clients disconnected over their bound

	mu    sync.Mutex
	held  map[string]map[uint16]int64 // by client id, by packet id: bytes
	total map[string]int64
	all   int64
	// The daemon's own connections, counted apart (never let go, not in
	// all): their send queue sheds what would pass their bound (ownq.go).
	ownHeld  map[string]map[uint16]int64
	ownTotal map[string]int64
}

func newInflightHook(limit, totalLimit int64, clients *mqtt.Clients, own func(*mqtt.Client) bool, log *slog.Logger) *inflightHook {
	return &inflightHook{limit: limit, totalLimit: totalLimit, clients: clients, own: own, log: log,
		held: map[string]map[uint16]int64{}, total: map[string]int64{},
		ownHeld: map[string]map[uint16]int64{}, ownTotal: map[string]int64{}}
}

// ownBytes is what waits for the acknowledgement of the daemon's own
// connection id.
func (h *inflightHook) ownBytes(id string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ownTotal[id]
}

// keepOwn counts a message kept in flight for an own connection.
func (h *inflightHook) keepOwn(cl *mqtt.Client, pk packets.Packet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.ownHeld[cl.ID]
	if m == nil {
		m = map[uint16]int64{}
		h.ownHeld[cl.ID] = m
	}
	size := inflightSize(pk)
	h.ownTotal[cl.ID] += size - m[pk.PacketID]
	m[pk.PacketID] = size
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
	if h.own(cl) {
		h.keepOwn(cl, pk)
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
	h.all += size - m[pk.PacketID]
	m[pk.PacketID] = size
	victim := ""
	switch {
	case h.total[cl.ID] > h.limit:
		victim = cl.ID
	case h.all > h.totalLimit:
		var most int64
		for id, t := range h.total {
			if t > most {
				victim, most = id, t
			}
		}
	}
	h.mu.Unlock()
	if victim == "" {
		return
	}
	vc := cl
	if victim != cl.ID {
		var ok bool
		if vc, ok = h.clients.Get(victim); !ok {
			h.forget(victim)
			return
		}
	}
	if !vc.Closed() {
		h.slow.Add(1)
		h.log.Warn("client disconnected: it does not acknowledge what it receives", "client", vc.ID, "max_queue_bytes", h.limit)
		vc.Stop(errSlowConsumer)
		return
	}
	// Nobody to disconnect: the session keeps nothing more.
	h.mu.Lock()
	ids := make([]uint16, 0, len(h.held[vc.ID]))
	for id := range h.held[vc.ID] {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		if vc.State.Inflight.Delete(id) {
			h.dropped.Add(1)
		}
	}
	h.forget(vc.ID)
	h.log.Warn("messages not kept for a client that left: its session held too much", "client", vc.ID, "messages", len(ids), "max_queue_bytes", h.limit)
}

// forget drops what is counted for a client.
func (h *inflightHook) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all -= h.total[id]
	delete(h.held, id)
	delete(h.total, id)
	delete(h.ownHeld, id)
	delete(h.ownTotal, id)
}

func (h *inflightHook) done(cl *mqtt.Client, pk packets.Packet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := h.ownHeld[cl.ID]; m != nil {
		if size, ok := m[pk.PacketID]; ok {
			delete(m, pk.PacketID)
			if h.ownTotal[cl.ID] -= size; len(m) == 0 {
				delete(h.ownHeld, cl.ID)
				delete(h.ownTotal, cl.ID)
			}
		}
		return
	}
	m := h.held[cl.ID]
	size, ok := m[pk.PacketID]
	if !ok {
		return
	}
	delete(m, pk.PacketID)
	h.all -= size
	if h.total[cl.ID] -= size; len(m) == 0 {
		delete(h.held, cl.ID)
		delete(h.total, cl.ID)
	}
}

func (h *inflightHook) OnQosComplete(cl *mqtt.Client, pk packets.Packet) { h.done(cl, pk) }
func (h *inflightHook) OnQosDropped(cl *mqtt.Client, pk packets.Packet)  { h.done(cl, pk) }

// OnDisconnect forgets an expiring session (mochi clears its messages).
func (h *inflightHook) OnDisconnect(cl *mqtt.Client, _ error, expire bool) {
	if expire && !cl.IsTakenOver() {
		h.forget(cl.ID)
	}
}

// OnSessionEstablished counts again what the session holds (mochi may
// have handed a message to a client in the moment between clearing its
// session and forgetting it), and forgets the clients that are gone.
func (h *inflightHook) OnSessionEstablished(cl *mqtt.Client, _ packets.Packet) {
	if h.own(cl) {
		h.mu.Lock()
		delete(h.ownHeld, cl.ID) // a clean session: nothing in flight
		delete(h.ownTotal, cl.ID)
		h.mu.Unlock()
		return
	}
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
	h.all -= h.total[cl.ID]
	delete(h.held, cl.ID)
	delete(h.total, cl.ID)
	if len(m) > 0 {
		h.held[cl.ID], h.total[cl.ID] = m, total
		h.all += total
	}
	h.prune()
}

// prune forgets the clients mochi forgot; h.mu is held.
func (h *inflightHook) prune() {
	for id, t := range h.total {
		if _, ok := h.clients.Get(id); !ok {
			h.all -= t
			delete(h.held, id)
			delete(h.total, id)
		}
	}
	for id := range h.ownTotal {
		if _, ok := h.clients.Get(id); !ok {
			delete(h.ownHeld, id)
			delete(h.ownTotal, id)
		}
	}
}

// bytes is what is kept in flight for every client.
func (h *inflightHook) bytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prune()
	return h.all
}
