package btcpp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// BehaviorTree.CPP's SKIPPED status and its pre- and post-conditions
// (_skipIf, _successIf, _failureIf, _while, _onSuccess, _onFailure,
// _onHalted, _post), imported from XML. The scenarios are BT.CPP's
// tests/gtest_skipping.cpp, gtest_preconditions.cpp and
// gtest_postconditions.cpp, named after their test cases. BT.CPP's
// counting test actions (TestA, TestB, ...) are Scripts that count their
// ticks on the blackboard and succeed, as they do.

// xmlRun runs an imported tree the way BT.CPP's tests tick theirs.
type xmlRun struct {
	t    *testing.T
	tree *bt.Tree
	a    *bt.Agent
	now  int64
}

// runBTCPP imports xml with the initial blackboard bb and compiles it
// without the mission-level checks (a BT.CPP tree may return SKIPPED from
// its root; a mission may not, see TestSkippedRootRefused).
func runBTCPP(t *testing.T, xml string, bb map[string]any) *xmlRun {
	t.Helper()
	d, err := missions.Decode([]byte(xml))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	d.Blackboard = bb
	tree, err := missions.DefaultRegistry().Compile(d.Spec(missions.Options{}))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return &xmlRun{t: t, tree: tree, a: bt.NewAgent(tree, 0, 0)}
}

func (r *xmlRun) tick() bt.Status {
	r.now += 10e6
	return r.a.Tick(r.now)
}

// whileRunning is BT.CPP's tickWhileRunning.
func (r *xmlRun) whileRunning() bt.Status {
	for i := 0; i < 100; i++ {
		if st := r.tick(); st != bt.Running {
			return st
		}
	}
	r.t.Fatal("still RUNNING after 100 ticks")
	return bt.Running
}

func (r *xmlRun) slot(key string) bt.Slot {
	s, ok := r.tree.Slot(key)
	if !ok {
		r.t.Fatalf("no key %q", key)
	}
	return s
}

func (r *xmlRun) set(key string, v any) { r.a.BB.Set(r.slot(key), bt.ValueOf(v)) }

func (r *xmlRun) get(key string) string { return r.a.BB.Get(r.slot(key)).String() }

// wantKeys checks blackboard values by their printed form.
func (r *xmlRun) wantKeys(kv ...string) {
	r.t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if got := r.get(kv[i]); got != kv[i+1] {
			r.t.Errorf("%s = %s, want %s", kv[i], got, kv[i+1])
		}
	}
}

func wantStatus(t *testing.T, what string, got, want bt.Status) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// test returns BT.CPP's counting test action named x: a Script counting
// its ticks in key x.
func test(x, attrs string) string {
	return `<Script code="` + x + ` += 1" ` + attrs + `/>`
}

func btcppDoc(body string) string {
	return `<root BTCPP_format="4"><BehaviorTree ID="MainTree">` + body + `</BehaviorTree></root>`
}

var counters = map[string]any{"A_": 0, "B_": 0, "C_": 0, "D_": 0}

func withCounters(kv map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range counters {
		out[k] = v
	}
	for k, v := range kv {
		out[k] = v
	}
	return out
}

