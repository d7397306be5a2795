package broker

import (
	"log/slog"
	"sync"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// queuedHook counts the bytes of the messages mochi keeps in a client's
// outbound queue, before its writer hands them to the send queue
// (sendq.go). mochi bounds that queue by count only (1,024 messages of up
// to the packet limit); its writers, one goroutine a client, fall behind
// the fan-out whenever the machine is busy: 20 subscribers to # under a
// flood of 30 KB messages held 459 MB of mochi's copies before their
// send queues reached their bound (a real daemon went from 19 to
// 537 MiB within a second). A client whose queued bytes here and in its
// send queue would pass Config.MaxQueueBytes, or the client with most
// queued here when all the clients' bytes would pass
// Config.MaxTotalQueueBytes, is disconnected before the message is
// queued, as a slow consumer.
//
// The daemon's own connections are never let go, and their writer never
// waits for a message (ownq.go), but it too falls behind on a busy
// machine: mochi's copies for them are counted apart, and a message
// that would take an own connection's past Config.MaxOwnQueueBytes is
// shed, counted with those its send queue sheds: mochi acknowledges it
// to its sender and delivers it to nobody (mochi cannot skip one
// subscriber), as a ground station's command the robot cannot take
// now; a retained one is still retained.
//
// The count is kept from the hooks mochi calls: a publish adds its size
// for every client subscribed to its topic (OnPublish, before mochi fans
// it out), the writer's encoding (OnPacketEncode) or a drop
// (OnPublishDropped) takes it off. A message mochi skips without a hook
// (a closed client, a denied read) would stay counted: the count is
// reset whenever the client's queue is empty, so an error only ever
// lasts while a backlog does.
type queuedHook struct {
	mqtt.HookBase
	srv   *mqtt.Server
	ln    *guardedListener
	isOwn func(*mqtt.Client) bool
	log   *slog.Logger

	mu     sync.Mutex
	queued map[string]int64 // by client id
	all    int64
	own    map[string]int64 // the daemon's connections, by client id
}

func newQueuedHook(srv *mqtt.Server, ln *guardedListener, own func(*mqtt.Client) bool, log *slog.Logger) *queuedHook {
	return &queuedHook{srv: srv, ln: ln, isOwn: own, log: log, queued: map[string]int64{}, own: map[string]int64{}}
}

func (h *queuedHook) ID() string { return "botd-queued" }

func (h *queuedHook) Provides(b byte) bool {
	return b == mqtt.OnPublish || b == mqtt.OnPacketEncode || b == mqtt.OnPublishDropped || b == mqtt.OnDisconnect
}

func queuedSize(pk packets.Packet) int64 { return int64(len(pk.Payload)) + 64 }

// OnPublish counts pk for its subscribers, after disconnecting those it
// would take past a bound.
func (h *queuedHook) OnPublish(_ *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	size := queuedSize(pk)
	subs := h.srv.Topics.Subscribers(pk.TopicName)
	var slow []*mqtt.Client
	h.mu.Lock()
	for id := range subs.Subscriptions {
		cl, ok := h.srv.Clients.Get(id)
		if !ok || cl.Closed() || !h.isOwn(cl) {
			continue
		}
		if pendingWrites(cl) == 0 {
			h.own[id] = 0
		}
		if q := h.own[id]; q > 0 && q+size > ownRoom(h.ln.ownLimit, len(pk.Payload)) {
			h.mu.Unlock()
			h.ln.ownShed.Add(1)
			if h.ln.onShed != nil {
				h.ln.onShed()
			}
			if pk.FixedHeader.Retain {
				// Shed as a delivery, kept as the topic's state (mochi
				// retains nothing it was told to ignore).
				h.srv.Topics.RetainMessage(pk.Copy(false))
			}
			return pk, packets.CodeSuccessIgnore
		}
	}
	for id := range subs.Subscriptions {
		cl, ok := h.srv.Clients.Get(id)
		if !ok || cl.Closed() {
			continue
		}
		if h.isOwn(cl) {
			h.own[id] += size
			continue
		}
		if pendingWrites(cl) == 0 {
			h.all -= h.queued[id]
			h.queued[id] = 0
		}
		if h.queued[id]+size+int64(sendQueued(cl)) > int64(h.ln.queueLimit) && h.queued[id] > 0 {
			slow = append(slow, cl)
			continue
		}
		h.queued[id] += size
		h.all += size
	}
	for h.all+h.ln.queued.Load() > h.ln.totalLimit {
		worst, most := "", int64(0)
		for id, n := range h.queued {
			if n > most {
				worst, most = id, n
			}
		}
		if worst == "" {
			break
		}
		h.all -= most
		delete(h.queued, worst)
		if cl, ok := h.srv.Clients.Get(worst); ok {
			slow = append(slow, cl)
		}
	}
	h.mu.Unlock()
	for _, cl := range slow {
		h.letGo(cl)
	}
	return pk, nil
}

// letGo disconnects a client whose queue is over its bound.
func (h *queuedHook) letGo(cl *mqtt.Client) {
	if cl.Closed() {
		return
	}
	if gc, ok := cl.Net.Conn.(*guardedConn); ok {
		gc.q.evict() // counts and logs it (the listener's full)
	}
	cl.Stop(errSlowConsumer)
	h.forget(cl.ID)
}

func (h *queuedHook) sent(cl *mqtt.Client, pk packets.Packet) {
	if pk.FixedHeader.Type != packets.Publish {
		return
	}
	size := queuedSize(pk)
	h.mu.Lock()
	defer h.mu.Unlock()
	if n, ok := h.own[cl.ID]; ok {
		h.own[cl.ID] -= min(size, n)
		return
	}
	n, ok := h.queued[cl.ID]
	if !ok {
		return
	}
	size = min(size, n) // a message not counted (a retained one) takes nothing off another's
	h.queued[cl.ID] -= size
	h.all -= size
}

func (h *queuedHook) OnPacketEncode(cl *mqtt.Client, pk packets.Packet) packets.Packet {
	h.sent(cl, pk)
	return pk
}

func (h *queuedHook) OnPublishDropped(cl *mqtt.Client, pk packets.Packet) { h.sent(cl, pk) }

func (h *queuedHook) OnDisconnect(cl *mqtt.Client, _ error, _ bool) { h.forget(cl.ID) }

func (h *queuedHook) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all -= h.queued[id]
	delete(h.queued, id)
	delete(h.own, id)
}

// bytes is what mochi keeps queued for every client but the daemon's.
func (h *queuedHook) bytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.all
}

// sendQueued is what waits in cl's send queue, in bytes.
func sendQueued(cl *mqtt.Client) int {
	if gc, ok := cl.Net.Conn.(*guardedConn); ok {
		return gc.q.len()
	}
	return 0
}
