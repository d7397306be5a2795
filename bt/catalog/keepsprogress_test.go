package catalog

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/btcpp"
	"github.com/botd-project/botd/bt/nav2"
	"github.com/botd-project/botd/bt/nodes"
)

// TestKeepsProgressDocumented: MISSIONS.md lists exactly the registered
// types that keep their progress across a pause.
func TestKeepsProgressDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/MISSIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	const lead = "Memory composites keep their progress:"
	text := string(data)
	i := strings.Index(text, lead)
	if i < 0 {
		t.Fatalf("MISSIONS.md has no paragraph starting %q", lead)
	}
	para := text[i+len(lead):]
	para = para[:strings.Index(para, "\n\n")]
	var documented []string
	for _, f := range strings.Split(para, "`")[1:] {
		if f != "" && !strings.ContainsAny(f, " ,.\n") {
			documented = append(documented, f)
		}
	}
	var want []string
	for _, ty := range NewRegistry().Types() {
		if ty.KeepsProgress {
			want = append(want, ty.Name)
		}
	}
	slices.Sort(documented)
	if !slices.Equal(documented, want) {
		t.Errorf("MISSIONS.md lists %v\nthe registry has %v", documented, want)
	}
}

// TestCatalogsAssembled: the catalog registry holds the engine's node
// types and every catalog's; the engine's own registry none of a
// catalog's (they live in their packages only).
func TestCatalogsAssembled(t *testing.T) {
	std, own := NewRegistry(), bt.NewRegistry()
	for pkg, types := range map[string][]bt.NodeType{"bt/nodes": nodes.Types(), "bt/nav2": nav2.Types(), "bt/btcpp": btcpp.Types()} {
		for _, ty := range types {
			if _, ok := std.Lookup(ty.Name); !ok {
				t.Errorf("%s (%s) is not in the catalog registry", ty.Name, pkg)
			}
			if _, ok := own.Lookup(ty.Name); ok {
				t.Errorf("%s (%s) is in bt's own registry too", ty.Name, pkg)
			}
		}
	}
	for _, ty := range own.Types() {
		if _, ok := std.Lookup(ty.Name); !ok {
			t.Errorf("%s (bt) is not in the catalog registry", ty.Name)
		}
	}
}
