package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The journal keeps accepted missions and their lifecycle in the state
// directory, so that after a crash or a reboot the daemon knows which
// mission was interrupted. Missions are stored as missions/<id>.json
// (canonical JSON); lifecycle records are appended to journal.jsonl. Writes
// happen on the journal's own goroutine: the tick never waits for a disk.

type journalRecord struct {
	TS       time.Time `json:"ts"`
	Event    string    `json:"event"` // accepted, started, paused, resumed, finished, aborted, interrupted, evicted, geofence_breach
	Mission  string    `json:"mission"`
	Revision int64     `json:"revision"`
	Hash     string    `json:"hash,omitempty"`
	// Status is how a run ended; for a geofence_breach, the fence's action.
	Status string `json:"status,omitempty"`
	// Zone names the zone a geofence_breach breached (the config's fence
	// or the mission's zone).
	Zone string `json:"zone,omitempty"`
}

// journalState is what a journal remembers at start-up.
type journalState struct {
	docs        map[string][]byte // mission id -> canonical document
	files       map[string]string // mission id -> its document's file name
	revisions   map[string]int64
	interrupted string // id of the mission that was running, or ""
	interRev    int64
	// corrupt counts journal lines that did not parse (a torn write at a
	// crash, or damage); the original is kept as journal.jsonl.corrupt.
	corrupt int
}

type journal struct {
	dir  string
	log  *slog.Logger
	ch   chan journalOp
	wg   sync.WaitGroup
	once sync.Once
	// failures counts records and documents that could not be written
	// (or synced) to disk.
	failures atomic.Uint64
}

type journalOp struct {
	rec journalRecord
	doc []byte // written to missions/<id>.json before the record
}

const journalFile = "journal.jsonl"

// openJournal reads what dir holds and compacts it. An empty dir
// disables persistence (nil journal, empty state).
func openJournal(dir string, log *slog.Logger, now time.Time) (*journal, journalState, error) {
	st := journalState{docs: map[string][]byte{}, files: map[string]string{}, revisions: map[string]int64{}}
	if dir == "" {
		return nil, st, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "missions"), 0o755); err != nil {
		return nil, st, fmt.Errorf("state directory: %w", err)
	}
	recs, bad, err := readJournal(filepath.Join(dir, journalFile))
	if err != nil {
		return nil, st, err
	}
	if bad > 0 {
		st.corrupt = bad
		keep := filepath.Join(dir, journalFile+".corrupt")
		data, rerr := os.ReadFile(filepath.Join(dir, journalFile))
		if rerr == nil {
			rerr = writeFileSync(keep, data)
		}
		log.Warn("journal: lines that do not parse were skipped", "lines", bad, "kept_as", keep, "err", rerr)
	}
	running := map[string]bool{}
	for _, r := range recs {
		switch r.Event {
		case "accepted":
			name := docFile(r.Mission, r.Hash)
			if data, err := os.ReadFile(filepath.Join(dir, "missions", name)); err == nil {
				st.docs[r.Mission] = data
				st.files[r.Mission] = name
				st.revisions[r.Mission] = r.Revision
			} else {
				log.Warn("journal: an accepted mission's document is missing; the mission is forgotten", "mission", r.Mission, "file", name, "err", err)
			}
		case "started", "resumed", "paused":
			running[r.Mission] = true
			st.interrupted, st.interRev = r.Mission, r.Revision
		case "finished", "aborted", "interrupted":
			delete(running, r.Mission)
			if st.interrupted == r.Mission {
				st.interrupted = ""
			}
		case "evicted":
			delete(st.docs, r.Mission)
			delete(st.files, r.Mission)
			delete(st.revisions, r.Mission)
			if st.interrupted == r.Mission {
				st.interrupted = ""
			}
		}
	}
	if st.interrupted != "" && st.docs[st.interrupted] == nil {
		st.interrupted = "" // its document is gone: nothing to resume
	}
	j := &journal{dir: dir, log: log, ch: make(chan journalOp, 256)}
	if err := j.compact(st, now); err != nil {
		return nil, st, fmt.Errorf("journal: %w", err)
	}
	j.collect(st)
	return j, st, nil
}

// docFile names a mission's stored document by id and content, so that a
// document stored for a load that is then refused (an outdated revision)
// never overwrites the one the journal points at. Journals written before
// documents were named by content have no hash.
func docFile(id, hash string) string {
	if hash == "" {
		return id + ".json"
	}
	return id + "-" + hash[:min(16, len(hash))] + ".json"
}

