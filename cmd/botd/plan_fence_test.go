package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/botd-project/botd/missions/plan"
)

const fencedPlan = "../../missions/plan/testdata/fenced.plan"

// A plan's geoFence (an inclusion polygon, an exclusion circle) and rally
// point check, and come back from botd export -format plan, straight and
// through the generated mission as botd JSON.
func TestExportPlanFence(t *testing.T) {
	if code, out, errOut := runCmd(t, "check", "-hardware", "../../configs/uav-sim-hw.yaml", fencedPlan); code != 0 {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(fencedPlan)
	if err != nil {
		t.Fatal(err)
	}
	want, ps := plan.Parse(data, plan.Limits{})
	if ps != nil || len(want.Fence) != 2 || len(want.Rally) != 1 {
		t.Fatalf("fenced.plan: %v %+v", ps, want)
	}
	dir := t.TempDir()
	asJSON := filepath.Join(dir, "fenced.json")
	if code, _, errOut := runCmd(t, "export", "-format", "botd", "-o", asJSON, fencedPlan); code != 0 {
		t.Fatalf("export botd: exit %d %s", code, errOut)
	}
	for _, src := range []string{fencedPlan, asJSON} {
		out := filepath.Join(dir, "again.plan")
		if code, _, errOut := runCmd(t, "export", "-format", "plan", "-o", out, src); code != 0 {
			t.Fatalf("%s: exit %d %s", src, code, errOut)
		}
		again, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got, ps := plan.Parse(again, plan.Limits{})
		if ps != nil || !reflect.DeepEqual(got.Fence, want.Fence) || !reflect.DeepEqual(got.Rally, want.Rally) {
			t.Errorf("%s: %v fence %+v rally %v, want %+v %v", src, ps, got.Fence, got.Rally, want.Fence, want.Rally)
		}
	}
}
