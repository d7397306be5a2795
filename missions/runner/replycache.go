package runner

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/botd-project/botd/telemetry/protocol"
)

// replyCache remembers the last replies by command id, so a command
// delivered twice (QoS 1) is executed once. It also counts the e-stops
// engaged, for estop.reset (applyReset).
type replyCache struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List
	// estops counts the e-stops engaged so far (any goroutine).
	estops atomic.Uint64
}

type cacheEntry struct {
	id       string
	reply    protocol.Reply
	done     chan struct{}
	finished bool // guarded by replyCache.mu
}

func newReplyCache(max int) *replyCache {
	return &replyCache{max: max, byID: map[string]*list.Element{}, order: list.New()}
}

// claim returns the entry for id and whether the caller is the first to
// see it (and must execute the command).
func (c *replyCache) claim(id string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.byID[id]; found {
		return el.Value.(*cacheEntry), false
	}
	e := &cacheEntry{id: id, done: make(chan struct{})}
	c.byID[id] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byID, old.Value.(*cacheEntry).id)
	}
	return e, true
}

// finish gives e its reply (once) and wakes the deliveries waiting for
// it. A reply that depends on a passing condition is not kept: the next
// delivery of the id runs the command afresh.
func (c *replyCache) finish(e *cacheEntry, r protocol.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.finished {
		return
	}
	e.finished = true
	e.reply = r
	close(e.done)
	if r.Transient() {
		if el, found := c.byID[e.id]; found && el.Value.(*cacheEntry) == e {
			c.order.Remove(el)
			delete(c.byID, e.id)
		}
	}
}