func TestSkippingLogic(t *testing.T) {
	t.Run("Sequence", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code="A:=1"/>`+
			test("A_", `_successIf="A==2" _failureIf="A!=1" _skipIf="A==1"`)+test("B_", "")+`</Sequence>`), withCounters(nil))
		wantStatus(t, "status", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "0", "B_", "1")
	})
	t.Run("SkipAll", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence>`+test("A_", `_skipIf="A==1"`)+test("B_", `_skipIf="A&lt;2"`)+
			test("C_", `_skipIf="A>0"`)+`</Sequence>`), withCounters(map[string]any{"A": 1}))
		wantStatus(t, "status", r.whileRunning(), bt.Skipped)
		r.wantKeys("A_", "0", "B_", "0", "C_", "0")
	})
	t.Run("SkipSubtree", func(t *testing.T) {
		r := runBTCPP(t, `<root BTCPP_format="4" main_tree_to_execute="main">
			<BehaviorTree ID="main"><Sequence>`+test("A_", "")+`<Script code=" data:=true "/><SubTree ID="sub" _skipIf="data"/></Sequence></BehaviorTree>
			<BehaviorTree ID="sub">`+test("@B_", "")+`</BehaviorTree></root>`, withCounters(map[string]any{"A": 1}))
		wantStatus(t, "status", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "1", "B_", "0")
	})
	t.Run("ReactiveSingleChild", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<ReactiveSequence><AlwaysSuccess _skipIf="flag"/></ReactiveSequence>`), map[string]any{"flag": true})
		wantStatus(t, "status", r.whileRunning(), bt.Skipped)
	})
	t.Run("SkippingReactiveSequence", func(t *testing.T) {
		for _, c := range []struct {
			value int
			want  string
		}{{50, "4"}, {10, "0"}} {
			// AsyncActionTest: RUNNING, then SUCCESS on its next tick.
			r := runBTCPP(t, btcppDoc(`<ReactiveSequence><Script code=" value:=`+itoa(c.value)+` "/>`+
				test("A_", `_skipIf="value &lt; 25"`)+`<Stub script="Running,Success"/></ReactiveSequence>`), withCounters(nil))
			for repeat := 0; repeat < 3; repeat++ {
				st := r.tick()
				for st == bt.Running {
					st = r.tick()
				}
				wantStatus(t, "status", st, bt.Success)
			}
			// TestA is ticked in every tick when it is not skipped: the
			// first run takes two ticks, the others one (the Stub's
			// script repeats its last step).
			if got := r.get("A_"); got != c.want {
				t.Errorf("value %d: TestA ticked %s times, want %s", c.value, got, c.want)
			}
		}
	})
	t.Run("WhileSkip", func(t *testing.T) {
		for _, c := range []struct{ doit, want string }{{"true", "1"}, {"false", "0"}} {
			r := runBTCPP(t, btcppDoc(`<Sequence><Script code=" doit:=`+c.doit+` "/><Sequence>`+test("A_", `_while="doit"`)+
				`</Sequence></Sequence>`), withCounters(nil))
			wantStatus(t, "status", r.whileRunning(), bt.Success)
			r.wantKeys("A_", c.want)
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPreconditionsAttributes(t *testing.T) {
	t.Run("Basic", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code = "A:=1" />`+test("A_", `_successIf= "A==1"`)+test("B_", `_successIf= "A==2"`)+
			`<Fallback>`+test("C_", `_failureIf= "A==1"`)+test("D_", `_failureIf= "A!=1"`)+`</Fallback></Sequence>`), withCounters(nil))
		wantStatus(t, "status", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "0", "B_", "1", "C_", "0", "D_", "1")
	})
	t.Run("Issue533", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence>`+test("A_", `_skipIf="A!=1"`)+test("B_", `_skipIf="A!=2" _onSuccess="A=1"`)+
			test("C_", `_skipIf="A!=3" _onSuccess="A=2"`)+`</Sequence>`), withCounters(map[string]any{"A": 3}))
		r.tick()
		r.wantKeys("A_", "0", "B_", "0", "C_", "1")
		r.tick()
		r.wantKeys("A_", "0", "B_", "1", "C_", "1")
		r.tick()
		r.wantKeys("A_", "1", "B_", "1", "C_", "1")
	})
	t.Run("Issue585", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code="A:=1" />`+test("A_", `_skipIf="A==1"`)+`</Sequence>`), withCounters(nil))
		wantStatus(t, "status", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "0")
	})
	t.Run("Issue615_NoSkipWhenRunning_A", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<KeepRunningUntilFailure _skipIf="check == true"><AlwaysSuccess/></KeepRunningUntilFailure>`),
			map[string]any{"check": false})
		wantStatus(t, "first tick", r.tick(), bt.Running)
		r.set("check", true)
		wantStatus(t, "running: skipIf not evaluated", r.tick(), bt.Running)
	})
	t.Run("Issue615_NoSkipWhenRunning_B", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Running _skipIf="check==false"/>`), map[string]any{"check": false})
		wantStatus(t, "first tick", r.tick(), bt.Skipped)
		r.set("check", true)
		wantStatus(t, "no longer skipped", r.tick(), bt.Running)
		r.set("check", false)
		wantStatus(t, "running: skipIf not evaluated", r.tick(), bt.Running)
	})
	t.Run("WhileCallsOnHalt", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Running _while="A==1" _onHalted="B=69" /></Sequence>`), map[string]any{"A": 1, "B": 0})
		wantStatus(t, "first tick", r.tick(), bt.Running)
		r.wantKeys("B", "0")
		r.set("A", 0)
		wantStatus(t, "while false", r.tick(), bt.Skipped)
		r.wantKeys("B", "69")
	})
	t.Run("SkippedSequence", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><AlwaysSuccess _skipIf="skip"/></Sequence>`), map[string]any{"skip": true})
		for i, want := range []bt.Status{bt.Skipped, bt.Success, bt.Skipped, bt.Success} {
			r.set("skip", i%2 == 0)
			wantStatus(t, "run "+itoa(i), r.whileRunning(), want)
		}
	})
	t.Run("ChecksConditionOnce", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code = "A:=0" /><Script code = "B:=0" />
			<Precondition if=" A==0 " else="FAILURE"><Running _while="B==0" /></Precondition></Sequence>`), nil)
		wantStatus(t, "first tick", r.tick(), bt.Running)
		r.set("A", 1)
		wantStatus(t, "precondition not asked again", r.tick(), bt.Running)
		r.set("B", 1)
		// The running child's _while is false: it is halted and skipped,
		// and the Sequence whose other children succeeded succeeds.
		wantStatus(t, "last tick", r.tick(), bt.Success)
	})
	t.Run("CanRunChildrenMultipleTimes", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code = "A:=0" /><Script code = "B:=0" /><Script code = "C:=1" />
			<Repeat num_cycles="3"><Sequence><Precondition if=" A==0 " else="SUCCESS">`+test("A_", "")+`</Precondition>
			<Running _while="C==0" /><Running _while="B==0" /></Sequence></Repeat></Sequence>`), withCounters(nil))
		wantStatus(t, "first tick", r.tick(), bt.Running)
		r.wantKeys("A_", "1")
		r.set("A", 1)
		r.set("B", 1)
		r.set("C", 0)
		wantStatus(t, "second tick", r.tick(), bt.Running)
		r.wantKeys("A_", "1")
		r.set("A", 0)
		r.set("C", 1)
		wantStatus(t, "third tick", r.tick(), bt.Success)
		r.wantKeys("A_", "2")
	})
}

