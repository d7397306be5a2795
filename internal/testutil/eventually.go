// Package testutil holds what the tests of several packages share and no
// program needs. Imported by tests only.
package testutil

import (
	"testing"
	"time"
)

// maxPause is the longest pause between two polls.
const maxPause = 10 * time.Millisecond

// Eventually waits until cond returns true and fails the test (t.Fatalf)
// when it has not within d: a test waits for an event, never for a fixed
// time. cond is polled from every millisecond up to every 10 ms (often
// enough to see a state that holds only briefly, as the hand-written
// loops it replaced did). what
// names the event awaited; details, when given, are called once on
// failure and appended (a log, the last state seen).
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool, details ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			msg := "timed out after " + d.String() + " waiting for " + what
			for _, f := range details {
				msg += "\n" + f()
			}
			t.Fatal(msg)
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}
