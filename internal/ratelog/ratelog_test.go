package ratelog

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A flood of one line writes the burst, then one line with the count of
// the rest once the window ends; other lines pass meanwhile.
func TestFloodCounted(t *testing.T) {
	var out syncBuf
	log := slog.New(New(slog.NewTextHandler(&out, nil), 3, 2*time.Second)) // longer than the flood takes
	for i := range 10000 {
		log.With("client", i).Warn("client store quota reached")
	}
	log.Info("other")
	if n := strings.Count(out.String(), "client store quota reached"); n != 3 {
		t.Fatalf("%d lines during the flood, want 3:\n%s", n, out.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "suppressed=9997") {
		if time.Now().After(deadline) {
			t.Fatalf("no count of the held-back lines:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "msg=other") {
		t.Error("another line was held back")
	}
	// After the window the kind starts afresh.
	log.Warn("client store quota reached")
	if n := strings.Count(out.String(), "client store quota reached"); n != 5 {
		t.Fatalf("%d lines, want 5 (3, the count, 1):\n%s", n, out.String())
	}
}