func TestPostConditions(t *testing.T) {
	t.Run("BasicTest", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code = "A:=1; B:=1; C:=1; D:=1" /><AlwaysSuccess _onSuccess="B=42"/>
			<ForceSuccess><AlwaysSuccess _failureIf="A!=0" _onFailure="C=42"/></ForceSuccess>
			<ForceSuccess><AlwaysFailure _onFailure="D=42"/></ForceSuccess></Sequence>`), nil)
		wantStatus(t, "status", r.whileRunning(), bt.Success)
		r.wantKeys("B", "42", "C", "42", "D", "42")
	})
	t.Run("Issue539", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code = "x:=0; y:=0" /><RetryUntilSuccessful num_attempts="5">
			<AlwaysFailure _onFailure="x  += 1"  _post="y  += 1" /></RetryUntilSuccessful></Sequence>`), nil)
		wantStatus(t, "status", r.whileRunning(), bt.Failure)
		r.wantKeys("x", "5", "y", "5")
	})
	t.Run("Issue601", func(t *testing.T) {
		r := runBTCPP(t, btcppDoc(`<Sequence><Script code="test := 'start'"/><Parallel failure_count="1" success_count="-1">
			<Sleep msec="1000" _onHalted="test = 'halted'" _post="test = 'post'"/><AlwaysFailure/></Parallel></Sequence>`), nil)
		r.whileRunning()
		r.wantKeys("test", "halted")
	})
}

// A node that may return SKIPPED under a parent that does not handle it,
// or as a mission's root, is refused with its location.
func TestSkippedRefused(t *testing.T) {
	for _, c := range []struct{ name, xml, path, msg string }{
		{"root", btcppDoc(`<Sequence><AlwaysSuccess _skipIf="skip"/></Sequence>`), "/trees/MainTree", "the root may return SKIPPED"},
		{"parent", btcppDoc(`<Sequence><AlwaysSuccess/><IfThenElse><AlwaysSuccess _skipIf="skip"/><AlwaysSuccess/></IfThenElse></Sequence>`),
			"/trees/MainTree/children/1/children/0", "which its parent IfThenElse does not handle"},
		{"RunOnce", btcppDoc(`<Sequence><AlwaysSuccess/><WhileDoElse><RunOnce><AlwaysSuccess/></RunOnce><AlwaysSuccess/></WhileDoElse></Sequence>`),
			"/trees/MainTree/children/1/children/0", "RunOnce may return SKIPPED"},
		{"attribute", btcppDoc(`<AlwaysSuccess _onTick="x=1"/>`), "/trees/MainTree/params", "_onTick"},
		{"literal true", btcppDoc(`<Sequence _skipIf=" true "><AlwaysSuccess/></Sequence>`), "/trees/MainTree", "the root may return SKIPPED"},
		{"literal false while", btcppDoc(`<Sequence _while="false"><AlwaysSuccess/></Sequence>`), "/trees/MainTree", "the root may return SKIPPED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := missions.Load([]byte(c.xml), missions.Options{})
			if err == nil {
				t.Fatal("loaded")
			}
			if got := problemLines(err); !strings.Contains(got, c.path+": ") || !strings.Contains(got, c.msg) {
				t.Errorf("got %s\nwant %s: ...%s", got, c.path, c.msg)
			}
		})
	}
	// A literal that can never skip (Groot2 and MoveIt Pro write
	// _skipIf="false" on every node) may be anywhere, and runs as it says.
	m, err := missions.Load([]byte(btcppDoc(`<Sequence _skipIf="false" _while=" true"><IfThenElse><AlwaysSuccess _skipIf="false"/><AlwaysSuccess/></IfThenElse></Sequence>`)), missions.Options{})
	if err != nil {
		t.Fatalf("literal false skip_if: %v", err)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("literal false skip_if: %v", st)
	}
	// Under a node that handles it, it loads.
	if _, err := missions.Load([]byte(btcppDoc(`<Sequence><AlwaysSuccess/><RunOnce><AlwaysSuccess/></RunOnce></Sequence>`)), missions.Options{}); err != nil {
		t.Errorf("RunOnce under a Sequence: %v", err)
	}
}

