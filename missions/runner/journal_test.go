package runner

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

func TestJournalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	j, st, err := openJournal(dir, slog.New(slog.DiscardHandler), now)
	if err != nil || len(st.docs) != 0 {
		t.Fatalf("open: %v %v", st, err)
	}
	j.start()
	j.add(journalRecord{TS: now, Event: "accepted", Mission: "m1", Revision: 3}, []byte(`{"id":"m1"}`))
	j.add(journalRecord{TS: now, Event: "started", Mission: "m1", Revision: 3}, nil)
	j.close()
	if n := j.failures.Load(); n != 0 {
		t.Fatalf("%d failures", n)
	}
	_, st, err = openJournal(dir, slog.New(slog.DiscardHandler), now)
	if err != nil {
		t.Fatal(err)
	}
	if string(st.docs["m1"]) != `{"id":"m1"}` || st.revisions["m1"] != 3 || st.interrupted != "m1" {
		t.Fatalf("reopened state %+v", st)
	}
}

// A document that cannot be stored is counted and logged, and the record
// that depends on it is not written (it would point at nothing).
func TestJournalCountsWriteFailures(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, slog.New(slog.DiscardHandler), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	j.start()
	// The documents' folder becomes a file: every store fails.
	if err := os.RemoveAll(filepath.Join(dir, "missions")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "missions"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j.add(journalRecord{Event: "accepted", Mission: "m1"}, []byte(`{}`))
	j.close()
	if n := j.failures.Load(); n != 1 {
		t.Fatalf("failures %d, want 1", n)
	}
	recs, _, err := readJournal(filepath.Join(dir, journalFile))
	if err != nil || len(recs) != 0 {
		t.Fatalf("records %v %v, want none", recs, err)
	}
}

// A state directory the journal cannot compact into refuses to open with
// the reason, rather than running without a journal.
func TestJournalOpenFailsLoudly(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, journalFile+".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openJournal(dir, slog.New(slog.DiscardHandler), time.Now()); err == nil {
		t.Fatal("opened although the journal cannot be written")
	}
}

// Garbage appended to the journal (or a torn last line) is detected:
// counted, the original kept aside, reported with an event at start; the
// records before it still count.
func TestJournalReportsACorruptTail(t *testing.T) {
	dir := t.TempDir()
	tr := startRunner(t, dir, nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong)})
	tr.stop()
	f, err := os.OpenFile(filepath.Join(dir, journalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"star\x00\x01garbage\n\xff\xfe"))
	f.Close()

	tr2 := startRunner(t, dir, nil)
	tr2.waitFor("the journal.corrupt event", func(protocol.State) bool { return tr2.events.count("journal.corrupt") == 1 })
	if len(tr2.store) != 1 {
		t.Fatalf("%d missions after the damage, want the 1 recorded before it", len(tr2.store))
	}
	if _, err := os.Stat(filepath.Join(dir, journalFile+".corrupt")); err != nil {
		t.Fatalf("the damaged journal was not kept: %v", err)
	}
	for _, e := range tr2.events.snapshot() {
		if e.Kind == "journal.corrupt" && e.Data["lines"] != 2 {
			t.Errorf("event %+v, want 2 damaged lines", e)
		}
	}
}
