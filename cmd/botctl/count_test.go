package main

import "testing"

// Counts read as English: "1 node", not "1 nodes".
func TestCount(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{count(1, "node"), "1 node"}, {count(0, "node"), "0 nodes"}, {count(12, "event"), "12 events"},
		{count(uint64(1), "event"), "1 event"}, {count(2, "status"), "2 statuses"}, {count(int64(1), "problem"), "1 problem"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
