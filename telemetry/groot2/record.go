package groot2

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
)

// maxTransitions is how many transitions a recording keeps between two
// GET_TRANSITIONS requests (the oldest go first), as BT.CPP keeps.
const maxTransitions = 1000

// recorder keeps the transitions of a recording (TOGGLE_RECORDING,
// GET_TRANSITIONS). botd's runner has one observer slot per agent, which
// telemetry holds, so a recording samples the statuses each tick left
// (every RecordEvery while it is on): a node that changed twice between
// two samples shows its last change only.
type recorder struct {
	mu    sync.Mutex
	on    bool
	start time.Time
	recs  []byte // 9-byte records
	tree  *bt.Tree
	tick  uint64
	prev  []byte // codes last recorded, by node
}

func (r *recorder) begin(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on, r.start, r.recs, r.tree, r.prev = true, now, r.recs[:0], nil, nil
}

func (r *recorder) end() {
	r.mu.Lock()
	r.on = false
	r.mu.Unlock()
}

func (r *recorder) recording() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.on
}

// take returns the transitions recorded since the previous take.
func (r *recorder) take() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]byte(nil), r.recs...)
	r.recs = r.recs[:0]
	return out
}

// sample records the changes from the previous sample.
func (r *recorder) sample(t *bt.Tree, tick uint64, at time.Time, letters []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return
	}
	if t != r.tree {
		r.tree, r.prev = t, make([]byte, len(letters))
	} else if tick == r.tick {
		return
	}
	r.tick = tick
	usec := at.Sub(r.start).Microseconds()
	for i, l := range letters {
		code := statusCode(l)
		if i >= len(r.prev) || code == r.prev[i] || i+1 > 0xFFFF {
			continue
		}
		r.prev[i] = code
		r.recs = appendTransition(r.recs, usec, uint16(i+1), code)
	}
	if over := len(r.recs)/9 - maxTransitions; over > 0 {
		r.recs = append(r.recs[:0], r.recs[over*9:]...)
	}
}

func (s *Server) toggleRecording(head []byte, cmd string) [][]byte {
	switch cmd {
	case "start":
		now := s.cfg.Now()
		s.rec.begin(now)
		select {
		case s.recCh <- struct{}{}:
		default:
		}
		return [][]byte{head, []byte(strconv.FormatInt(now.UnixMicro(), 10))}
	case "stop":
		s.rec.end()
	}
	return [][]byte{head}
}

// record samples the runner's statuses while a recording is on.
func (s *Server) record(ctx context.Context) {
	var letters []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.recCh:
		}
		t := time.NewTicker(s.cfg.RecordEvery)
		for s.rec.recording() {
			if v, ok := s.cfg.Source.TreeView(letters); ok {
				letters = v.Letters
				s.rec.sample(v.Tree, v.Tick, v.At, letters)
			}
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		t.Stop()
	}
}