// storeDoc writes a mission's document durably before the load is
// applied, so a mission that cannot be stored is refused rather than
// accepted and lost at the next restart. Any goroutine (not the tick's:
// it waits for the disk).
func (j *journal) storeDoc(id, hash string, doc []byte) error {
	if j == nil {
		return nil
	}
	return writeFileSync(filepath.Join(j.dir, "missions", docFile(id, hash)), doc)
}

// collect removes stored documents the journal does not point at: those
// of refused loads, evicted missions and old revisions.
func (j *journal) collect(st journalState) {
	keep := map[string]bool{}
	for _, f := range st.files {
		keep[f] = true
	}
	des, err := os.ReadDir(filepath.Join(j.dir, "missions"))
	if err != nil {
		return
	}
	for _, de := range des {
		if name := de.Name(); !de.IsDir() && strings.HasSuffix(name, ".json") && !keep[name] {
			if err := os.Remove(filepath.Join(j.dir, "missions", name)); err != nil {
				j.log.Warn("journal: removing an unused mission document", "file", name, "err", err)
			}
		}
	}
}

// start starts the writer goroutine; close stops it. Records added before
// start wait in the queue.
func (j *journal) start() {
	if j == nil {
		return
	}
	j.wg.Add(1)
	go j.run()
}

// readJournal returns the records and how many lines did not parse (a
// torn last line after a crash, or damage); those are skipped.
func readJournal(path string) (_ []journalRecord, bad int, _ error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var out []journalRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r journalRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Mission == "" || r.Event == "" {
			bad++
			continue
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		// A line longer than the buffer is damage too; what came before it
		// stands.
		return out, bad + 1, nil
	}
	return out, bad, nil
}

// compact rewrites the journal with one record per mission (and the
// interrupted one), so it does not grow without bound.
func (j *journal) compact(st journalState, now time.Time) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for id, rev := range st.revisions {
		hash := ""
		if f := st.files[id]; f != docFile(id, "") {
			hash = strings.TrimSuffix(strings.TrimPrefix(f, id+"-"), ".json")
		}
		if err := enc.Encode(journalRecord{TS: now.UTC(), Event: "accepted", Mission: id, Revision: rev, Hash: hash}); err != nil {
			return err
		}
	}
	if st.interrupted != "" {
		if err := enc.Encode(journalRecord{TS: now.UTC(), Event: "started", Mission: st.interrupted, Revision: st.interRev}); err != nil {
			return err
		}
	}
	return writeFileSync(filepath.Join(j.dir, journalFile), buf.Bytes())
}

// add queues a record (and a document to store first). It never blocks:
// if the writer is far behind, the record is logged and dropped.
func (j *journal) add(rec journalRecord, doc []byte) {
	if j == nil {
		return
	}
	select {
	case j.ch <- journalOp{rec: rec, doc: doc}:
	default:
		j.log.Error("journal queue full; record dropped", "event", rec.Event, "mission", rec.Mission)
	}
}

func (j *journal) run() {
	defer j.wg.Done()
	f, err := os.OpenFile(filepath.Join(j.dir, journalFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		j.log.Error("journal unavailable", "err", err)
		for range j.ch {
		}
		return
	}
	for op := range j.ch {
		if op.doc != nil {
			if err := j.storeDoc(op.rec.Mission, op.rec.Hash, op.doc); err != nil {
				j.failures.Add(1)
				j.log.Error("storing mission", "mission", op.rec.Mission, "err", err)
				continue
			}
		}
		if err := appendSync(f, op.rec); err != nil {
			j.failures.Add(1)
			j.log.Error("journal write", "event", op.rec.Event, "mission", op.rec.Mission, "err", err)
			continue
		}
		if op.rec.Event == "evicted" {
			// The record says it is gone; the document may follow.
			if err := os.Remove(filepath.Join(j.dir, "missions", docFile(op.rec.Mission, op.rec.Hash))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				j.log.Warn("removing an evicted mission", "mission", op.rec.Mission, "err", err)
			}
		}
	}
	if err := f.Close(); err != nil {
		j.failures.Add(1)
		j.log.Error("closing the journal", "err", err)
	}
}

// appendSync appends one record as a line and syncs it to disk.
func appendSync(f *os.File, rec journalRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// close flushes queued records and stops the writer.
func (j *journal) close() {
	if j == nil {
		return
	}
	j.once.Do(func() { close(j.ch) })
	j.wg.Wait()
}

// writeFileSync writes a file atomically: a temp file, fsync, rename over
// path, then fsync of the directory so the rename itself survives a power
// cut.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}
