package bt

import "testing"

// In reactive evaluation a Monitor passes its child's status through.
func TestMonitorReactive(t *testing.T) {
	runTickCases(t, []tickCase{
		{name: "success", tree: nd("Monitor", "mon", nil, sc("child", "S")), want: "S", counts: map[string]counts{"child": {1, 1, 1, 0}}},
		{name: "failure", tree: nd("Monitor", "mon", nil, sc("child", "F")), want: "F", counts: map[string]counts{"child": {1, 1, 1, 0}}},
		{name: "running", tree: nd("Monitor", "mon", nil, sc("child", "RRS")), want: "RRS", counts: map[string]counts{"child": {1, 3, 1, 0}}},
		{name: "error", tree: nd("Monitor", "mon", nil, sc("child", "E")), want: "E", counts: map[string]counts{"child": {1, 1, 1, 0}}},
		{
			name: "halted with its child",
			tree: nd("Priority", "root", nil,
				tl("guard", "FS"),
				nd("Monitor", "mon", nil, sc("child", "R"))),
			want:   "RS",
			counts: map[string]counts{"mon": {1, 1, 0, 1}, "child": {1, 1, 0, 1}},
		},
	})
}
