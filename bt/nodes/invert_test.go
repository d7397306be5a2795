package nodes

import "testing"

func TestStatusMappingDecorators(t *testing.T) {
	// child status -> decorated status
	table := map[string]map[string]string{
		"Inverter":     {"S": "F", "F": "S", "R": "R", "E": "E"},
		"Succeeder":    {"S": "S", "F": "S", "R": "R", "E": "E"},
		"ForceSuccess": {"S": "S", "F": "S", "R": "R", "E": "E"},
		"Failer":       {"S": "F", "F": "F", "R": "R", "E": "E"},
		"ForceFailure": {"S": "F", "F": "F", "R": "R", "E": "E"},
	}
	var cases []tickCase
	for typ, m := range table {
		for child, want := range m {
			cases = append(cases, tickCase{
				Name:   typ + " " + child,
				Tree:   nd(typ, "dec", nil, sc("child", child)),
				Want:   want,
				Counts: map[string]counts{"child": {1, 1, b2i(child != "R"), 0}},
			})
		}
	}
	runTickCases(t, cases)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDecoratorHaltsChild(t *testing.T) {
	// The guard runs at tick 2: the Inverter is unreached, and it and its
	// running child are halted, child first.
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FR"),
		nd("Inverter", "inv", nil, sc("child", "R"))))
	h.Run(1)
	h.Rec.Take()
	h.Tick()
	eqLines(t, "tick 2", h.Rec.Take(), []string{
		"guard open", "guard tick RUNNING", "root tick RUNNING", "child halt", "inv halt",
	})
	h.CheckProbe()
}
