package groot2

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/runner"
)

// Recorder writes each mission run to a .btlog file Groot2 replays, in a
// directory it keeps bounded: at most MaxFiles files and MaxTotalBytes
// bytes (the oldest are removed before a new one is opened), each file at
// most MaxFileBytes (the recording stops there, the file stays valid). It
// is a runner.Recorder.
//
// The tick goroutine never waits on the disk: the run's observer fills
// fixed buffers (no allocation once the run started) that a goroutine of
// the run writes; when the disk falls behind and every buffer is full, the
// recording stops there and the file says so in the daemon's log. The tree
// is written at the run's start (its XML made on the tick goroutine, as a
// mission load does).
type Recorder struct {
	cfg RecorderConfig
	// mu serializes the directory's pruning and file creation (the runs'
	// goroutines).
	mu sync.Mutex
	wg sync.WaitGroup
}

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	Dir           string
	MaxFiles      int   // [20]
	MaxFileBytes  int64 // [16 MiB]
	MaxTotalBytes int64 // [256 MiB]; at least MaxFileBytes
	Registry      *bt.Registry
	Logger        *slog.Logger
}

// Recorder defaults.
const (
	DefaultRecordFiles      = 20
	DefaultRecordFileBytes  = 16 << 20
	DefaultRecordTotalBytes = 256 << 20
)

// transitionBytes is the size of a transition record.
const transitionBytes = 9

// recordChunk is the size of a run's write buffers, and recordChunks how
// many it has: what the disk may fall behind by before the recording
// stops.
const (
	recordChunk  = 64 << 10
	recordChunks = 16
)

// BTLogExt names the recorded files.
const BTLogExt = ".btlog"

// NewRecorder makes the directory and prunes it to its bounds.
func NewRecorder(c RecorderConfig) (*Recorder, error) {
	if c.Dir == "" {
		return nil, errors.New("groot2: the recorder needs a directory")
	}
	if c.MaxFiles <= 0 {
		c.MaxFiles = DefaultRecordFiles
	}
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = DefaultRecordFileBytes
	}
	if c.MaxTotalBytes <= 0 {
		c.MaxTotalBytes = DefaultRecordTotalBytes
	}
	c.MaxTotalBytes = max(c.MaxTotalBytes, c.MaxFileBytes)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	r := &Recorder{cfg: c}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.prune(0, 0); err != nil {
		return nil, err
	}
	return r, nil
}

// Wait waits for the runs' writers to finish (after the runner stopped).
func (r *Recorder) Wait() { r.wg.Wait() }

