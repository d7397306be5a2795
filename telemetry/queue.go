package telemetry

import (
	"context"
	"sync"
)

// queue is a FIFO of at most max items that holds only what is queued. A channel of max items
// is allocated whole when it is made: the reply queue's 4,096 replies and the event queue's
// 1,024 events were 270 KB of a robot's heap for queues that are nearly always empty. Its
// slice grows as items come, up to max, and is let go once drained from beyond a small size.
type queue[T any] struct {
	mu    sync.Mutex
	items []T // items[head:] are queued
	head  int
	max   int
	ready chan struct{} // one slot: an item may be waiting (see wait)
	room  chan struct{} // one slot: an item was taken (put waits on it)
}

// queueKeep is the capacity a drained queue keeps; a larger one is let go.
const queueKeep = 64

func newQueue[T any](max int) *queue[T] {
	return &queue[T]{max: max, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// offer queues v unless the queue is full; it never waits.
func (q *queue[T]) offer(v T) bool {
	q.mu.Lock()
	if len(q.items)-q.head >= q.max {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	signal(q.ready)
	return true
}

// put queues v, waiting for room; false when ctx ended first.
func (q *queue[T]) put(ctx context.Context, v T) bool {
	for !q.offer(v) {
		select {
		case <-ctx.Done():
			return false
		case <-q.room:
		}
	}
	return true
}

// wait receives when an item may be queued: after it, take until it says none.
func (q *queue[T]) wait() <-chan struct{} { return q.ready }

// take returns the oldest item; false when the queue is empty.
func (q *queue[T]) take() (T, bool) {
	var zero T
	q.mu.Lock()
	if q.head == len(q.items) {
		q.mu.Unlock()
		return zero, false
	}
	v := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	switch {
	case q.head == len(q.items):
		if cap(q.items) > queueKeep {
			q.items = nil
		} else {
			q.items = q.items[:0]
		}
		q.head = 0
	case q.head >= queueKeep && 2*q.head >= len(q.items):
		// Never drained: move what is queued to the front, so taken items
		// do not pile up in front of it.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	more := q.head < len(q.items)
	q.mu.Unlock()
	signal(q.room)
	if more {
		signal(q.ready) // for a consumer that takes one item a wake-up
	}
	return v, true
}

// len is how many items are queued.
func (q *queue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}
