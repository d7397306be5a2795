package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
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
	Dir       string // created if missing (0700)
	MaxEvents int    // default 10000
	MaxBytes  int64  // default 16 MiB
	// MaxEvent is the largest event kept [protocol.DefaultMaxPublish]:
	// a larger one is refused by Add, and one a previous run left is moved
	// aside at open (a broker refuses it, and a resend would follow every
	// reconnect).
	MaxEvent   int
	Window     int           // messages in flight at once; default 16
	AckTimeout time.Duration // resend from the oldest after this; default 30 s
	// Retention keeps a delivered event this long for ground stations
	// that come back (events.request) unless one acknowledges it first
	// (events.ack) [1 h]; the bounds above still apply.
	Retention time.Duration
	Logger    *slog.Logger
	Clock     clockwork.Clock // [the real clock]
}

// Outbox keeps events on disk, one fsync'd and checksummed file per event
// named by its sequence number, and delivers them in order at QoS 1. A
// message counts as delivered to the broker only when its acknowledgement
// came on the connection it was sent on (Delivery.Acked); anything else is
// resent, oldest first, so a subscriber may see an event twice (dedupe on
// its id). A delivered event stays until a ground station acknowledges it
// (Ack) or Retention passes, so a ground station whose broker session was
// lost can ask for it again (Replay). Overflow drops the oldest, counted.
//
// Sequence numbers survive restarts: state.json keeps the boot counter
// (one more at every open) and the highest sequence number whose file is
// gone, so numbering never goes back. A file that fails its checksum is
// moved to corrupt/ and counted, never published.
type Outbox struct {
	cfg OutboxConfig
	log *slog.Logger

	mu      sync.Mutex
	entries []outboxEntry // ascending seq
	bytes   int64
	lastSeq uint64
	boot    uint64
	corrupt int // files moved aside at open
	// stateCorrupt is why state.json was found damaged at open and moved
	// to state.json.corrupt ("" when it was fine).
	stateCorrupt string

	dropped atomic.Uint64
	acked   atomic.Uint64
	failed  atomic.Uint64 // events that could not be written
	added   chan struct{}
	replay  chan uint64 // Replay requests for Run
}

type outboxEntry struct {
	seq     uint64
	payload []byte
	sent    time.Time // broker acknowledged it (zero: not yet, in this run)
}

const (
	outboxExt   = ".evt"
	outboxMagic = "botd-event 1"
	stateFile   = "state.json"
	corruptDir  = "corrupt"
)

// outboxState is state.json.
type outboxState struct {
	Boot uint64 `json:"boot"`
	Seq  uint64 `json:"seq"` // no event at or below it will be numbered again
}

// OpenOutbox opens (or creates) the outbox in cfg.Dir, loads what a
// previous run left, and counts this start in the boot counter.
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
	if cfg.MaxEvent <= 0 {
		cfg.MaxEvent = protocol.DefaultMaxPublish
	}
	if cfg.Window <= 0 {
		cfg.Window = 16
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 30 * time.Second
	}
	if cfg.Retention <= 0 {
		cfg.Retention = time.Hour
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
	o := &Outbox{cfg: cfg, log: cfg.Logger, added: make(chan struct{}, 1), replay: make(chan uint64, 1)}
	st, err := o.readState()
	if err != nil {
		return nil, err
	}
	if err := o.load(); err != nil {
		return nil, err
	}
	o.boot = st.Boot + 1
	o.lastSeq = max(o.lastSeq, st.Seq)
	if err := o.writeState(); err != nil {
		return nil, fmt.Errorf("telemetry: outbox: %w", err)
	}
	return o, nil
}

