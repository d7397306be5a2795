package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Hub limits and pacing.
const (
	keepEvents   = 300 // events a page gets when it connects
	keepMetrics  = 300 // metrics samples (one a second)
	keepProblems = 50  // undecodable payloads
	// historyTimeout bounds the wait for the reply to events.request.
	historyTimeout = 15 * time.Second
	subscriberBuf  = 512 // frames a tab may fall behind before it is dropped
	// lingerFor keeps a robot watched after its last tab left, so a
	// reload keeps the event history.
	lingerFor = 2 * time.Minute
	// keyframeRetry spaces state.request commands while a keyframe is
	// missing.
	keyframeRetry   = 2 * time.Second
	keyframeTimeout = 5 * time.Second
	// maxViews bounds the robots watched at once (each a subscription,
	// its events and metrics): a new one takes the place of a robot no
	// tab looks at any more, or is refused.
	maxViews = 64
)

// hub shares one Ground.Watch per robot among the tabs that look at it.
type hub struct {
	g      station
	log    *slog.Logger
	now    func() time.Time
	linger atomic.Int64 // time.Duration; tests shorten it
	retry  atomic.Int64 // time.Duration
	max    int          // maxViews; tests lower it before use

	mu    sync.Mutex // guards views; taken before a view's mu, never after
	views map[string]*view

	watchMu sync.Mutex // serializes Watch and stop calls (see unwatch)

	bgMu   sync.Mutex // guards closed and bg.Add
	closed bool
	bg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

func newHub(g station, log *slog.Logger, now func() time.Time) *hub {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hub{g: g, log: log, now: now, views: map[string]*view{}, ctx: ctx, cancel: cancel, max: maxViews}
	h.linger.Store(int64(lingerFor))
	h.retry.Store(int64(keyframeRetry))
	return h
}

// goBackground runs f on a goroutine the hub waits for in close; it
// reports false (and does not run f) once the hub is closed.
func (h *hub) goBackground(f func(ctx context.Context)) bool {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.closed {
		return false
	}
	h.bg.Go(func() { f(h.ctx) })
	return true
}

// subscriber is one tab's stream.
type subscriber struct {
	ch     chan []byte
	queued atomic.Int64  // bytes in ch
	gone   chan struct{} // closed when the hub dropped the tab
	once   sync.Once
	// Tree bytes sent since treeSince (treebound.go; the view's mu).
	treeSince time.Time
	treeBytes int
}

func (s *subscriber) drop() { s.once.Do(func() { close(s.gone) }) }

// subscribe registers a tab for robot and returns the frames that bring
// it up to date; later frames come on sub.ch. The first tab of a robot
// starts its watch.
func (h *hub) subscribe(ctx context.Context, robot string) (*subscriber, [][]byte, error) {
	for {
		h.mu.Lock()
		if h.isClosed() {
			h.mu.Unlock()
			return nil, nil, context.Canceled
		}
		v := h.views[robot]
		starter := v == nil
		if starter && len(h.views) >= h.max && !h.evictIdle() {
			h.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: %d robots are watched by open tabs already; close one", errTooManyWatched, len(h.views))
		}
		if starter {
			v = newView(h, robot)
			h.views[robot] = v
		}
		h.mu.Unlock()

		if starter {
			h.startWatch(v)
		}
		select {
		case <-v.ready:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		if v.watchErr != nil {
			return nil, nil, fmt.Errorf("watching %s: %w", robot, v.watchErr)
		}
		h.mu.Lock()
		if h.views[robot] != v { // unwatched meanwhile: start over
			h.mu.Unlock()
			continue
		}
		v.mu.Lock()
		if v.linger != nil {
			v.linger.Stop()
			v.linger = nil
		}
		sub := &subscriber{ch: make(chan []byte, subscriberBuf), gone: make(chan struct{})}
		v.subs[sub] = struct{}{}
		frames := v.snapshotFrames()
		v.mu.Unlock()
		h.mu.Unlock()
		return sub, frames, nil
	}
}

func (h *hub) isClosed() bool {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	return h.closed
}

func (h *hub) startWatch(v *view) {
	h.watchMu.Lock()
	stop, err := h.g.Watch(v.id, v.handlers())
	h.watchMu.Unlock()
	v.stop, v.watchErr = stop, err
	if err == nil {
		v.requestHistory() // subscribed first, so nothing falls between
	}
	if err != nil {
		h.log.Warn("cannot watch robot", "robot", v.id, "err", err)
		h.mu.Lock()
		if h.views[v.id] == v {
			delete(h.views, v.id)
		}
		h.mu.Unlock()
	}
	close(v.ready)
}

// unsubscribe removes a tab; the robot stays watched for h.linger.
func (h *hub) unsubscribe(robot string, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.views[robot]
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.subs, sub)
	sub.drop()
	if len(v.subs) == 0 && v.linger == nil && !h.isClosed() {
		v.linger = time.AfterFunc(time.Duration(h.linger.Load()), func() {
			h.goBackground(func(context.Context) { h.unwatch(v) })
		})
	}
}

// unwatch ends a robot's watch when no tab came back.
func (h *hub) unwatch(v *view) {
	h.mu.Lock()
	if h.views[v.id] != v {
		h.mu.Unlock()
		return
	}
	v.mu.Lock()
	idle := len(v.subs) == 0
	if idle {
		v.linger = nil
	}
	v.mu.Unlock()
	if !idle {
		h.mu.Unlock()
		return
	}
	delete(h.views, v.id)
	h.mu.Unlock()
	h.stopView(v)
}

// errTooManyWatched refuses a robot beyond maxViews.
var errTooManyWatched = errors.New("too many robots watched")

// evictIdle ends the watch of one robot no tab looks at (it lingers), to
// make room; h.mu held. It reports whether there was one.
func (h *hub) evictIdle() bool {
	for id, v := range h.views {
		select {
		case <-v.ready:
		default:
			continue // still starting
		}
		v.mu.Lock()
		idle := len(v.subs) == 0 && v.linger != nil
		if idle {
			v.linger.Stop()
			v.linger = nil
		}
		v.mu.Unlock()
		if idle {
			delete(h.views, id)
			if !h.goBackground(func(context.Context) { h.stopView(v) }) {
				h.stopView(v) // closing: close no longer sees it
			}
			return true
		}
	}
	return false
}

// stopView ends the watch of a view already out of h.views.
func (h *hub) stopView(v *view) {
	v.mu.Lock()
	v.stopped = true // no more keyframe requests
	v.mu.Unlock()
	v.hist.Close()
	// Under watchMu: a new Watch of the same robot either happened
	// before (and this stop does nothing, the Ground knows it is not
	// current) or waits for this stop to finish.
	h.watchMu.Lock()
	defer h.watchMu.Unlock()
	if v.stop != nil {
		if err := v.stop(); err != nil {
			h.log.Debug("unwatching robot", "robot", v.id, "err", err)
		}
	}
}

// snapshot returns a robot's current view for GET /api/robots/{robot}.
func (h *hub) snapshot(robot string) (robotSnapshot, bool) {
	h.mu.Lock()
	v := h.views[robot]
	h.mu.Unlock()
	if v == nil {
		return robotSnapshot{}, false
	}
	select {
	case <-v.ready:
	default:
		return robotSnapshot{}, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snapshot(), true
}

// close drops every tab, ends every watch and waits for the background
// requests.
func (h *hub) close() {
	h.bgMu.Lock()
	already := h.closed
	h.closed = true
	h.bgMu.Unlock()
	if already {
		return
	}
	h.cancel()
	h.mu.Lock()
	views := h.views
	h.views = map[string]*view{}
	h.mu.Unlock()
	for _, v := range views {
		<-v.ready
		v.mu.Lock()
		if v.linger != nil {
			v.linger.Stop()
			v.linger = nil
		}
		for s := range v.subs {
			s.drop()
		}
		v.subs = map[*subscriber]struct{}{}
		v.mu.Unlock()
		v.hist.Close()
		if v.stop != nil {
			h.watchMu.Lock()
			_ = v.stop()
			h.watchMu.Unlock()
		}
	}
	h.bg.Wait()
}
