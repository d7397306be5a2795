package btcpp

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// readRules reads BehaviorTree.CPP's substitution JSON as stand-in rules
// (missions.Codec.Rules, for missions.LoadSubstitutionFile):
// {"TestNodeConfigs": {...}, "SubstitutionRules": {...}}, whose test
// configurations become TestNodes; its filters are read as botd patterns,
// so a name there needs '@'. false when o has no SubstitutionRules.
func readRules(o *missions.Object) (missions.Substitutions, bool, error) {
	if o == nil {
		return nil, false, nil
	}
	r, ok := o.Get("SubstitutionRules")
	if !ok {
		return nil, false, nil
	}
	rules, ok := r.(*missions.Object)
	if !ok {
		return nil, true, fmt.Errorf("SubstitutionRules: want an object of rules")
	}
	var configs *missions.Object
	if c, ok := o.Get("TestNodeConfigs"); ok {
		if configs, ok = c.(*missions.Object); !ok {
			return nil, true, fmt.Errorf("TestNodeConfigs: want an object of test node configurations")
		}
	}
	ps := missions.NewProblems(missions.DefaultLimits())
	var out missions.Substitutions
	for _, pattern := range rules.Keys() {
		to, ok := rules.Value(pattern).(string)
		if !ok {
			return nil, true, fmt.Errorf("%q: want a string, got %s", pattern, missions.Describe(rules.Value(pattern)))
		}
		if configs != nil {
			if c, ok := configs.Get(to); ok {
				def, err := testNodeConfig(to, c, ps)
				if err != nil {
					return nil, true, err
				}
				if err := out.AddRule(pattern, def); err != nil {
					return nil, true, err
				}
				continue
			}
		}
		if err := out.Add(pattern + "=" + to); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

// testNodeConfig converts one of BT.CPP's TestNodeConfigs to a TestNode.
func testNodeConfig(name string, v any, ps *missions.Problems) (bt.NodeDef, error) {
	o, ok := v.(*missions.Object)
	if !ok {
		return bt.NodeDef{}, fmt.Errorf("TestNodeConfigs/%s: want an object", name)
	}
	params := map[string]any{}
	for _, k := range o.Keys() {
		switch val := missions.Normalize(o.Value(k), "", ps).(type) {
		case string:
			switch k {
			case "return_status", "success_script", "failure_script", "post_script":
				params[k] = val
			default:
				return bt.NodeDef{}, fmt.Errorf("TestNodeConfigs/%s/%s: not supported (botd's TestNode takes return_status, "+
					"async_delay, success_script, failure_script and post_script)", name, k)
			}
		case float64:
			if k != "async_delay" {
				return bt.NodeDef{}, fmt.Errorf("TestNodeConfigs/%s/%s: want a string", name, k)
			}
			params[k] = val
		default:
			return bt.NodeDef{}, fmt.Errorf("TestNodeConfigs/%s/%s: want a string or a number", name, k)
		}
	}
	if _, ok := params["return_status"]; !ok {
		return bt.NodeDef{}, fmt.Errorf("TestNodeConfigs/%s: return_status is missing", name)
	}
	return bt.NodeDef{Type: "TestNode", Params: params}, nil
}
