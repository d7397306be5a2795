package telemetry

import (
	"container/list"
	"encoding/json"
	"sync"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The idempotency of commands lives here, and only here: the runner
// remembers no ids. A command is known by its sender and its id
// (cacheKey); the intake (handle) looks the key up before the rate limit,
// ts and the signed envelope are checked, so that a QoS 1 redelivery of a
// signed command gets its reply instead of REPLAYED (its nonce was spent
// by the first delivery). The entry is claimed only once the command
// passed every check, and it holds the one reply the command produced:
//
//   - a redelivery (every member but ts equal) gets that reply, once per
//     delivery, and nothing is done again; one that comes while the command
//     is still being carried out waits for it as long as a first delivery
//     would (CommandTimeout), and is answered INTERNAL if it has not ended
//     by then (a later retry gets the outcome);
//   - another command under the key gets ID_REUSED and does nothing;
//   - a reply that depends on a passing condition (protocol.Reply.Transient:
//     BUSY, STORAGE_FAILED, INTERNAL) is not kept: a retry runs afresh.
//
// The sender is the key id (kid) a command's signed envelope names, ""
// for an unsigned command. It is read before the envelope is checked, so
// it is a claim, and that is enough: an entry is made only by a command
// that passed Authorize, so only a holder of a key can fill that key's
// ids; a forgery under a signed command's key and id gets ID_REUSED (its
// members differ) or, before the real one came, the envelope's refusal,
// which is not kept. An unsigned command, and an e-stop (never
// authorised, so always under ""), cannot take the id of a signed one.
//
// Bounds: at most max entries (DaemonConfig.ReplyCache), the least
// recently claimed finished one forgotten first; an entry whose command
// is still being carried out is never forgotten (its outcome must reach a
// retry), so when every entry is one, a new command is answered BUSY,
// before its envelope is checked (which would spend its nonce: the BUSY
// command sent again as it was must be accepted).
// Replies are kept as they are published (boundReply).
type replyCache struct {
	mu    sync.Mutex
	max   int
	byKey map[cacheKey]*list.Element // of *cacheEntry
	order *list.List                 // newest first
}

// cacheKey names a command: its sender and its id.
type cacheKey struct{ sender, id string }

// cacheEntry is one command's place in the cache.
type cacheEntry struct {
	key  cacheKey
	hash [32]byte // bodyHash of the command
	// done is closed when reply is final; reply is read only after.
	done     chan struct{}
	reply    protocol.Reply
	finished bool // guarded by replyCache.mu
}

func newReplyCache(max int) *replyCache {
	return &replyCache{max: max, byKey: make(map[cacheKey]*list.Element, max), order: list.New()}
}

// get returns the entry of k, if there is one.
func (c *replyCache) get(k cacheKey) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		return el.Value.(*cacheEntry), true
	}
	return nil, false
}

// claim makes the entry of a command that is about to be carried out.
// first is false when k has an entry already (it is returned); ok is
// false when there is no room: every entry is a command still running.
func (c *replyCache) claim(k cacheKey, hash [32]byte) (e *cacheEntry, first, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.byKey[k]; found {
		return el.Value.(*cacheEntry), false, true
	}
	if !c.makeRoom() {
		return nil, false, false
	}
	e = &cacheEntry{key: k, hash: hash, done: make(chan struct{})}
	c.byKey[k] = c.order.PushFront(e)
	return e, true, true
}

// room reports whether claim would find room for a new entry now. It
// forgets nothing: a command refused by its envelope must not push a
// finished reply out.
func (c *replyCache) room() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.order.Len() < c.max {
		return true
	}
	for el := c.order.Back(); el != nil; el = el.Prev() {
		if el.Value.(*cacheEntry).finished {
			return true
		}
	}
	return false
}

// finish gives e its reply (the first call only) and wakes every delivery
// waiting for it. A transient reply is not kept.
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
		if el, found := c.byKey[e.key]; found && el.Value.(*cacheEntry) == e {
			c.order.Remove(el)
			delete(c.byKey, e.key)
		}
	}
}

// remember keeps the reply of a command carried out elsewhere (an
// e-stop), unless k names a command already or there is no room.
func (c *replyCache) remember(k cacheKey, hash [32]byte, r protocol.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, found := c.byKey[k]; found || !c.makeRoom() {
		return
	}
	e := &cacheEntry{key: k, hash: hash, done: make(chan struct{}), reply: r, finished: true}
	close(e.done)
	c.byKey[k] = c.order.PushFront(e)
}

// makeRoom forgets the oldest finished entries until one more fits;
// false when every entry is still running (c.mu held).
func (c *replyCache) makeRoom() bool {
	for el := c.order.Back(); c.order.Len() >= c.max; {
		if el == nil {
			return false
		}
		prev := el.Prev()
		if e := el.Value.(*cacheEntry); e.finished {
			c.order.Remove(el)
			delete(c.byKey, e.key)
		}
		el = prev
	}
	return true
}

// len is the number of entries (tests).
func (c *replyCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// maxEnvBytes is the largest signed envelope read for its sender (the
// verifier refuses larger ones).
const maxEnvBytes = 1024

// senderOf is who command c says it comes from: the key id of its signed
// envelope, "" when it has none (or none readable: such an envelope is
// refused by Authorize, so no entry is made under it). It is decoded the
// way the verifier decodes it (encoding/json), so that an envelope the
// verifier accepts names the same key here.
func senderOf(c protocol.Command) string {
	if c.Auth == nil || c.Auth.Env == "" || len(c.Auth.Env) > maxEnvBytes {
		return ""
	}
	var env struct {
		KeyID string `json:"kid"`
	}
	if json.Unmarshal([]byte(c.Auth.Env), &env) != nil {
		return ""
	}
	return env.KeyID
}
