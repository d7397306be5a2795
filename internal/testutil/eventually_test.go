package testutil

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeT records a failure instead of stopping the test that runs it.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatal(args ...any) {
	f.failed = args[0].(string)
	panic(f)
}

func TestEventually(t *testing.T) {
	var n atomic.Int32
	Eventually(t, time.Minute, "the third poll", func() bool { return n.Add(1) == 3 })
	if n.Load() != 3 {
		t.Fatalf("polled %d times, want 3", n.Load())
	}

	f := &fakeT{TB: t}
	func() {
		defer func() {
			if p := recover(); p != f {
				t.Fatalf("Eventually did not fail: %v", p)
			}
		}()
		Eventually(f, 20*time.Millisecond, "never", func() bool { return false }, func() string { return "last: 7" })
	}()
	if !strings.Contains(f.failed, "waiting for never") || !strings.HasSuffix(f.failed, "\nlast: 7") {
		t.Errorf("failure message %q", f.failed)
	}
}