func (o *Outbox) readState() (outboxState, error) {
	var st outboxState
	b, err := os.ReadFile(filepath.Join(o.cfg.Dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("telemetry: outbox: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		// A damaged state must not keep the daemon from starting: it is
		// put aside for an operator to look at, and reported. Sequence
		// numbers start again above the events kept; the boot counter
		// starts again from the clock (seconds since 1970), far above any
		// count of starts, so (boot, seq) never repeats one sent before.
		path := filepath.Join(o.cfg.Dir, stateFile)
		o.stateCorrupt = err.Error()
		o.log.Error("outbox: state.json is damaged; moved aside, numbering starts a new boot", "err", err)
		if rerr := os.Rename(path, path+".corrupt"); rerr != nil {
			return st, fmt.Errorf("telemetry: outbox: %s is damaged (%v) and cannot be moved aside: %w", path, err, rerr)
		}
		return outboxState{Boot: uint64(max(o.cfg.Clock.Now().Unix(), 1))}, nil
	}
	return st, nil
}

// writeState records the boot counter and the sequence floor durably.
// Called with mu held, or before the outbox is shared.
func (o *Outbox) writeState() error {
	b, _ := json.Marshal(outboxState{Boot: o.boot, Seq: o.lastSeq})
	return writeDurable(filepath.Join(o.cfg.Dir, stateFile), b)
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
		var payload []byte
		if err == nil {
			var b []byte
			if b, err = os.ReadFile(filepath.Join(o.cfg.Dir, name)); err == nil {
				payload, err = decodeRecord(seq, b)
			}
		}
		if err == nil && len(payload) > o.cfg.MaxEvent {
			err = fmt.Errorf("event of %d bytes is larger than the %d a message may have", len(payload), o.cfg.MaxEvent)
		}
		if err != nil {
			o.moveAside(name, err)
			continue
		}
		o.entries = append(o.entries, outboxEntry{seq: seq, payload: payload})
		o.bytes += int64(len(payload))
		o.lastSeq = max(o.lastSeq, seq)
	}
	slices.SortFunc(o.entries, func(a, b outboxEntry) int { return cmpU64(a.seq, b.seq) })
	o.mu.Lock()
	o.evictLocked()
	o.mu.Unlock()
	return nil
}

// moveAside puts a file that is not a valid event into corrupt/, where an
// operator can look at it, and counts it.
func (o *Outbox) moveAside(name string, why error) {
	o.corrupt++
	o.dropped.Add(1)
	o.log.Warn("outbox: damaged event moved aside, not published", "file", name, "err", why)
	dir := filepath.Join(o.cfg.Dir, corruptDir)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.Rename(filepath.Join(o.cfg.Dir, name), filepath.Join(dir, name))
	}
	if err != nil {
		o.log.Error("outbox: moving a damaged event aside", "file", name, "err", err)
		_ = os.Remove(filepath.Join(o.cfg.Dir, name))
	}
}

// encodeRecord frames payload: a header line with the sequence number,
// the length and a CRC-32C of both, then the payload.
func encodeRecord(seq uint64, payload []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d %d %08x\n", outboxMagic, seq, len(payload), recordCRC(seq, payload))
	b.Write(payload)
	return b.Bytes()
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func recordCRC(seq uint64, payload []byte) uint32 {
	var s [8]byte
	for i := range s {
		s[i] = byte(seq >> (8 * i))
	}
	return crc32.Update(crc32.Checksum(s[:], castagnoli), castagnoli, payload)
}

// decodeRecord checks a file named for seq and returns its payload.
func decodeRecord(seq uint64, b []byte) ([]byte, error) {
	line, payload, ok := bytes.Cut(b, []byte("\n"))
	if !ok || len(line) > 128 {
		return nil, errors.New("no header line")
	}
	var magic1, magic2 string
	var hseq uint64
	var n int
	var crc uint32
	if _, err := fmt.Sscanf(string(line), "%s %s %d %d %x", &magic1, &magic2, &hseq, &n, &crc); err != nil || magic1+" "+magic2 != outboxMagic {
		return nil, fmt.Errorf("bad header %q", line)
	}
	switch {
	case hseq != seq:
		return nil, fmt.Errorf("the file is named for seq %d but holds seq %d", seq, hseq)
	case n != len(payload):
		return nil, fmt.Errorf("truncated: %d of %d bytes", len(payload), n)
	case crc != recordCRC(seq, payload):
		return nil, errors.New("checksum mismatch")
	}
	return payload, nil
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

// LastSeq is the highest sequence number used so far, across restarts;
// new events are numbered after it.
func (o *Outbox) LastSeq() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastSeq
}

// Boot counts the outbox's opens: one more at every daemon start.
func (o *Outbox) Boot() uint64 { return o.boot }

// StateCorrupt says why state.json was found damaged at open and moved
// aside to state.json.corrupt ("" when it was fine).
func (o *Outbox) StateCorrupt() string { return o.stateCorrupt }

// Corrupt is how many damaged files were moved aside at open.
func (o *Outbox) Corrupt() int { return o.corrupt }

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

// Pending is how many kept events the broker has not acknowledged yet.
func (o *Outbox) Pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, e := range o.entries {
		if e.sent.IsZero() {
			n++
		}
	}
	return n
}

