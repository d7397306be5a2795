package hint

import (
	"slices"
	"testing"

	"github.com/botd-project/botd/bt"
)

func TestClosest(t *testing.T) {
	types := []string{"Sequence", "Selector", "Parallel", "Log", "MoveTo", "Wait"}
	for _, c := range []struct{ name, want string }{
		{"Sequense", "Sequence"},
		{"sequence", "Sequence"},
		{"Sequence", ""}, // known
		{"Moveto", "MoveTo"},
		{"Wai", "Wait"},
		{"Lgo", ""}, // 2 edits in 3 letters: too far
		{"Frobnicate", ""},
	} {
		if got := Closest(c.name, types); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestProblems(t *testing.T) {
	ps := bt.Problems{
		{Path: "/trees/main/type", Message: `unknown node type "Sequense"`, Code: bt.CodeUnknownType},
		{Path: "/trees/main/children/0/params/mesage", Message: `unknown parameter "mesage" for Log (known: message, level)`},
		{Path: "/trees/main/children/1/params/zzz", Message: `unknown parameter "zzz" for Log (known: message, level)`},
		{Path: "/trees/main/children/2/type", Message: `unknown node type "Sequance" (did you mean "Sequence"?)`},
	}
	got := Problems(ps, []string{"Sequence", "Log"})
	want := []string{
		`unknown node type "Sequense" (did you mean "Sequence"?)`,
		`unknown parameter "mesage" for Log (did you mean "message"?)`,
		`unknown parameter "zzz" for Log (known: message, level)`,
		`unknown node type "Sequance" (did you mean "Sequence"?)`,
	}
	for i := range want {
		if got[i].Message != want[i] || got[i].Path != ps[i].Path {
			t.Errorf("%d: %q, want %q", i, got[i].Message, want[i])
		}
	}
	if ps[0].Message != `unknown node type "Sequense"` {
		t.Error("the input was changed")
	}
}

func TestKeys(t *testing.T) {
	got := Keys([]string{"batery.percent", "waypoint", "range.front", "pose.z"}, []string{"battery.percent", "range.front", "pose.x", "pose.y"}, []string{"waypoint"})
	want := []Key{{"batery.percent", "battery.percent"}, {"pose.z", "pose.x"}}
	if !slices.Equal(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
}
