package runner

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// MaxOperatorString is the longest string value blackboard.set accepts,
// in bytes: operator values stay on the blackboard, which telemetry
// publishes at its rate.
const MaxOperatorString = bt.MaxValueBytes // the limit of values missions write, too

// prepareSet checks a blackboard.set on the caller's goroutine: a
// writable key, a number, boolean or string value, not too long; and it
// finds how the active mission uses the key, for applySet to check the
// value's type against.
func (r *Runner) prepareSet(p *pending) (protocol.Reply, bool) {
	c := p.c
	allowed := false
	for _, k := range r.cfg.Writable {
		allowed = allowed || k == c.Key
	}
	if !allowed {
		return refuse(c, protocol.ErrValidation, fmt.Sprintf("key %q is not writable by operators (config: writable)", c.Key), "/key"), true
	}
	v := bt.ValueOf(c.Value)
	switch v.Kind() {
	case bt.KindNone, bt.KindOther:
		return refuse(c, protocol.ErrValidation, "value must be a number, boolean or string", "/value"), true
	case bt.KindString:
		if n := len(v.String()); n > MaxOperatorString {
			return refuse(c, protocol.ErrTooLarge, fmt.Sprintf("a string of %d bytes exceeds the limit of %d for operator values", n, MaxOperatorString), "/value"), true
		}
	}
	r.mu.Lock()
	tree, doc := r.activeTree, r.activeDoc
	r.mu.Unlock()
	if tree != nil {
		p.parent, p.uses = tree, missions.KeyUses(doc, r.cfg.Registry, c.Key)
	}
	return protocol.Reply{}, false
}

// applySet writes an operator value (tick goroutine). The value must have
// the type the running mission uses the key with; when the mission says
// nothing of the key, or no mission runs, the type of the value the key
// holds already.
func (r *Runner) applySet(p *pending, now time.Time) protocol.Reply {
	c := p.c
	v := bt.ValueOf(c.Value)
	run := r.run
	if run != nil && !isActive(run.status) {
		run = nil
	}
	var uses []missions.KeyUse
	if run != nil {
		uses = p.uses
		if p.parent != run.s.m.Tree { // another mission started meanwhile
			uses = missions.KeyUses(run.s.m.Doc, r.cfg.Registry, c.Key)
		}
	}
	for _, u := range uses {
		if u.Kind != v.Kind() {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("the running mission %s %q as a %s (%s); got a %s",
				u.How, c.Key, u.Kind, u.Where, v.Kind()), "/value")
		}
	}
	if len(uses) == 0 {
		prev := r.operator[c.Key]
		if run != nil {
			if slot, found := run.s.m.Tree.Slot(c.Key); found {
				if cur := run.agent.BB.Get(slot); cur.Kind() != bt.KindNone {
					prev = cur
				}
			}
		}
		if k := prev.Kind(); k != bt.KindNone && k != v.Kind() {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("key %q holds a %s; got a %s", c.Key, k, v.Kind()), "/value")
		}
	}
	r.operator[c.Key] = v
	if run != nil {
		if slot, found := run.s.m.Tree.Slot(c.Key); found {
			run.agent.BB.SetAt(slot, v, now.UnixNano())
		}
	}
	return ok(c, nil)
}