// The conditions go back to attributes on export, and the export reads
// back as the same document.
func TestPrePostRoundTrip(t *testing.T) {
	src := btcppDoc(`<Sequence><AlwaysSuccess/><Script code="a:=1" _skipIf="x==1" _onSuccess="y=2" _while="z"/>` +
		`<RunOnce><AlwaysSuccess/></RunOnce><RunOnce then_skip="false"><AlwaysSuccess/></RunOnce>` +
		`<SkipUnlessUpdated entry="goal"><AlwaysSuccess/></SkipUnlessUpdated></Sequence>`)
	d, err := missions.Decode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Export(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`_skipIf="x==1"`, `_onSuccess="y=2"`, `_while="z"`, `<RunOnce then_skip="true">`, `<RunOnce then_skip="false">`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("export lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "PrePost") {
		t.Errorf("PrePost written as a node:\n%s", out)
	}
	d2, err := missions.Decode(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if a, b := missions.Canonical(d), missions.Canonical(d2); string(a) != string(b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
}

// BT.CPP's Parallel and ParallelAll with skipped children: Parallel.Issue593
// of gtest_parallel.cpp, and every child skipped.
func TestSkippedParallel(t *testing.T) {
	r := runBTCPP(t, btcppDoc(`<Sequence><Script code="test := true"/><Parallel failure_count="1" success_count="-1">`+
		test("A_", `_skipIf="test == true"`)+`<Sleep msec="100"/></Parallel></Sequence>`), withCounters(nil))
	wantStatus(t, "Issue593", r.whileRunning(), bt.Success)
	r.wantKeys("A_", "0")
	// With success_count -1 BT.CPP's Parallel counts skipped children as
	// successes, so it succeeds even when all skip; ParallelAll skips.
	for p, allSkipped := range map[string]bt.Status{"Parallel": bt.Success, "ParallelAll": bt.Skipped} {
		r = runBTCPP(t, btcppDoc(`<Sequence><AlwaysSuccess/><`+p+`>`+test("A_", `_skipIf="true"`)+test("B_", `_skipIf="true"`)+
			`</`+p+`></Sequence>`), withCounters(nil))
		wantStatus(t, p+" all skipped", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "0", "B_", "0")
		r = runBTCPP(t, btcppDoc(`<`+p+`>`+test("A_", `_skipIf="true"`)+test("B_", `_skipIf="true"`)+`</`+p+`>`), withCounters(nil))
		wantStatus(t, p+" with every child skipped", r.tick(), allSkipped)
		r = runBTCPP(t, btcppDoc(`<`+p+`>`+test("A_", `_skipIf="true"`)+test("B_", "")+`</`+p+`>`), withCounters(nil))
		wantStatus(t, p+" one skipped, one succeeds", r.whileRunning(), bt.Success)
		r.wantKeys("A_", "0", "B_", "1")
	}
}

// SkipUnlessUpdated: BT.CPP's gtest_updates.cpp (EntryUpdates.*). Its
// UpdateTwice writes A twice within one tick, which botd counts as one
// write (MISSIONS.md: writes are told apart by their time stamp), so it is
// not ported.
func TestEntryUpdates(t *testing.T) {
	check := `<BehaviorTree ID="Check"><Sequence><Fallback><WasEntryUpdated entry="A"/>` + test("A_", "") + `</Fallback>` +
		`<SkipUnlessUpdated entry="A">` + test("B_", "") + `</SkipUnlessUpdated></Sequence></BehaviorTree>`
	doc := func(main string) string {
		return `<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main">` + main + `</BehaviorTree>` + check + `</root>`
	}
	for _, c := range []struct{ name, main, a, b string }{
		{"NoEntry", `<Sequence><SubTree ID="Check" _autoremap="true"/></Sequence>`, "1", "0"},
		{"Initialized", `<Sequence><Script code="A:=1;B:=1"/><SubTree ID="Check" _autoremap="true"/></Sequence>`, "0", "1"},
		{"UpdateOnce", `<Sequence><Script code="A:=1"/><Repeat num_cycles="2"><SubTree ID="Check" _autoremap="true"/></Repeat></Sequence>`, "1", "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBTCPP(t, doc(c.main), withCounters(nil))
			wantStatus(t, "status", r.whileRunning(), bt.Success)
			r.wantKeys("A_", c.a, "B_", c.b)
		})
	}
}
