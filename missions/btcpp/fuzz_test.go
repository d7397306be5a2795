package btcpp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// seedFiles adds the committed documents matching patterns (golden files
// contribute their input part).
func seedFiles(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if in, _, ok := splitGolden(data); ok {
				data = in
			}
			f.Add(data)
		}
	}
}

// checkOutcome: either a document and no problems, or problems and no
// document; never a panic, never an error that is not bt.Problems.
func checkOutcome(t *testing.T, d *missions.Document, ps *missions.Problems) {
	t.Helper()
	err := ps.Err()
	if err == nil {
		if d == nil {
			t.Fatal("no document and no problem")
		}
		return
	}
	var list bt.Problems
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("a failure that is not a list of problems: %v", err)
	}
}

// FuzzBTCPP feeds the BehaviorTree.CPP XML importer directly, under
// small limits so the fuzzer reaches them; what it accepts must come
// back unchanged through botd JSON and YAML (missions' FuzzDecode checks
// the same of botd's own formats).
func FuzzBTCPP(f *testing.F) {
	seedFiles(f, filepath.Join("testdata", "golden", "decode", "btcpp_*"), filepath.Join("testdata", "fuzz-seeds", "*.xml"),
		filepath.Join("testdata", "invalid", "*.xml"), filepath.Join("testdata", "btcpp-*", "*.xml"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps := missions.NewProblems(missions.Limits{Values: 2000, AliasValues: 200, Depth: 32, StringBytes: 512, Nodes: 500})
		d := decodeBTCPP(data, ps)
		checkOutcome(t, d, ps)
		if ps.Err() == nil {
			roundTrips(t, d)
		}
	})
}

// roundTrips checks that an imported document comes back unchanged
// through botd JSON and YAML, but for its origin (where its nodes were
// in the XML, for its problems: no other format keeps it).
func roundTrips(t *testing.T, d *missions.Document) {
	t.Helper()
	d.Origin = nil
	for format, enc := range map[string]func() ([]byte, error){"JSON": d.JSON, "YAML": d.YAML} {
		out, err := enc()
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		back, err := missions.Decode(out)
		if err != nil {
			t.Fatalf("decoding the %s of an accepted document: %v\n%s", format, err, out)
		}
		if !reflect.DeepEqual(back, d) {
			t.Fatalf("%s round trip changed the document:\n%s", format, out)
		}
		if c := missions.Canonical(back); c == nil || string(c) != string(missions.Canonical(d)) {
			t.Fatalf("%s round trip changed the canonical bytes", format)
		}
	}
}

// FuzzBTCPPRun imports BehaviorTree.CPP XML (with its pre- and
// post-conditions, SKIPPED, TryCatch), compiles it with '*=Succeed',
// ticks it and round-trips it through the export: a load problem is
// located, a run never panics the engine, and the export reads back as
// the same trees.
func FuzzBTCPPRun(f *testing.F) {
	seedFiles(f, filepath.Join(corpusDir, "btcpp-tests", "gtest_skipping_*.xml"), filepath.Join(corpusDir, "btcpp-tests", "gtest_pre*.xml"),
		filepath.Join(corpusDir, "btcpp-tests", "gtest_post*.xml"), filepath.Join(corpusDir, "btcpp-tests", "gtest_try_catch_*.xml"),
		filepath.Join(corpusDir, "nav2", "navigate_to_pose_w_replanning_and_recovery.xml"))
	subs, err := missions.ParseSubstitutions("*=Succeed")
	if err != nil {
		f.Fatal(err)
	}
	lim := missions.Limits{Values: 2000, Depth: 32, StringBytes: 512, Nodes: 300}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 || !strings.HasPrefix(strings.TrimSpace(string(data)), "<") {
			return
		}
		d, err := missions.DecodeWithLimits(data, lim)
		if err != nil {
			return // FuzzBTCPP checks the import's problems
		}
		m, err := d.Compile(missions.Options{Substitutions: subs, Limits: lim})
		if err != nil {
			var list bt.Problems
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("a compile failure that is not a list of problems: %v", err)
			}
			return
		}
		a := bt.NewAgent(m.Tree, 0, 0)
		for i := range 5 {
			if st := a.Tick(int64(i+1) * 50e6); st != bt.Running {
				break
			}
		}
		a.HaltAll()
		out, err := Export(d, nil)
		if err != nil {
			return
		}
		d2, err := missions.Decode(out)
		if err != nil {
			t.Fatalf("the export does not read back: %v\n%s", err, out)
		}
		if missions.Canonical(d2) == nil || len(d2.Trees) != len(d.Trees) {
			t.Fatalf("the export reads back as other trees\n%s", out)
		}
	})
}

// TestRoundTrip is the conformance suite of habit 7 for BT.CPP XML:
// every golden input and fixture that decodes survives botd JSON and
// YAML without loss. The fixtures are ../shared beside the repository
// (as in CI); a checkout without them runs the golden inputs only.
func TestRoundTrip(t *testing.T) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.golden"))
	fx, _ := filepath.Glob(filepath.Join(fixtures, "btcpp-xml", "*", "*.xml"))
	if len(fx) == 0 {
		t.Logf("no fixtures at %s (a checkout without ../shared): the golden inputs only", fixtures)
	}
	roundTripped := func(paths []string) int {
		n := 0
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if in, _, ok := splitGolden(data); ok {
				data = in
			}
			d, err := missions.Decode(data)
			if err != nil {
				continue
			}
			n++
			t.Run(p, func(t *testing.T) { roundTrips(t, d) })
		}
		return n
	}
	// As many as decode today: a glob or a decoder that goes wrong
	// shows as fewer.
	if n := roundTripped(golden); n < 6 {
		t.Errorf("only %d golden inputs round-tripped", n)
	}
	if n := roundTripped(fx); len(fx) > 0 && n < 10 {
		t.Errorf("only %d fixtures round-tripped", n)
	}
}
