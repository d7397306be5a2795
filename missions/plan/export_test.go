package plan

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// meaning is what botd flies of each item, one line an item: altitudes
// above home, a null and a 0 yaw alike (neither turns), a jump's target by
// its place in the plan.
func meaning(p *Plan) []string {
	byID := map[int]int{}
	for _, it := range p.Items {
		byID[it.JumpID] = it.Seq
	}
	var out []string
	for _, it := range p.Items {
		pr := it.Params
		z := func(v float64) float64 {
			if math.IsNaN(v) {
				return 0
			}
			return v
		}
		alt := pr[6]
		if frameKind(it.Frame) == "amsl" {
			alt -= p.Home[2]
		}
		var s string
		switch it.Command {
		case CmdNavTakeoff:
			s = fmt.Sprintf("alt %.2f", alt)
		case CmdNavWaypoint:
			s = fmt.Sprintf("%d %d alt %.2f hold %v radius %v yaw %v", it.X(), it.Y(), alt, pr[0], pr[1], z(pr[3]))
		case CmdNavLoiterTime:
			s = fmt.Sprintf("%d %d alt %.2f time %v", it.X(), it.Y(), alt, pr[0])
		case CmdNavLoiterTurns:
			s = fmt.Sprintf("%d %d alt %.2f turns %v radius %v", it.X(), it.Y(), alt, pr[0], pr[2])
		case CmdNavLoiterUnlim:
			s = fmt.Sprintf("%d %d alt %.2f", it.X(), it.Y(), alt)
		case CmdNavLand:
			s = fmt.Sprintf("%d %d", it.X(), it.Y())
		case CmdDoChangeSpeed:
			s = fmt.Sprintf("speed %v", pr[1])
		case CmdDoJump:
			s = fmt.Sprintf("to item %d repeat %v", byID[int(pr[0])], pr[1])
		case CmdNavReturnHome:
		default:
			s = fmt.Sprintf("frame %d params %v", it.Frame, pr)
		}
		out = append(out, fmt.Sprintf("%d %s %s", it.Seq, cmdName(it.Command), s))
	}
	return out
}

func parseFile(t *testing.T, file string) *Plan {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, ps := Parse(data, Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	return p
}

// roundTrip imports a plan, exports the tree, and reads the export back.
func roundTrip(t *testing.T, p *Plan) (*Plan, []byte) {
	t.Helper()
	root, ps := p.Tree(Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	out, err := Export(map[string]*bt.NodeDef{"main": root}, "main", p.Blackboard(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, ps := Parse(out, Limits{})
	if ps != nil {
		t.Fatalf("%v\n%s", ps, out)
	}
	return back, out
}

// plan -> botd -> plan keeps every supported item: the same commands in the
// same order with the same positions (to 1e-7 degrees), altitudes above
// home, hold and loiter times, radii, turns, speeds, jumps and pass-through
// params; and the home.
func TestRoundTrip(t *testing.T) {
	for _, file := range []string{
		"testdata/flight.plan",
		"testdata/short.plan",
		"testdata/fenced.plan",
		"testdata/mavsdk/qgroundcontrol_sample.plan",
		"testdata/mavsdk/qgroundcontrol_sample_with_survey.plan",
		"testdata/mavsdk/qgroundcontrol_sample_with_digicam_control.plan",
	} {
		t.Run(file, func(t *testing.T) {
			p := parseFile(t, file)
			back, out := roundTrip(t, p)
			want, got := strings.Join(meaning(p), "\n"), strings.Join(meaning(back), "\n")
			if got != want {
				t.Errorf("got\n%s\nwant\n%s\nexport:\n%s", got, want, out)
			}
			if (p.Home == nil) != (back.Home == nil) || p.Home != nil && *p.Home != *back.Home {
				t.Errorf("home %v, want %v", back.Home, p.Home)
			}
			if !reflect.DeepEqual(p.Fence, back.Fence) || !reflect.DeepEqual(p.Rally, back.Rally) {
				t.Errorf("fence %+v rally %v, want %+v %v", back.Fence, back.Rally, p.Fence, p.Rally)
			}
			again, _ := roundTrip(t, back)
			if g := strings.Join(meaning(again), "\n"); g != got {
				t.Errorf("a second round trip changed the plan:\n%s", g)
			}
		})
	}
}

// A hand-written UAV mission (configs/missions/survey.json's flight) is
// written with its x/y targets as latitudes and longitudes from the home,
// a speed change before the first leg, and nothing for its checks (40 m
// north is 3.59728e-4 degrees; 10 m east 1.328586e-4 degrees at 47.4).
func TestExportHandWritten(t *testing.T) {
	main := &bt.NodeDef{Type: "SequenceWithMemory", Children: []*bt.NodeDef{
		{Type: "GpsFix"}, {Type: "Arm"},
		{Type: "Takeoff", Params: map[string]any{"alt": 15.0}},
		{Type: "GoTo", Params: map[string]any{"x": 40.0, "y": 0.0, "alt": 15.0, "radius": 2.0, "speed": 5.0}},
		{Type: "Wait", Params: map[string]any{"ms": 2000.0}},
		{Type: "GoTo", Params: map[string]any{"x": 40.0, "y": 10.0, "alt": 15.0, "radius": 2.0, "speed": 5.0}},
		{Type: "ReturnHome"}, {Type: "Disarm"},
	}}
	trees := map[string]*bt.NodeDef{"main": main}
	if _, err := Export(trees, "main", nil, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "/trees/main/children/3: GoTo flies to x/y") {
		t.Errorf("without a home: %v", err)
	}
	out, err := Export(trees, "main", nil, ExportOptions{Home: &[3]float64{47.397742, 8.545594, 488}})
	if err != nil {
		t.Fatal(err)
	}
	p, ps := Parse(out, Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	want := `0 MAV_CMD_NAV_TAKEOFF (22) alt 15.00
1 MAV_CMD_DO_CHANGE_SPEED (178) speed 5
2 MAV_CMD_NAV_WAYPOINT (16) 473981017 85455940 alt 15.00 hold 2 radius 2 yaw 0
3 MAV_CMD_NAV_WAYPOINT (16) 473981017 85457269 alt 15.00 hold 0 radius 2 yaw 0
4 MAV_CMD_NAV_RETURN_TO_LAUNCH (20) `
	if got := strings.Join(meaning(p), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []*bt.NodeDef{
		{Type: "Fallback", Children: []*bt.NodeDef{{Type: "Land"}}},
		{Type: "Repeater", Params: map[string]any{"count": -1.0}, Children: []*bt.NodeDef{{Type: "Land"}}},
		{Type: "Wait", Params: map[string]any{"ms": 5.0}},
	} {
		if _, err := Export(map[string]*bt.NodeDef{"main": bad}, "main", nil, ExportOptions{}); err == nil {
			t.Errorf("%s: exported", bad.Type)
		}
	}
}
