package telemetry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A batch is stored event by event: what fails (too large, out of order,
// a file that cannot be written) is refused and counted alone, the rest
// is kept, in order, and survives a reopen.
func TestOutboxAddBatch(t *testing.T) {
	dir := t.TempDir()
	o, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvent: 64})
	if err != nil {
		t.Fatal(err)
	}
	// Event 4's file cannot be put in place: a non-empty directory holds
	// its name.
	blocker := o.file(4)
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	batch := []OutboxEvent{
		{Seq: 1, Payload: []byte(`{"n":1}`)},
		{Seq: 2, Payload: []byte(`{"m":"` + strings.Repeat("x", 100) + `"}`)}, // over MaxEvent
		{Seq: 3, Payload: []byte(`{"n":3}`)},
		{Seq: 4, Payload: []byte(`{"n":4}`)},       // cannot be written
		{Seq: 3, Payload: []byte(`{"n":"again"}`)}, // not after 3
		{Seq: 5, Payload: []byte(`{"n":5}`)},
	}
	errs := o.AddBatch(batch)
	want := []bool{true, false, true, false, false, true}
	for i, err := range errs {
		if (err == nil) != want[i] {
			t.Errorf("event %d (seq %d): err %v, want stored %v", i, batch[i].Seq, err, want[i])
		}
	}
	if o.Len() != 3 || o.LastSeq() != 5 || o.Failed() != 1 || o.Dropped() != 2 {
		t.Errorf("len %d last %d failed %d dropped %d, want 3 5 1 2", o.Len(), o.LastSeq(), o.Failed(), o.Dropped())
	}
	var got []uint64
	for after := uint64(0); ; {
		e, ok := o.next(after)
		if !ok {
			break
		}
		got = append(got, e.seq)
		after = e.seq
	}
	if fmt.Sprint(got) != "[1 3 5]" {
		t.Errorf("kept %v, want [1 3 5]", got)
	}
	if errs := o.AddBatch([]OutboxEvent{{Seq: 5, Payload: []byte("{}")}}); errs[0] == nil {
		t.Error("a batch's seq not after the stored ones was accepted")
	}
	if err := os.RemoveAll(blocker); err != nil {
		t.Fatal(err)
	}
	o2, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvent: 64})
	if err != nil {
		t.Fatal(err)
	}
	if o2.Len() != 3 || o2.LastSeq() != 5 || o2.Corrupt() != 0 {
		t.Errorf("reopened: len %d last %d corrupt %d, want 3 5 0", o2.Len(), o2.LastSeq(), o2.Corrupt())
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