// Recordings lists the directory's .btlog files, oldest first.
func (r *Recorder) Recordings() ([]os.FileInfo, error) {
	ents, err := os.ReadDir(r.cfg.Dir)
	if err != nil {
		return nil, err
	}
	var out []os.FileInfo
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), BTLogExt) {
			if fi, err := e.Info(); err == nil {
				out = append(out, fi)
			}
		}
	}
	// Names start with the run's start time: their order is the age.
	slices.SortFunc(out, func(a, b os.FileInfo) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// prune removes the oldest files until there is room for files more files
// of bytes more bytes (r.mu held).
func (r *Recorder) prune(files int, bytes int64) error {
	fis, err := r.Recordings()
	if err != nil {
		return err
	}
	var total int64
	for _, fi := range fis {
		total += fi.Size()
	}
	for len(fis) > 0 && (len(fis)+files > r.cfg.MaxFiles || total+bytes > r.cfg.MaxTotalBytes) {
		old := fis[0]
		fis = fis[1:]
		if err := os.Remove(filepath.Join(r.cfg.Dir, old.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		total -= old.Size()
		r.cfg.Logger.Info("btlog removed to keep the recordings bounded", "file", old.Name())
	}
	return nil
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })

// StartRun starts recording a run (runner.Recorder).
func (r *Recorder) StartRun(m *missions.Mission, next bt.Observer, now time.Time) (bt.Observer, func(string)) {
	name := unsafeName().ReplaceAllString(m.Doc.Name, "_")
	if len(name) > 40 {
		name = name[:40]
	}
	id := m.Doc.ID
	if len(id) > 8 {
		id = id[:8]
	}
	file := fmt.Sprintf("%s-%s-%s%s", now.UTC().Format("20060102T150405.000Z"), strings.Trim(name, "_."), id, BTLogExt)
	w := &runWriter{rec: r, path: filepath.Join(r.cfg.Dir, file), limit: r.cfg.MaxFileBytes,
		full: make(chan []byte, recordChunks), free: make(chan []byte, recordChunks)}
	l, err := NewBTLog(w, m.Doc, m.Tree, r.cfg.Registry, now)
	if err == nil {
		err = l.Flush() // the header, into w.head
	}
	if err != nil {
		r.cfg.Logger.Warn("this mission is not recorded", "mission", m.Doc.ID, "err", err)
		return next, nil
	}
	if int64(w.head.Len()) >= w.limit {
		r.cfg.Logger.Warn("this mission is not recorded: its tree alone is larger than a recording may be", "mission", m.Doc.ID,
			"bytes", w.head.Len(), "limit", w.limit)
		return next, nil
	}
	for range recordChunks {
		w.free <- make([]byte, 0, recordChunk)
	}
	// The limit falls between two transitions: a cut file stays whole.
	head := int64(w.head.Len())
	w.started, w.written, w.limit = true, head, head+(w.limit-head)/transitionBytes*transitionBytes
	r.wg.Add(1)
	go w.run()
	first := now
	return l.Observer(func() time.Duration { return time.Since(first) }, next), func(status string) {
		_ = l.Flush()
		w.close(status)
	}
}

// runWriter is one run's file: Write (the tick goroutine) copies into a
// free buffer and hands it to run, which writes it to the file.
type runWriter struct {
	rec     *Recorder
	path    string
	limit   int64
	head    bytes.Buffer // the header, before run starts
	started bool
	full    chan []byte
	free    chan []byte
	written int64 // accepted bytes (tick goroutine)
	stopped atomic.Value
	status  string
	closed  bool
}

var errRecordingFull = errors.New("the recording reached its size limit")

// Write takes p or refuses it; a refusal ends the recording (BTLog stops
// at its first write error).
func (w *runWriter) Write(p []byte) (int, error) {
	if !w.started {
		return w.head.Write(p)
	}
	var full error
	if room := w.limit - w.written; int64(len(p)) > room {
		w.stopped.Store("the file reached its size limit")
		p, full = p[:room], errRecordingFull
	}
	n := 0
	for n < len(p) {
		var b []byte
		select {
		case b = <-w.free:
		default:
			w.stopped.Store("the disk fell behind")
			return n, errors.New("the recording's buffers are full")
		}
		k := min(len(p)-n, cap(b))
		b = append(b[:0], p[n:n+k]...)
		w.full <- b // never blocks: as many buffers as places
		n += k
		w.written += int64(k)
	}
	return n, full
}

// close ends the run's recording (tick goroutine).
func (w *runWriter) close(status string) {
	if w.closed {
		return
	}
	w.closed = true
	w.status = status
	close(w.full)
}

// run creates the file (pruning the directory first), writes the header
// and then the buffers as they come, and closes it when the run ended.
func (w *runWriter) run() {
	defer w.rec.wg.Done()
	log := w.rec.cfg.Logger
	f, err := w.create()
	if err != nil {
		log.Warn("this mission is not recorded", "file", w.path, "err", err)
	}
	if f != nil {
		if _, err = f.Write(w.head.Bytes()); err != nil {
			log.Warn("recording", "file", w.path, "err", err)
		}
	}
	for b := range w.full {
		if f != nil && err == nil {
			if _, err = f.Write(b); err != nil {
				log.Warn("recording", "file", w.path, "err", err)
			}
		}
		w.free <- b
	}
	if f == nil {
		return
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		log.Warn("recording", "file", w.path, "err", cerr)
	}
	if why, _ := w.stopped.Load().(string); why != "" {
		log.Warn("the recording stopped before the mission ended", "file", w.path, "reason", why)
	}
	log.Info("mission recorded", "file", w.path, "status", w.status)
}

func (w *runWriter) create() (*os.File, error) {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	if err := w.rec.prune(1, w.limit); err != nil {
		return nil, err
	}
	return os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

var _ runner.Recorder = (*Recorder)(nil)
