package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// OutboxConfig configures an Outbox.
type OutboxConfig struct {
	Dir        string        // created if missing (0700)
	MaxEvents  int           // default 10000
	MaxBytes   int64         // default 16 MiB
	Window     int           // messages in flight at once; default 16
	AckTimeout time.Duration // resend from the oldest after this; default 30 s
	Logger     *slog.Logger
	Clock      clockwork.Clock // [the real clock]
}

// Outbox keeps events on disk until the broker acknowledges them, one
// fsync'd file per event named by its sequence number, and delivers them
// in order at QoS 1. A message counts as delivered only when its
// acknowledgement came on the connection it was sent on (Delivery.Acked);
// anything else is resent, oldest first, so a subscriber may see an
// event twice (dedupe on its id) but never loses one unless the outbox
// overflows, which drops the oldest and counts them.
type Outbox struct {
	cfg OutboxConfig
	log *slog.Logger

	mu      sync.Mutex
	entries []outboxEntry // ascending seq
	bytes   int64
	lastSeq uint64

	dropped atomic.Uint64
	acked   atomic.Uint64
	added   chan struct{}
}

type outboxEntry struct {
	seq     uint64
	payload []byte
}

const outboxExt = ".evt"

// OpenOutbox opens (or creates) the outbox in cfg.Dir and loads what a
// previous run left.
func OpenOutbox(cfg OutboxConfig) (*Outbox, error) {
	if cfg.Dir == "" {
		return nil, errors.New("telemetry: outbox needs a directory")
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 10000
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 16 << 20
	}
	if cfg.Window <= 0 {
		cfg.Window = 16
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 30 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("telemetry: outbox: %w", err)
	}
	o := &Outbox{cfg: cfg, log: cfg.Logger, added: make(chan struct{}, 1)}
	if err := o.load(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Outbox) load() error {
	des, err := os.ReadDir(o.cfg.Dir)
	if err != nil {
		return fmt.Errorf("telemetry: outbox: %w", err)
	}
	for _, de := range des {
		name := de.Name()
		if strings.HasSuffix(name, ".tmp") { // a write that did not finish
			if err := os.Remove(filepath.Join(o.cfg.Dir, name)); err != nil {
				o.log.Warn("outbox: removing an unfinished write", "file", name, "err", err)
			}
			continue
		}
		num, ok := strings.CutSuffix(name, outboxExt)
		if !ok || de.IsDir() {
			continue
		}
		seq, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(o.cfg.Dir, name))
		if err != nil || len(b) == 0 {
			o.log.Warn("outbox: unreadable event dropped", "file", name, "err", err)
			_ = os.Remove(filepath.Join(o.cfg.Dir, name))
			o.dropped.Add(1)
			continue
		}
		o.entries = append(o.entries, outboxEntry{seq: seq, payload: b})
		o.bytes += int64(len(b))
		o.lastSeq = max(o.lastSeq, seq)
	}
	slices.SortFunc(o.entries, func(a, b outboxEntry) int { return cmpU64(a.seq, b.seq) })
	o.mu.Lock()
	o.evictLocked()
	o.mu.Unlock()
	return nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (o *Outbox) file(seq uint64) string {
	return filepath.Join(o.cfg.Dir, fmt.Sprintf("%020d%s", seq, outboxExt))
}

// LastSeq is the highest sequence number stored so far (0 for none), so
// a restarted daemon can number new events after the ones it resends.
func (o *Outbox) LastSeq() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastSeq
}

// Len and Bytes say what the outbox holds.
func (o *Outbox) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.entries)
}

func (o *Outbox) Bytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}

// Dropped counts events lost to overflow or unreadable files.
func (o *Outbox) Dropped() uint64 { return o.dropped.Load() }

// Acked counts events the broker acknowledged.
func (o *Outbox) Acked() uint64 { return o.acked.Load() }

// Add stores payload as event seq (greater than every stored one),
// durably, then drops the oldest events while the outbox is over its
// bounds.
func (o *Outbox) Add(seq uint64, payload []byte) error {
	if int64(len(payload)) > o.cfg.MaxBytes {
		o.dropped.Add(1)
		return fmt.Errorf("telemetry: outbox: event of %d bytes exceeds the outbox", len(payload))
	}
	o.mu.Lock()
	if seq <= o.lastSeq {
		o.mu.Unlock()
		return fmt.Errorf("telemetry: outbox: seq %d not after %d", seq, o.lastSeq)
	}
	o.lastSeq = seq
	o.mu.Unlock()

	if err := writeDurable(o.file(seq), payload); err != nil {
		o.dropped.Add(1)
		return fmt.Errorf("telemetry: outbox: %w", err)
	}
	o.mu.Lock()
	o.entries = append(o.entries, outboxEntry{seq: seq, payload: payload})
	o.bytes += int64(len(payload))
	o.evictLocked()
	o.mu.Unlock()
	select {
	case o.added <- struct{}{}:
	default:
	}
	return nil
}

