package btcpp

import (
	"strings"
	"testing"
)

// A Repeat or RetryUntilSuccessful whose count is a key that is not set
// (a key BehaviorTree.CPP's program sets from C++) is ERROR, with an
// error event naming the key.
func TestBTLoopCountKeyMissing(t *testing.T) {
	for _, typ := range []string{"Repeat", "RetryUntilSuccessful"} {
		param := map[string]string{"Repeat": "num_cycles", "RetryUntilSuccessful": "num_attempts"}[typ]
		h := newHarness(t, nd(typ, "loop", kv{param: "{n}"}, sc("child", "S")), withBB(kv{"n": 2.5}))
		if got := h.Run(1); got != "E" {
			t.Errorf("%s: %s, want E", typ, got)
		}
		msgs := h.Sink.Msgs
		if len(msgs) != 1 || !strings.Contains(msgs[0], `error: "n" is not a whole number`) {
			t.Errorf("%s: error events %q", typ, msgs)
		}
	}
}

func TestBTLoopCountKeyNotSet(t *testing.T) {
	h := newHarness(t, nd("Repeat", "loop", kv{"num_cycles": "{num_publish}"}, sc("child", "S")))
	if got := h.Run(1); got != "E" {
		t.Errorf("Repeat: %s, want E", got)
	}
	if msgs := h.Sink.Msgs; len(msgs) != 1 || !strings.Contains(msgs[0], `error: "num_publish" is not set`) {
		t.Errorf("error events %q", msgs)
	}
}
