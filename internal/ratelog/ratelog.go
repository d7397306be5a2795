// Package ratelog bounds how often one log line repeats: a flood of the
// same record (a broker's "client store quota reached" thirty thousand
// times a second, a failed login per request) would otherwise fill the
// disk and bury everything else. It must never drop the first records of
// a kind, nor lose the count of what it held back.
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Defaults for New.
const (
	DefaultBurst  = 10
	DefaultWindow = 10 * time.Second
)

// maxKeys bounds the kinds of record tracked at once; past it, kinds with
// nothing held back are forgotten.
const maxKeys = 4096

// Handler passes the first Burst records of each kind (level and
// message) per window to the handler it wraps and counts the rest; when
// the window ends it writes one record of that kind with the count
// ("suppressed") and the window, in place of the records it held back.
type Handler struct {
	inner slog.Handler
	s     *state
}

type key struct {
	level slog.Level
	msg   string
}

type entry struct {
	start   time.Time
	n       int
	dropped int
	h       slog.Handler // writes the summary (with the attrs of the first one held back)
	timer   *time.Timer
}

type state struct {
	mu     sync.Mutex
	burst  int
	window time.Duration
	keys   map[key]*entry
}

// New wraps h; burst <= 0 or window <= 0 take the defaults.
func New(h slog.Handler, burst int, window time.Duration) *Handler {
	if burst <= 0 {
		burst = DefaultBurst
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &Handler{inner: h, s: &state{burst: burst, window: window, keys: map[key]*entry{}}}
}

// Enabled is the wrapped handler's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle passes r on, or counts it when its kind is over the burst.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	now := time.Now()
	k := key{r.Level, r.Message}
	s := h.s
	s.mu.Lock()
	e := s.keys[k]
	if e != nil && now.Sub(e.start) >= s.window && e.dropped == 0 {
		e = nil // its window ended with nothing held back
	}
	if e == nil {
		if len(s.keys) >= maxKeys {
			s.prune(now)
		}
		e = &entry{start: now}
		s.keys[k] = e
	}
	e.n++
	if e.n <= s.burst {
		s.mu.Unlock()
		return h.inner.Handle(ctx, r)
	}
	e.dropped++
	if e.timer == nil {
		e.h = h.inner
		e.timer = time.AfterFunc(s.window-now.Sub(e.start), func() { s.flush(k, e) })
	}
	s.mu.Unlock()
	return nil
}

// flush writes the count of e's held-back records and forgets e.
func (s *state) flush(k key, e *entry) {
	s.mu.Lock()
	n := e.dropped
	e.dropped = 0
	if s.keys[k] == e {
		delete(s.keys, k)
	}
	s.mu.Unlock()
	if n == 0 {
		return
	}
	r := slog.NewRecord(time.Now(), k.level, k.msg, 0)
	r.AddAttrs(slog.Int("suppressed", n), slog.Duration("window", s.window))
	_ = e.h.Handle(context.Background(), r)
}

// prune forgets the kinds whose window ended with nothing held back.
func (s *state) prune(now time.Time) {
	for k, e := range s.keys {
		if e.dropped == 0 && now.Sub(e.start) >= s.window {
			delete(s.keys, k)
		}
	}
}

// WithAttrs keeps the count shared: the kinds are counted across loggers.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(as), s: h.s}
}

// WithGroup keeps the count shared.
func (h *Handler) WithGroup(g string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(g), s: h.s}
}
