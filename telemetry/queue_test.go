package telemetry

import (
	"context"
	"testing"
	"time"
)

// TestQueueBoundedFIFO: a queue keeps its order and its bound, signals a waiting consumer,
// lets a put wait for room, and holds only what is queued.
func TestQueueBoundedFIFO(t *testing.T) {
	q := newQueue[int](3)
	if cap(q.items) != 0 {
		t.Fatalf("a new queue holds room for %d items", cap(q.items))
	}
	for i := range 3 {
		if !q.offer(i) {
			t.Fatalf("offer %d refused below the bound", i)
		}
	}
	if q.offer(3) || q.len() != 3 {
		t.Fatalf("a full queue took an item: %d queued", q.len())
	}
	select {
	case <-q.wait():
	default:
		t.Fatal("no signal with items queued")
	}
	// A put waits for room: it lands once an item is taken.
	done := make(chan bool)
	go func() { done <- q.put(context.Background(), 3) }()
	if v, ok := q.take(); !ok || v != 0 {
		t.Fatalf("take: %v %v", v, ok)
	}
	if !<-done {
		t.Fatal("put gave up")
	}
	for want := 1; want <= 3; want++ {
		if v, ok := q.take(); !ok || v != want {
			t.Fatalf("take %d: %v %v", want, v, ok)
		}
	}
	if _, ok := q.take(); ok || q.len() != 0 {
		t.Fatal("an item after the last")
	}
	// A put on a full queue gives up with its context.
	for i := range 3 {
		q.offer(i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if q.put(ctx, 9) {
		t.Fatal("put on a full queue did not give up when its context ended")
	}
}

// TestQueueLetsGo: a queue that held many items lets their room go once drained, and one that
// is never drained does not pile taken items up in front of what it holds.
func TestQueueLetsGo(t *testing.T) {
	q := newQueue[int](4096)
	for i := range 4096 {
		q.offer(i)
	}
	for range 4096 {
		q.take()
	}
	if cap(q.items) != 0 {
		t.Errorf("a drained queue keeps room for %d items", cap(q.items))
	}
	// Always one behind: one in, one out, a million times.
	q.offer(-1)
	for i := range 1_000_000 {
		q.offer(i)
		if v, _ := q.take(); v != i-1 {
			t.Fatalf("take %d: %d", i, v)
		}
	}
	if cap(q.items) > 4*queueKeep {
		t.Errorf("a queue holding one item keeps room for %d", cap(q.items))
	}
}