// Dropped counts events lost to overflow, damaged files or failed writes.
func (o *Outbox) Dropped() uint64 { return o.dropped.Load() }

// Failed counts events that could not be written to disk.
func (o *Outbox) Failed() uint64 { return o.failed.Load() }

// Acked counts events the broker acknowledged.
func (o *Outbox) Acked() uint64 { return o.acked.Load() }

// Add stores payload as event seq (greater than every stored one),
// durably, then drops the oldest events while the outbox is over its
// bounds. A failed write is counted and returned; the caller still has the
// event to send live.
func (o *Outbox) Add(seq uint64, payload []byte) error {
	return o.AddBatch([]OutboxEvent{{Seq: seq, Payload: payload}})[0]
}

// OutboxEvent is one event for AddBatch.
type OutboxEvent struct {
	Seq     uint64
	Payload []byte
}

// AddBatch stores events (ascending seq, each greater than every stored
// one) as Add does, with one directory sync for the batch instead of one
// per event: each event's file is written and synced, all are renamed into
// place, then the directory is synced once. It returns one error per
// event (nil: stored); a failed event is counted as Add counts it, and the
// caller still has it to send live.
func (o *Outbox) AddBatch(events []OutboxEvent) []error {
	errs := make([]error, len(events))
	o.mu.Lock()
	last := uint64(0)
	if len(o.entries) > 0 {
		last = o.entries[len(o.entries)-1].seq
	}
	for i, e := range events {
		if int64(len(e.Payload)) > o.cfg.MaxBytes || len(e.Payload) > o.cfg.MaxEvent {
			o.dropped.Add(1)
			errs[i] = fmt.Errorf("telemetry: outbox: event of %d bytes exceeds the limit of %d", len(e.Payload), min(int64(o.cfg.MaxEvent), o.cfg.MaxBytes))
			continue
		}
		if e.Seq <= last {
			errs[i] = fmt.Errorf("telemetry: outbox: seq %d not after %d", e.Seq, last)
			continue
		}
		last = e.Seq
		o.lastSeq = max(o.lastSeq, e.Seq)
	}
	o.mu.Unlock()

	written := 0
	for i, e := range events {
		if errs[i] != nil {
			continue
		}
		if err := writeSynced(o.file(e.Seq), encodeRecord(e.Seq, e.Payload)); err != nil {
			errs[i] = o.writeFailed(err)
			continue
		}
		written++
	}
	if written > 0 {
		if err := syncDir(o.cfg.Dir); err != nil {
			for i := range events {
				if errs[i] == nil {
					errs[i] = o.writeFailed(err)
				}
			}
		}
	}
	stored := 0
	o.mu.Lock()
	for i, e := range events {
		if errs[i] != nil {
			continue
		}
		o.entries = append(o.entries, outboxEntry{seq: e.Seq, payload: e.Payload})
		o.bytes += int64(len(e.Payload))
		stored++
	}
	if stored > 0 {
		o.evictLocked()
	}
	o.mu.Unlock()
	if stored > 0 {
		select {
		case o.added <- struct{}{}:
		default:
		}
	}
	return errs
}

// writeFailed counts an event that could not be written.
func (o *Outbox) writeFailed(err error) error {
	o.dropped.Add(1)
	o.failed.Add(1)
	return fmt.Errorf("telemetry: outbox: %w", err)
}

// evictLocked drops the oldest events beyond the bounds, and delivered
// ones past their retention.
func (o *Outbox) evictLocked() {
	now := o.cfg.Clock.Now()
	for len(o.entries) > 0 {
		e := o.entries[0]
		over := len(o.entries) > o.cfg.MaxEvents || o.bytes > o.cfg.MaxBytes
		expired := !e.sent.IsZero() && now.Sub(e.sent) >= o.cfg.Retention
		if !over && !expired {
			return
		}
		o.deleteHeadLocked()
		if over && e.sent.IsZero() {
			o.dropped.Add(1)
			o.log.Warn("outbox full: oldest event dropped before delivery", "seq", e.seq)
		}
	}
}

