package ground

import (
	"errors"
	"strings"
	"testing"
)

func TestSelectorMatch(t *testing.T) {
	yardA := map[string]string{"site": "yard-a", "kind": "rover", "team": "blue"}
	yardB := map[string]string{"site": "yard-b", "kind": "uav", "team": "red"}
	for _, tc := range []struct {
		sel    string
		id     string
		labels map[string]string
		want   bool
	}{
		{"rover-*", "rover-0001", nil, true},
		{"rover-*", "uav-1", nil, false},
		{"rover-000[1-3]", "rover-0002", nil, true},
		{"rover-000[1-3]", "rover-0004", nil, false},
		{"rover-000[^1-3]", "rover-0004", nil, true},
		{"rover-1,uav-?", "uav-7", nil, true},
		{"rover-1,uav-?", "uav-17", nil, false},
		{"*", "anything", nil, true},
		{"rover-1", "rover-10", nil, false}, // a glob matches the whole id
		{"site=yard-a", "r", yardA, true},
		{"site=yard-a", "r", yardB, false},
		{"site=yard-a,kind=rover", "r", yardA, true},
		{"site=yard-a,kind=uav", "r", yardA, false}, // every term must hold
		{"site=yard-*", "r", yardB, true},
		{"team!=red", "r", yardA, true},
		{"team!=red", "r", yardB, false},
		{"team!=red", "r", nil, true}, // no such label: not red
		{"site=yard-a", "r", nil, false},
		{"kind=rover", "kind=rover", nil, false}, // labels are not ids
	} {
		sel, err := ParseSelector(tc.sel)
		if err != nil {
			t.Errorf("%q: %v", tc.sel, err)
			continue
		}
		if got := sel.Match(tc.id, tc.labels); got != tc.want {
			t.Errorf("%q on %s %v: %v, want %v", tc.sel, tc.id, tc.labels, got, tc.want)
		}
	}
	if !All().Match("x", nil) || All().NeedsLabels() {
		t.Error("All")
	}
	if s, _ := ParseSelector("site=a"); !s.NeedsLabels() {
		t.Error("a label selector needs labels")
	}
	if s, _ := ParseSelector("rover-*"); s.NeedsLabels() {
		t.Error("an id glob needs no labels")
	}
}

func TestSelectorParseErrors(t *testing.T) {
	for _, tc := range []struct{ sel, want string }{
		{"", "empty selector"},
		{"  ", "empty selector"},
		{"rover 1", "not a robot id glob"},
		{"rover-1,", `"" is not a robot id glob`},
		{"rover-[", "syntax error"},
		{"rover/1", "not a robot id glob"},
		{"rover-#", "not a robot id glob"},
		{"site=yard-a,rover-*", "not KEY=VALUE"},
		{"Site=a", `label key "Site"`},
		{"=a", `label key ""`},
		{"site=", "not a label value"},
		{"site=a b", "not a label value"},
		{"site=[a", "syntax error"},
		{strings.Repeat("r", MaxSelectorLen+1), "longer than"},
	} {
		_, err := ParseSelector(tc.sel)
		if err == nil {
			t.Errorf("%q accepted", tc.sel)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.sel, err, tc.want)
		}
	}
}

func TestNoMatchError(t *testing.T) {
	sel, _ := ParseSelector("uav-*")
	err := NoMatchError(sel, []RobotInfo{{ID: "rover-2", Connection: "ONLINE"}, {ID: "rover-1"}})
	if !errors.Is(err, ErrNoMatch) || !strings.Contains(err.Error(), `"uav-*"; robots heard: rover-1, rover-2`) {
		t.Errorf("%v", err)
	}
	if err := NoMatchError(sel, nil); !errors.Is(err, ErrNoMatch) || !strings.Contains(err.Error(), "no robot is on this broker") {
		t.Errorf("%v", err)
	}
}