// evictLocked drops the oldest events beyond the bounds.
func (o *Outbox) evictLocked() {
	for len(o.entries) > 0 && (len(o.entries) > o.cfg.MaxEvents || o.bytes > o.cfg.MaxBytes) {
		e := o.entries[0]
		o.entries = o.entries[1:]
		o.bytes -= int64(len(e.payload))
		o.removeFile(e.seq)
		o.dropped.Add(1)
		o.log.Warn("outbox full: oldest event dropped", "seq", e.seq)
	}
}

// writeDurable writes via a temporary file, fsyncs it, renames it into
// place and fsyncs the directory, so a crash leaves the whole event or
// nothing.
func writeDurable(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	err = d.Sync()
	_ = d.Close()
	return err
}

// next returns the oldest event after seq.
func (o *Outbox) next(after uint64) (outboxEntry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, _ := slices.BinarySearchFunc(o.entries, after+1, func(e outboxEntry, s uint64) int { return cmpU64(e.seq, s) })
	if i == len(o.entries) {
		return outboxEntry{}, false
	}
	return o.entries[i], true
}

// remove deletes an acknowledged event (a no-op if it was evicted).
func (o *Outbox) remove(seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, found := slices.BinarySearchFunc(o.entries, seq, func(e outboxEntry, s uint64) int { return cmpU64(e.seq, s) })
	if !found {
		return
	}
	o.bytes -= int64(len(o.entries[i].payload))
	o.entries = slices.Delete(o.entries, i, i+1)
	o.acked.Add(1)
	o.removeFile(seq)
}

// removeFile deletes an event's file. Not fsync'd: if the removal is lost
// in a crash the event is sent again, which subscribers already handle;
// a removal that fails is logged, since the event will come back at the
// next start.
func (o *Outbox) removeFile(seq uint64) {
	if err := os.Remove(o.file(seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		o.log.Warn("outbox: removing a delivered or dropped event", "seq", seq, "err", err)
	}
}

type flight struct {
	seq uint64
	d   transport.Delivery
}

// Run delivers the outbox on conn until ctx is done: in order, up to
// Window messages in flight, starting again from the oldest unacknowledged
// event after every reconnect, failed publish or AckTimeout.
func (o *Outbox) Run(ctx context.Context, conn transport.Conn, topic string) error {
	var (
		inflight []flight
		sentUpTo uint64 // highest seq published in this round
		epoch    uint64 // conn.Connects() when the round started
		backoff  <-chan time.Time
		timed    uint64 // seq of the head the ack timer runs for
	)
	restart := func() {
		inflight, sentUpTo, epoch, timed = nil, 0, conn.Connects(), 0
	}
	ackTimer := o.cfg.Clock.NewTimer(time.Hour)
	defer ackTimer.Stop()
	for {
		link := conn.LinkChanged()
		if !conn.IsUp() || conn.Connects() != epoch {
			restart()
			if !conn.IsUp() {
				select {
				case <-ctx.Done():
					return nil
				case <-link:
				}
				continue
			}
		}
		if backoff == nil {
			for len(inflight) < o.cfg.Window {
				e, ok := o.next(sentUpTo)
				if !ok {
					break
				}
				d, err := conn.PublishAsync(topic, protocol.QoSReliable, false, e.payload)
				if err != nil {
					o.log.Debug("outbox publish", "seq", e.seq, "err", err)
					backoff = o.cfg.Clock.After(time.Second)
					break
				}
				inflight = append(inflight, flight{seq: e.seq, d: d})
				sentUpTo = e.seq
			}
		}
		var headDone <-chan struct{}
		var ackTimeout <-chan time.Time
		if len(inflight) > 0 {
			headDone = inflight[0].d.Done()
			if timed != inflight[0].seq {
				timed = inflight[0].seq
				ackTimer.Reset(o.cfg.AckTimeout)
			}
			ackTimeout = ackTimer.Chan()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-link:
		case <-o.added:
		case <-backoff:
			backoff = nil
		case <-headDone:
			head := inflight[0]
			if head.d.Acked() {
				o.remove(head.seq)
				inflight = inflight[1:]
			} else {
				o.log.Debug("outbox: not acknowledged on its connection, resending", "seq", head.seq)
				restart()
				if conn.IsUp() {
					backoff = o.cfg.Clock.After(100 * time.Millisecond)
				}
			}
		case <-ackTimeout:
			o.log.Warn("outbox: no acknowledgement, resending", "seq", inflight[0].seq)
			restart()
		}
	}
}
