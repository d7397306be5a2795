package plan

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// raw is a mission item as MAVSDK's importer (mission_import.cpp) makes it:
// command, frame, param1..4, x and y (degrees x 1e7; the value itself in
// MAV_FRAME_MISSION), z.
type raw struct {
	cmd, frame int
	p          [4]float64
	x, y       int32
	z          float64
}

var nan = math.NaN()

// The items MAVSDK imports from its own sample plans (testdata/mavsdk),
// worked out from the files by its importer's rules: simple items as they
// are, a survey flattened into its TransectStyleComplexItem's Items, a null
// param NaN, latitude and longitude rounded to 1e-7 degrees.
var mavsdkItems = map[string][]raw{
	"qgroundcontrol_sample.plan": {
		{22, 3, [4]float64{15, 0, 0, nan}, 473977507, 85456075, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473977711, 85466122, 50},
		{2000, 2, [4]float64{0, 0, 1, 0}, 0, 0, 0},
		{16, 3, [4]float64{0, 0, 0, nan}, 473982738, 85466053, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473982784, 85456082, 50},
		{20, 2, [4]float64{0, 0, 0, 0}, 0, 0, 0},
	},
	"qgroundcontrol_sample_with_survey.plan": {
		{530, 2, [4]float64{0, 2, nan, nan}, 0, 0, nan},
		{16, 3, [4]float64{0, 0, 0, nan}, 473977060, 85463397, 50},
		{206, 2, [4]float64{25, 0, 1, 0}, 0, 0, 0},
		{16, 3, [4]float64{0, 0, 0, nan}, 473977060, 85462068, 50},
		{206, 2, [4]float64{25, 0, 1, 0}, 0, 0, 0},
		{16, 3, [4]float64{0, 0, 0, nan}, 473977060, 85457443, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473977060, 85456115, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473974811, 85456316, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473974811, 85457645, 50},
		{206, 2, [4]float64{25, 0, 1, 0}, 0, 0, 0},
		{16, 3, [4]float64{0, 0, 0, nan}, 473974811, 85462092, 50},
		{16, 3, [4]float64{0, 0, 0, nan}, 473974811, 85463421, 50},
		{206, 2, [4]float64{0, 0, 1, 0}, 0, 0, 0},
	},
	"qgroundcontrol_sample_with_digicam_control.plan": {
		{203, 2, [4]float64{1, 0, 0, 0}, 1, 0, 0},
	},
	"mission_planner_sample.txt": {
		{22, 5, [4]float64{0, 0, 0, 0}, 473978101, 85455380, 15},
		{16, 5, [4]float64{0, 0, 0, 0}, 473977992, 85454669, 15},
		{16, 5, [4]float64{0, 0, 0, 0}, 473977883, 85453958, 15},
		{20, 5, [4]float64{0, 0, 0, 0}, 473977774, 85453247, 0},
	},
}

// The files MAVSDK refuses, and the problem botd reports for each. botd
// refuses the same files.
var mavsdkRefused = map[string]string{
	"qgroundcontrol_sample_with_structured_scan.plan":      `/mission/items/1/complexItemType: item 1: complex item "StructureScan" is not supported`,
	"qgroundcontrol_sample_with_survey_missing_items.plan": "/mission/items/1/TransectStyleComplexItem: item 1: survey without its generated items",
	"qgroundcontrol_sample_with_survey_wrong_version.plan": "/mission/items/1/version: item 1: survey version 9 is not supported",
	"qgroundcontrol_sample_without_mission.plan":           "/mission: the plan has no mission",
	"qgroundcontrol_sample_wrong_mission_version.plan":     "/mission/version: mission version 7 is not supported",
	"qgroundcontrol_sample_wrong_overall_version.plan":     "/version: plan version 42 is not supported",
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestMAVSDKSamplePlans(t *testing.T) {
	files, _ := filepath.Glob("testdata/mavsdk/*")
	seen := 0
	for _, f := range files {
		name := filepath.Base(f)
		if name == "README.md" || name == "LICENSE" {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, ps := Parse(data, Limits{})
			if want, refused := mavsdkRefused[name]; refused {
				if p != nil || len(ps) == 0 || !strings.Contains(ps.Error(), want) {
					t.Fatalf("got %v, want a refusal with %q", ps, want)
				}
				return
			}
			want, ok := mavsdkItems[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			if len(ps) != 0 {
				t.Fatal(ps)
			}
			if len(p.Items) != len(want) {
				t.Fatalf("%d items, want %d", len(p.Items), len(want))
			}
			for i, w := range want {
				g := p.Items[i]
				ok := g.Seq == i && g.Command == w.cmd && g.Frame == w.frame && g.X() == w.x && g.Y() == w.y && same(g.Params[6], w.z)
				for k := range w.p {
					ok = ok && same(g.Params[k], w.p[k])
				}
				if !ok {
					t.Errorf("item %d: got %d %d %v x %d y %d, want %+v", i, g.Command, g.Frame, g.Params, g.X(), g.Y(), w)
				}
			}
		})
	}
	if seen != len(mavsdkItems)+len(mavsdkRefused) {
		t.Errorf("%d sample files, want %d", seen, len(mavsdkItems)+len(mavsdkRefused))
	}
}
