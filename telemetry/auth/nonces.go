package auth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// NonceFile is the nonce store's file name in the state directory.
const NonceFile = "nonces.log"

// MarkFile holds the nonce store's high-water mark: how many nonces it
// has recorded, ever (marks.go).
const MarkFile = "nonces.mark"

// Defaults of NonceConfig.
const (
	DefaultPerKey = 1024
	maxStoreFile  = 16 << 20
)

// NonceConfig configures a NonceStore.
type NonceConfig struct {
	Dir string
	// Window is how long an envelope can be valid at most, skew
	// included on both sides (max_validity + 2 × skew): an envelope
	// issued more than Window before the newest envelope a key signed is
	// refused, so its nonce can be forgotten.
	Window time.Duration
	// Skew is added to the time a damaged store was found: envelopes
	// issued before are refused.
	Skew time.Duration
	// PerKey bounds the nonces kept per key [DefaultPerKey]: beyond, the
	// oldest is forgotten and envelopes issued no later than it are
	// refused.
	PerKey int
	Logger *slog.Logger
	Now    func() time.Time // [time.Now]
}

// ErrReplayed is the error of Use for an envelope already seen (or one
// the store cannot tell from a seen one).
var ErrReplayed = errors.New("replayed")

type replayError struct{ msg string }

func (e *replayError) Error() string        { return e.msg }
func (e *replayError) Is(target error) bool { return target == ErrReplayed }

func isReplay(err error) bool { return errors.Is(err, ErrReplayed) }

// NonceStore remembers the nonces of the envelopes a robot accepted,
// per key: a high-water mark of issue times, a floor below which
// everything is refused, and the nonces of the envelopes issued within
// a window of the high-water mark. It is an append-only file of
// checksummed lines, synced before Use returns, compacted when it holds
// twice what is live. A damaged file is kept aside (NonceFile+".corrupt")
// and the store starts with a floor at the time it was found (plus the
// skew): every envelope issued before is refused, none is taken twice.
type NonceStore struct {
	mu      sync.Mutex
	cfg     NonceConfig
	path    string
	f       *os.File
	lines   int
	broken  bool // a write failed: compact before the next append
	global  int64
	keys    map[string]*keyWindow
	damaged string
	// seq numbers the nonces recorded, ever; every line and every
	// compacted file carries it, and MarkFile says how far it went.
	seq int64
}

type keyWindow struct {
	hwm   int64 // newest issue time accepted
	floor int64 // issue times at or below are refused
	seen  map[string]int64
}

type nonceRecord struct {
	K string `json:"k,omitempty"`
	N string `json:"n,omitempty"`
	I int64  `json:"i,omitempty"`
	H int64  `json:"h,omitempty"`
	F int64  `json:"f,omitempty"`
	G int64  `json:"g,omitempty"`
	S int64  `json:"s,omitempty"` // the record's number (a compacted file: the last one's)
}

