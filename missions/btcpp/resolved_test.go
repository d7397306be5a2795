package btcpp

import (
	"os"
	"testing"

	"github.com/botd-project/botd/missions"
)

// Resolved writes a BehaviorTree.CPP file's stand-ins in place: its botd
// form loads strictly to a tree of the same size, the stand-ins as Faults
// under the nodes' names; a mission without stand-ins is its document.
func TestResolvedStandIns(t *testing.T) {
	data, err := os.ReadFile("testdata/btcpp-runtime/runtime_values.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := missions.Load(data, missions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Notes) == 0 {
		t.Fatal("no stand-ins in the file this test is about")
	}
	d, err := m.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	js, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	strict, err := missions.Load(js, missions.Options{})
	if err != nil {
		t.Fatalf("the resolved form does not load: %v\n%s", err, js)
	}
	faults := 0
	for i := range strict.Tree.Len() {
		if strict.Tree.Node(i).Type.Name == "Fault" {
			faults++
		}
	}
	if faults != len(m.Notes) || len(strict.Notes) != 0 {
		t.Errorf("%d Faults and %d notes, want %d Faults and none", faults, len(strict.Notes), len(m.Notes))
	}
	if orig, _ := m.Doc.JSON(); string(orig) == string(js) {
		t.Error("the document itself changed: it should stay as written (its export gives the file back)")
	}
	plain, err := missions.Load([]byte(`{"format":"botd/mission@1","name":"p","main":"main","trees":{"main":{"type":"Succeed"}}}`), missions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := plain.Resolved(); d != plain.Doc {
		t.Error("a mission without stand-ins resolved to another document")
	}
}
