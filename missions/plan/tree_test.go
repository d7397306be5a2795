package plan

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// render writes a tree one node a line, indented, params sorted.
func render(n *bt.NodeDef, depth int, b *strings.Builder) {
	keys := make([]string, 0, len(n.Params))
	for k := range n.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "%s%s %q", strings.Repeat("  ", depth), n.Type, n.Name)
	for _, k := range keys {
		fmt.Fprintf(b, " %s=%v", k, n.Params[k])
	}
	b.WriteString("\n")
	for _, c := range n.Children {
		render(c, depth+1, b)
	}
}

func treeOf(t *testing.T, file string) *bt.NodeDef {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, ps := Parse(data, Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	root, ps := p.Tree(Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	return root
}

// Every supported simple item (the circle's points checked by hand: 5 m
// north is 4.4966e-5 degrees of latitude, 5 m east 6.6427e-5 degrees of
// longitude at 47.4 degrees), as the leaves that fly it: a hold after a
// waypoint, a speed that later GoTos fly at, a DO_JUMP as a Repeater over
// the items it jumps back over, an altitude above sea level made one above
// home, a yaw, a servo passed through, a loiter circle.
func TestTreeFlight(t *testing.T) {
	var b strings.Builder
	render(treeOf(t, "testdata/flight.plan"), 0, &b)
	want := `MemSequence "plan"
  GpsFix "preflight: GPS fix"
  Arm "preflight: arm"
  Takeoff "item 0: NAV_TAKEOFF (22)" alt=10
  Set "item 1: DO_CHANGE_SPEED (178)" key=plan.speed value=4
  Repeater "item 4: DO_JUMP (177)" count=2
    MemSequence "item 4: DO_JUMP (177) body"
      GoTo "item 2: NAV_WAYPOINT (16)" alt=15 lat=47.397922 lon=8.545594 radius=2 speed=4
      Wait "item 2: NAV_WAYPOINT (16)" ms=3000
      GoTo "item 3: NAV_WAYPOINT (16)" alt=15 lat=47.397922 lon=8.545794 speed=4
  GoTo "item 5: NAV_LOITER_TIME (19)" alt=12 lat=47.397922 lon=8.545794 speed=4
  Wait "item 5: NAV_LOITER_TIME (19)" ms=2000
  GoTo "item 6: NAV_WAYPOINT (16)" alt=15 lat=47.397742 lon=8.545794 speed=4
  Yaw "item 6: NAV_WAYPOINT (16)" heading_deg=90
  MAVCommand "item 7: DO_SET_SERVO (183)" command=183 frame=2 param1=9 param2=1500 param3=0 param4=0 param5=0 param6=0 param7=0
  GoTo "item 8: NAV_LOITER_TURNS (18)" alt=12 lat=47.397742 lon=8.545594 speed=4
  Repeater "item 8: NAV_LOITER_TURNS (18)" count=1
    MemSequence "item 8: NAV_LOITER_TURNS (18) turn"
      GoTo "item 8: NAV_LOITER_TURNS (18) point 1" alt=12 lat=47.3977738 lon=8.545641 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 2" alt=12 lat=47.397742 lon=8.5456604 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 3" alt=12 lat=47.3977102 lon=8.545641 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 4" alt=12 lat=47.397697 lon=8.545594 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 5" alt=12 lat=47.3977102 lon=8.545547 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 6" alt=12 lat=47.397742 lon=8.5455276 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 7" alt=12 lat=47.3977738 lon=8.545547 speed=4
      GoTo "item 8: NAV_LOITER_TURNS (18) point 8" alt=12 lat=47.397787 lon=8.545594 speed=4
  ReturnHome "item 9: NAV_RETURN_TO_LAUNCH (20)"
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A plan that starts flying without a take-off (PX4 takes off by itself,
// as for MAVSDK's survey sample) gets one written out, to the first
// item's altitude.
func TestTreeImplicitTakeoff(t *testing.T) {
	root := treeOf(t, "testdata/mavsdk/qgroundcontrol_sample_with_survey.plan")
	got := root.Children[3]
	if got.Type != "Takeoff" || got.Params["alt"] != 50.0 || !strings.Contains(got.Name, "implicit") {
		t.Errorf("got %+v, want an implicit Takeoff to 50 m before item 1", got)
	}
	if root.Children[2].Type != CommandLeaf || root.Children[4].Type != "GoTo" {
		t.Errorf("got %s, %s", root.Children[2].Type, root.Children[4].Type)
	}
}
