package catalog

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/bttest"
)

// The test kit under the names the tests were written with.
type (
	kv      = bttest.KV
	harness = bttest.Harness
	specOpt = bttest.SpecOpt
)

const ms = bttest.Ms

var (
	nd              = bttest.ND
	newHarness      = bttest.NewHarness
	withBB          = bttest.WithBB
	mainSpec        = bttest.MainSpec
	compileProblems = bttest.CompileProblems
	harnessFor      = bttest.HarnessFor
	compileTree     = bttest.CompileTree
)

func init() {
	bttest.NewRegistry = func() *bt.Registry {
		return NewRegistry()
	}
}

// tickUntilError ticks h until it returns ERROR (at most n times) and
// returns the last message.
func tickUntilError(t *testing.T, h *harness, n int) string {
	t.Helper()
	for i := 0; i < n; i++ {
		if st := h.Tick(); st == bt.Error {
			if len(h.Sink.Msgs) == 0 {
				t.Fatalf("tick %d: ERROR without a reason", i+1)
			}
			return h.Sink.Msgs[len(h.Sink.Msgs)-1]
		}
	}
	t.Fatalf("no ERROR in %d ticks (messages %q)", n, h.Sink.Msgs)
	return ""
}

// wantReason asserts that msg says each of parts.
func wantReason(t *testing.T, msg string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("reason %q does not say %q", msg, p)
		}
	}
}