// OpenNonces opens (or creates) the store in cfg.Dir.
func OpenNonces(cfg NonceConfig) (*NonceStore, error) {
	if cfg.PerKey <= 0 {
		cfg.PerKey = DefaultPerKey
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultMaxValidity + 2*DefaultSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	s := &NonceStore{cfg: cfg, path: filepath.Join(cfg.Dir, NonceFile), keys: map[string]*keyWindow{}}
	damage, err := s.load()
	if err != nil {
		return nil, err
	}
	if damage == "" {
		damage = s.checkMark()
	}
	if damage != "" {
		now := cfg.Now().Unix()
		for _, k := range s.keys {
			now = max(now, k.hwm)
		}
		s.global = max(s.global, now+int64(cfg.Skew/time.Second))
		s.damaged = fmt.Sprintf("%s; kept as %s; envelopes issued before %s are refused",
			damage, NonceFile+".corrupt", time.Unix(s.global, 0).UTC().Format(time.RFC3339))
		cfg.Logger.Error("the nonce store is damaged: signed commands issued before it was found are refused", "reason", s.damaged)
		if err := os.Rename(s.path, s.path+".corrupt"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("keeping the damaged nonce store aside: %w", err)
		}
	}
	if damage != "" || s.lines > 2*s.live()+64 {
		if err := s.compact(); err != nil {
			return nil, err
		}
		return s, nil
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	s.f = f
	return s, nil
}

// Damaged says what was wrong with the file when the store opened, and
// what that means; "" when it was sound.
func (s *NonceStore) Damaged() string { return s.damaged }

// Close closes the file.
func (s *NonceStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// load reads the file; it returns why the file is damaged ("" if not)
// and an error only when the file cannot be read at all.
func (s *NonceStore) load() (string, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStoreFile+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxStoreFile {
		return fmt.Sprintf("the file is larger than %d bytes", maxStoreFile), nil
	}
	damage := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 4096)
	n := 0
	for sc.Scan() {
		n++
		r, ok := parseLine(sc.Bytes())
		if !ok {
			if damage == "" {
				damage = fmt.Sprintf("line %d is damaged", n)
			}
			continue
		}
		s.lines++
		s.apply(r)
	}
	if err := sc.Err(); err != nil && damage == "" {
		damage = fmt.Sprintf("after line %d: %v", n, err)
	}
	if damage == "" && len(data) > 0 && data[len(data)-1] != '\n' {
		damage = "the last line is cut off"
	}
	return damage, nil
}

func parseLine(line []byte) (nonceRecord, bool) {
	var r nonceRecord
	if len(line) < 10 || line[8] != ' ' {
		return r, false
	}
	var sum uint32
	if _, err := fmt.Sscanf(string(line[:8]), "%08x", &sum); err != nil || sum != crc32.ChecksumIEEE(line[9:]) {
		return r, false
	}
	if err := json.Unmarshal(line[9:], &r); err != nil {
		return r, false
	}
	if r.G == 0 && r.K == "" && r.S == 0 {
		return r, false
	}
	return r, true
}

func encodeLine(r nonceRecord) []byte {
	js, _ := json.Marshal(r) // strings and integers always encode
	return fmt.Appendf(nil, "%08x %s\n", crc32.ChecksumIEEE(js), js)
}

// apply adds a record to memory.
func (s *NonceStore) apply(r nonceRecord) {
	s.seq = max(s.seq, r.S)
	if r.K == "" {
		s.global = max(s.global, r.G)
		return
	}
	k := s.key(r.K)
	if r.N == "" {
		k.hwm, k.floor = max(k.hwm, r.H), max(k.floor, r.F)
		return
	}
	k.seen[r.N] = r.I
	k.hwm = max(k.hwm, r.I)
	s.trim(k)
}

func (s *NonceStore) key(id string) *keyWindow {
	k := s.keys[id]
	if k == nil {
		k = &keyWindow{seen: map[string]int64{}}
		s.keys[id] = k
	}
	return k
}

// trim forgets the nonces issued more than a window before the key's
// high-water mark (they are refused by their issue time), then the
// oldest beyond PerKey (raising the floor to it).
func (s *NonceStore) trim(k *keyWindow) {
	cut := k.hwm - int64(s.cfg.Window/time.Second)
	for n, iat := range k.seen {
		if iat < cut {
			delete(k.seen, n)
		}
	}
	for len(k.seen) > s.cfg.PerKey {
		oldest, at := "", int64(0)
		for n, iat := range k.seen {
			if oldest == "" || iat < at || (iat == at && n < oldest) {
				oldest, at = n, iat
			}
		}
		delete(k.seen, oldest)
		k.floor = max(k.floor, at)
	}
}

func (s *NonceStore) live() int {
	n := 1
	for _, k := range s.keys {
		n += 1 + len(k.seen)
	}
	return n
}

// Use records the nonce of an envelope of key kid issued at iat (Unix
// seconds), synced to disk, or refuses it with an error that matches
// ErrReplayed. Any other error is a storage failure: nothing was
// recorded and the command must not take effect.
func (s *NonceStore) Use(kid, nonce string, iat int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if iat <= s.global {
		return &replayError{fmt.Sprintf("the envelope was issued before %s, when the robot's nonce store was found damaged; sign the command again",
			time.Unix(s.global, 0).UTC().Format(time.RFC3339))}
	}
	k := s.keys[kid]
	if k != nil {
		if iat <= k.floor {
			return &replayError{fmt.Sprintf("the envelope was issued no later than the oldest one the robot still remembers for key %q; sign the command again", kid)}
		}
		if iat < k.hwm-int64(s.cfg.Window/time.Second) {
			return &replayError{fmt.Sprintf("the envelope was issued more than %s before the newest one of key %q", s.cfg.Window, kid)}
		}
		if _, seen := k.seen[nonce]; seen {
			return &replayError{"this envelope was used already (its nonce is known); if this is a retry, the first try was taken: check the robot's state"}
		}
	}
	if s.broken || s.f == nil {
		if err := s.compact(); err != nil {
			return err
		}
	}
	rec := nonceRecord{K: kid, N: nonce, I: iat, S: s.seq + 1}
	if _, err := s.f.Write(encodeLine(rec)); err != nil {
		s.broken = true
		return err
	}
	if err := s.f.Sync(); err != nil {
		s.broken = true
		return err
	}
	s.lines++
	s.apply(rec)
	// The nonce is on disk; without the mark a later loss of this line
	// would go unnoticed, so the command does not take effect either.
	if err := s.writeMark(); err != nil {
		s.broken = true
		return fmt.Errorf("nonce store mark: %w", err)
	}
	if s.lines > 2*s.live()+64 {
		if err := s.compact(); err != nil {
			// The nonce is on disk already; the next Use compacts again.
			s.cfg.Logger.Warn("compacting the nonce store", "err", err)
		}
	}
	return nil
}

// compact writes what is live to a new file, syncs it, renames it over
// the old one and syncs the directory.
func (s *NonceStore) compact() error {
	var b bytes.Buffer
	lines := 0
	if s.global != 0 || s.seq != 0 {
		b.Write(encodeLine(nonceRecord{G: s.global, S: s.seq}))
		lines++
	}
	for id, k := range s.keys {
		b.Write(encodeLine(nonceRecord{K: id, H: k.hwm, F: k.floor}))
		lines++
		for n, iat := range k.seen {
			b.Write(encodeLine(nonceRecord{K: id, N: n, I: iat}))
			lines++
		}
	}
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err == nil {
		err = syncDir(s.cfg.Dir)
	}
	if err == nil {
		err = s.writeMark()
	}
	if err != nil {
		os.Remove(tmp)
		s.broken = true
		return err
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	nf, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.broken = true
		return err
	}
	s.f, s.lines, s.broken = nf, lines, false
	return nil
}

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

// Len is how many nonces the store holds (for tests and metrics).
func (s *NonceStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.keys {
		n += len(k.seen)
	}
	return n
}
