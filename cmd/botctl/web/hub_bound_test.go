package web

import (
	"strings"
	"testing"
	"time"
)

// The hub watches at most h.max robots: a new one takes the place of a
// robot no tab looks at any more, and is refused while every watched
// robot has a tab.
func TestHubBoundsWatchedRobots(t *testing.T) {
	f := newFakeGround(online("rover-a", nil), online("rover-b", nil), online("rover-c", nil))
	s, ts := newTestServer(t, f, nil)
	s.hub.max = 2
	s.hub.linger.Store(int64(time.Hour))
	a := openStream(t, ts.URL+"/api/stream?robot=rover-a")
	a.next("telemetry")
	b := openStream(t, ts.URL+"/api/stream?robot=rover-b")
	b.next("telemetry")

	c := openStream(t, ts.URL+"/api/stream?robot=rover-c")
	if e := c.next("fatal"); !strings.Contains(e.Data, "too many robots watched") {
		t.Fatalf("fatal %s", e.Data)
	}
	if w, _ := f.counts(); w != 2 {
		t.Fatalf("%d watches, want 2", w)
	}

	a.close()
	eventually(t, "rover-a without a tab", func() bool {
		s.hub.mu.Lock()
		defer s.hub.mu.Unlock()
		v := s.hub.views["rover-a"]
		v.mu.Lock()
		defer v.mu.Unlock()
		return len(v.subs) == 0 && v.linger != nil
	})
	c2 := openStream(t, ts.URL+"/api/stream?robot=rover-c")
	c2.next("telemetry")
	eventually(t, "rover-a's watch to end", func() bool { _, stops := f.counts(); return stops == 1 })
	s.hub.mu.Lock()
	n, hasA := len(s.hub.views), s.hub.views["rover-a"] != nil
	s.hub.mu.Unlock()
	if n != 2 || hasA {
		t.Errorf("%d robots watched (rover-a among them: %v), want rover-b and rover-c", n, hasA)
	}
}
