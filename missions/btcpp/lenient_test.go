package btcpp

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// tinyxml2, which BehaviorTree.CPP reads its files with, ends a comment
// at the first "-->" and takes "--" inside it (elsabot's trees comment
// nodes out as `<!-- <Node/--->`); the comment is still dropped and the
// lines still count.
func TestBTCPPCommentDashes(t *testing.T) {
	for _, comment := range []string{
		"<!-- RobotSeekInitAction\n  search_poses=\"-4.3,-4,180.0\" /--->",
		"<!-- a -- b -->",
		"<!------>",
		"<!--->-->",
		"<!---->",
	} {
		in := "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n<Sequence>\n" + comment + "\n<AlwaysSuccess/>\n<Mystery/>\n</Sequence>\n</BehaviorTree>\n</root>\n"
		m, err := missions.Load([]byte(in), missions.Options{Substitutions: starSucceed(t)})
		if err != nil {
			t.Errorf("%q: %s", comment, problemLines(err))
			continue
		}
		if kids := m.Doc.Trees["Main"].Children; len(kids) != 2 {
			t.Errorf("%q: the sequence has %d children, want 2", comment, len(kids))
		}
	}
	// A comment that does not end is still malformed XML, with its line.
	_, err := missions.Load([]byte("<root BTCPP_format=\"4\">\n<!-- -- \n<BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree></root>"), missions.Options{})
	if err == nil {
		t.Error("an unterminated comment loads")
	}
	// The escapes keep every line where it was.
	in := []byte("<root BTCPP_format=\"4\">\n<!-- x --- y\n -- -->\n<BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n<Foo/></root>")
	_, err = missions.Load(in, missions.Options{})
	if err == nil || !strings.Contains(problemLines(err), "line 5: unexpected <Foo>") {
		t.Errorf("want the <Foo> of line 5 reported, got %v", err)
	}
}

// BehaviorTree.CPP reserves the ID attribute (IsReservedAttribute): on an
// element that is not <Action ID>, <Condition ID>, ... or <SubTree ID> it
// is no port (Groot 1 left it on controls: <Fallback ID="Detection">).
func TestBTCPPReservedID(t *testing.T) {
	in := []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Fallback ID="Detection"><AlwaysFailure ID="x"/><AlwaysSuccess/></Fallback>
</BehaviorTree></root>`)
	m, err := missions.Load(in, missions.Options{})
	if err != nil {
		t.Fatal(problemLines(err))
	}
	root := m.Doc.Trees["Main"]
	if root.Type != "MemPriority" || root.Params != nil || root.Children[0].Params != nil {
		t.Errorf("Fallback reads as %s %v, its first child %v", root.Type, root.Params, root.Children[0].Params)
	}
}

// tinyxml2 reads any XML declaration: GIU-F1Tenth's tree declares XML
// 2.0.
func TestBTCPPXMLVersion(t *testing.T) {
	for _, decl := range []string{`<?xml version="2.0"?>`, `<?xml version='1.1' encoding="UTF-8"?>`, `<?xml version="1.0"?>`} {
		in := decl + "\n<root BTCPP_format=\"4\"><BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n<Foo/></root>"
		_, err := missions.Load([]byte(in), missions.Options{})
		if err == nil || !strings.Contains(problemLines(err), "line 3: unexpected <Foo>") {
			t.Errorf("%s: want the <Foo> of line 3 reported, got %v", decl, err)
		}
	}
}
