package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// A long refusal lists its first problems and says how many more the
// robot counted, with the total in the header.
func TestPrintRefusalCountsTheProblemsLeftOut(t *testing.T) {
	var errOut bytes.Buffer
	c := &cli{stderr: &errOut}
	c.printRefusal("rover-1", "the mission", &protocol.ReplyError{Code: protocol.ErrValidation,
		Problems: []protocol.ReplyProblem{{Path: "/trees/main/params/a", Message: "unknown parameter"}}, More: 19999})
	out := errOut.String()
	for _, want := range []string{"(20000 problems)", "/trees/main/params/a: unknown parameter", "and 19999 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