// deleteHeadLocked removes the oldest entry and its file; the newest
// sequence number is recorded first, so numbering never goes back.
func (o *Outbox) deleteHeadLocked() {
	e := o.entries[0]
	if len(o.entries) == 1 {
		if err := o.writeState(); err != nil {
			o.log.Error("outbox: recording the sequence number; the event file stays", "seq", e.seq, "err", err)
			return
		}
	}
	o.entries = o.entries[1:]
	o.bytes -= int64(len(e.payload))
	if err := os.Remove(o.file(e.seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		o.log.Warn("outbox: removing an event file", "seq", e.seq, "err", err)
	}
}

// Ack lets the outbox drop the events up to seq that reached the broker:
// a ground station has them.
func (o *Outbox) Ack(seq uint64) (dropped int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(o.entries) > 0 && o.entries[0].seq <= seq && !o.entries[0].sent.IsZero() {
		o.deleteHeadLocked()
		dropped++
	}
	return dropped
}

// Replay asks Run to send again every kept event after seq; it returns the
// range it will send (count 0: nothing kept after seq).
func (o *Outbox) Replay(after uint64) (first, last uint64, count int) {
	o.mu.Lock()
	for _, e := range o.entries {
		if e.seq > after {
			if count == 0 {
				first = e.seq
			}
			last = e.seq
			count++
		}
	}
	o.mu.Unlock()
	if count > 0 {
		for {
			select {
			case o.replay <- after:
				return first, last, count
			case old := <-o.replay:
				after = min(after, old)
			}
		}
	}
	return first, last, count
}

// writeDurable writes via a temporary file, fsyncs it, renames it into
// place and fsyncs the directory, so a crash leaves the whole file or
// nothing.
func writeDurable(path string, data []byte) error {
	if err := writeSynced(path, data); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeSynced writes via a temporary file, fsyncs it and renames it into
// place; the rename is durable once the directory is synced (syncDir).
func writeSynced(path string, data []byte) error {
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
	}
	return err
}

// syncDir fsyncs a directory, making the renames in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// next returns the oldest event after seq that the broker has not
// acknowledged in this run.
func (o *Outbox) next(after uint64) (outboxEntry, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, _ := slices.BinarySearchFunc(o.entries, after+1, func(e outboxEntry, s uint64) int { return cmpU64(e.seq, s) })
	for ; i < len(o.entries); i++ {
		if o.entries[i].sent.IsZero() {
			return o.entries[i], true
		}
	}
	return outboxEntry{}, false
}

// delivered marks an event the broker acknowledged; it stays for
// Retention or until a ground station acknowledges it.
func (o *Outbox) delivered(seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, found := slices.BinarySearchFunc(o.entries, seq, func(e outboxEntry, s uint64) int { return cmpU64(e.seq, s) })
	if !found {
		return
	}
	o.entries[i].sent = o.cfg.Clock.Now()
	o.acked.Add(1)
	o.evictLocked()
}

// unsend marks the kept events after seq as not yet sent, for a replay.
func (o *Outbox) unsend(after uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.entries {
		if o.entries[i].seq > after {
			o.entries[i].sent = time.Time{}
		}
	}
}

type flight struct {
	seq uint64
	d   transport.Delivery
}

// Run delivers the outbox on conn until ctx is done: in order, up to
// Window messages in flight, starting again from the oldest unacknowledged
// event after every reconnect, failed publish or AckTimeout, and from a
// ground station's Replay point when one asks.
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
	retention := o.cfg.Clock.NewTicker(max(o.cfg.Retention/4, time.Second))
	defer retention.Stop()
	for {
		link := conn.LinkChanged()
		if !conn.IsUp() || conn.Connects() != epoch {
			restart()
			if !conn.IsUp() {
				select {
				case <-ctx.Done():
					return nil
				case after := <-o.replay:
					o.unsend(after)
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
		case <-retention.Chan():
			o.mu.Lock()
			o.evictLocked()
			o.mu.Unlock()
		case after := <-o.replay:
			// Send the kept events again from the ground station's point
			// (what is in flight goes again too: duplicates are harmless).
			o.unsend(after)
			restart()
		case <-backoff:
			backoff = nil
		case <-headDone:
			head := inflight[0]
			if head.d.Acked() {
				o.delivered(head.seq)
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
