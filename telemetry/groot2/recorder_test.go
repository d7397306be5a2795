package groot2

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// shortMission ends by itself.
const shortMission = `<root BTCPP_format="4">
  <BehaviorTree ID="Short">
    <Sequence name="seq">
      <Sleep msec="30" name="nap"/>
      <Script code="done:=1" name="mark"/>
    </Sequence>
  </BehaviorTree>
</root>`

func startRecordingRunner(t *testing.T, rec *Recorder) *runner.Runner {
	t.Helper()
	cfg := runner.Config{Robot: "groot2-test", TickHz: 200, Recorder: rec}
	cfg.Failsafe.LinkLossTimeout = -1
	cfg.Failsafe.MaxOverruns = -1 // a loaded test machine is no robot
	r, err := runner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		rec.Wait()
	})
	return r
}

func waitRecordings(t *testing.T, rec *Recorder, n int) []os.FileInfo {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		fis, err := rec.Recordings()
		if err != nil {
			t.Fatal(err)
		}
		done := len(fis) >= n
		for _, fi := range fis {
			if fi.Size() == 0 {
				done = false
			}
		}
		if done {
			return fis
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d recordings, want %d", len(fis), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The daemon's recorder writes each run to a .btlog that parses as
// FileLogger2's, with the run's tree and its transitions, and keeps the
// directory to its bounds: the oldest go.
func TestRecorderWritesEachRunBounded(t *testing.T) {
	dir := t.TempDir()
	// A file left from before, older than any run: pruned first.
	if err := os.WriteFile(filepath.Join(dir, "20000101T000000.000Z-old-x.btlog"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := NewRecorder(RecorderConfig{Dir: dir, MaxFiles: 2, MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r := startRecordingRunner(t, rec)
	for i := range 3 {
		loadMission(t, r, []byte(shortMission))
		deadline := time.Now().Add(waitFor)
		for s := r.State(); s.Mission == nil || s.Mission.Status != protocol.RunSucceeded; s = r.State() {
			if time.Now().After(deadline) {
				t.Fatalf("run %d: %+v", i, s.Mission)
			}
			time.Sleep(5 * time.Millisecond)
		}
		// One run at a time: the next load waits until this run's file
		// is written to its end (its writer goroutine is done; a file that
		// exists may still lack its transitions).
		rec.Wait()
		waitRecordings(t, rec, min(i+1, 2))
		time.Sleep(2 * time.Millisecond) // distinct start times in the names
	}
	fis := waitRecordings(t, rec, 2)
	if len(fis) != 2 {
		t.Fatalf("%d files, want the bound of 2: %v", len(fis), fis)
	}
	for _, fi := range fis {
		if strings.Contains(fi.Name(), "old") || !strings.Contains(fi.Name(), "-Short-") && !strings.Contains(fi.Name(), "Short") {
			t.Errorf("file %s", fi.Name())
		}
		data, err := os.ReadFile(filepath.Join(dir, fi.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseBTLog(data)
		if err != nil {
			t.Fatalf("%s: %v", fi.Name(), err)
		}
		checkBTLog(t, fi.Name(), f)
		if !strings.Contains(string(f.XML), `ID="Short"`) || len(f.Transitions) < 4 {
			t.Errorf("%s: tree %q, %d transitions", fi.Name(), f.XML[:min(len(f.XML), 80)], len(f.Transitions))
		}
	}
}

// A file stops at its size limit, between two transitions, and stays a
// valid .btlog.
func TestRecorderFileLimit(t *testing.T) {
	ref, err := os.ReadFile("testdata/reference_tree.xml")
	if err != nil {
		t.Fatal(err)
	}
	// The header's size, from a first recording.
	run := func(limit int64, transitions int) (string, []byte) {
		dir := t.TempDir()
		rec, err := NewRecorder(RecorderConfig{Dir: dir, MaxFiles: 5, MaxFileBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		r := startRecordingRunner(t, rec)
		loadMission(t, r, ref)
		deadline := time.Now().Add(waitFor)
		for r.State().Tick.Count < 300 {
			if time.Now().After(deadline) {
				t.Fatal("the mission does not tick")
			}
			time.Sleep(5 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if rep := r.Do(ctx, protocol.Command{ID: "abort", Op: protocol.OpMissionAbort}); !rep.OK {
			t.Fatalf("abort: %+v", rep.Error)
		}
		fi := waitRecordings(t, rec, 1)[0]
		path := filepath.Join(dir, fi.Name())
		for {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := ParseBTLog(data); err == nil && len(f.Transitions) >= transitions {
				checkBTLog(t, fi.Name(), f)
				return path, data
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d bytes, no %d transitions", path, len(data), transitions)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	_, whole := run(DefaultRecordFileBytes, 20)
	f, _ := ParseBTLog(whole)
	head := len(whole) - transitionBytes*len(f.Transitions)
	limit := int64(head + 10*transitionBytes + 4) // ten transitions and a part of one
	_, cut := run(limit, 10)
	if len(cut) != head+10*transitionBytes {
		t.Fatalf("the cut file has %d bytes, want the header (%d) and ten transitions", len(cut), head)
	}
	// A tree larger than the limit: not recorded at all.
	dir := t.TempDir()
	rec, err := NewRecorder(RecorderConfig{Dir: dir, MaxFileBytes: int64(head / 2)})
	if err != nil {
		t.Fatal(err)
	}
	r := startRecordingRunner(t, rec)
	loadMission(t, r, ref)
	deadline := time.Now().Add(waitFor)
	for r.State().Tick.Count < 300 {
		if time.Now().After(deadline) {
			t.Fatal("the mission does not tick")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if fis, _ := rec.Recordings(); len(fis) != 0 {
		t.Fatalf("a tree larger than the limit was recorded: %v", fis)
	}
}
