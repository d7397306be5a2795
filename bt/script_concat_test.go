package bt

import "testing"

// BT.CPP's `..` joins a string with a string or a number in scripts
// (MoveIt Pro's objectives build log messages so).
func TestScriptConcat(t *testing.T) {
	for _, c := range []struct {
		code, want string
		st         Status
	}{
		{`msg := "a" .. "b"`, "ab", Success},
		{`msg := "n=" .. n .. "!"`, "n=3!", Success},
		{`msg := "x=" .. x`, "x=0.500000", Success},
		{`msg := 1 .. 2`, "", Error},
		{`msg := "t" .. true`, "", Error},
	} {
		h := newHarness(t, nd("Script", "s", kv{"code": c.code}), withBB(kv{"n": 3, "x": 0.5}), withKeys("msg"))
		if got := h.tick(); got != c.st {
			t.Errorf("%s: %v, want %v", c.code, got, c.st)
			continue
		}
		if c.st == Success {
			slot, _ := h.tree.Slot("msg")
			if got := h.a.BB.Get(slot).String(); got != c.want {
				t.Errorf("%s: %q, want %q", c.code, got, c.want)
			}
		}
	}
	// botd's Expr keeps expr-lang's range operator.
	h := newHarness(t, nd("Expr", "e", kv{"expr": "len(1..3) == 3"}))
	if got := h.tick(); got != Success {
		t.Errorf("Expr range: %v", got)
	}
}
