package btcpp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// BT.CPP 4's SubTree models (gtest_subtree.cpp SubtreeModels): a port the
// <TreeNodesModel> declares with a default is remapped to it where a
// SubTree does not remap it (an explicit remap wins, _autoremap takes
// none); one declared without a default must be remapped.
func TestSubTreeModelDefaults(t *testing.T) {
	const model = `<TreeNodesModel>
    <SubTree ID="MySub">
      <input_port name="in_value" default="42"/>
      <input_port name="in_name"/>
      <output_port name="out_result" default="{output}"/>
      <output_port name="out_state"/>
    </SubTree>
  </TreeNodesModel>`
	const sub = `<BehaviorTree ID="MySub">
    <Sequence>
      <ScriptCondition code="in_name=='john' &amp;&amp; in_value==42" />
      <Script code="out_result:=69; out_state:='ACTIVE'" />
    </Sequence>
  </BehaviorTree>`
	main := func(call string) string {
		return `<root main_tree_to_execute="MainTree" BTCPP_format="4">` + model + `
  <BehaviorTree ID="MainTree">
    <Sequence>
      <Script code="my_name:= 'john' "/>
      ` + call + `
      <ScriptCondition code=" output==69 &amp;&amp; my_state=='ACTIVE' " />
    </Sequence>
  </BehaviorTree>` + sub + `</root>`
	}
	m, err := missions.Load([]byte(main(`<SubTree ID="MySub" in_name="{my_name}" out_state="{my_state}"/>`)), missions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("defaults: %v, want SUCCESS", st)
	}
	// An explicit remap wins over the default.
	m, err = missions.Load([]byte(main(`<SubTree ID="MySub" in_value="7" in_name="{my_name}" out_state="{my_state}"/>`)), missions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Failure {
		t.Errorf("in_value remapped to 7: %v, want FAILURE", st)
	}
	// A port without a default must be remapped.
	_, err = missions.Load([]byte(main(`<SubTree ID="MySub" in_name="{my_name}"/>`)), missions.Options{})
	if got := problemLines(err); !strings.Contains(got, `/trees/MainTree/children/1/params: line 12: <SubTree ID="MySub"> does not remap the port "out_state"`) {
		t.Errorf("mandatory port: %s", got)
	}
	// _autoremap takes no defaults and needs no remap.
	if _, err := missions.Load([]byte(main(`<SubTree ID="MySub" _autoremap="true"/>`)), missions.Options{}); err != nil {
		t.Errorf("autoremap: %v", err)
	}
	// A model without an ID, or a port without a name, is refused.
	for _, bad := range []string{`<SubTree><input_port name="a"/></SubTree>`, `<SubTree ID="MySub"><input_port default="1"/></SubTree>`} {
		doc := `<root BTCPP_format="4"><TreeNodesModel>` + bad + `</TreeNodesModel>` + sub + `</root>`
		if _, err := missions.Load([]byte(doc), missions.Options{}); err == nil {
			t.Errorf("%s: loaded", bad)
		}
	}
}

// A library file's SubTree model applies to the files that call its tree
// (as a BT.CPP factory keeps the models of every file registered).
func TestSubTreeModelFromLibrary(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(lib, "greet.xml"), `<root BTCPP_format="4">
  <BehaviorTree ID="Greet"><ScriptCondition code="who == 'world'"/></BehaviorTree>
  <TreeNodesModel><SubTree ID="Greet"><input_port name="who" default="world"/></SubTree></TreeNodesModel>
</root>`)
	mission := filepath.Join(dir, "m.xml")
	write(mission, `<root BTCPP_format="4"><BehaviorTree ID="M"><SubTree ID="Greet"/></BehaviorTree></root>`)
	l, err := missions.LoadLibrary([]string{lib}, missions.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := missions.LoadFile(mission, missions.Options{Library: l})
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("%v, want SUCCESS (the library's default for who)", st)
	}
}

// A model of many ports called from many SubTrees is bounded, as an
// expansion: a small file cannot multiply into a huge document.
func TestSubTreeModelDefaultsBounded(t *testing.T) {
	var model, calls strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&model, `<input_port name="p%d" default="%d"/>`, i, i)
	}
	for i := 0; i < 100; i++ {
		calls.WriteString(`<SubTree ID="Sub"/>`)
	}
	doc := `<root BTCPP_format="4" main_tree_to_execute="M"><TreeNodesModel><SubTree ID="Sub">` + model.String() + `</SubTree></TreeNodesModel>
<BehaviorTree ID="M"><Sequence>` + calls.String() + `</Sequence></BehaviorTree>
<BehaviorTree ID="Sub"><AlwaysSuccess/></BehaviorTree></root>`
	_, err := missions.Load([]byte(doc), missions.Options{})
	if got := problemLines(err); !strings.Contains(got, "the <TreeNodesModel> defaults of the SubTrees add more than 10000 ports") {
		t.Errorf("got %s", got)
	}
	// Within the bound it loads.
	if _, err := missions.Load([]byte(strings.Replace(doc, calls.String(), `<SubTree ID="Sub"/><SubTree ID="Sub"/>`, 1)), missions.Options{}); err != nil {
		t.Error(err)
	}
}
