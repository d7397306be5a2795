package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// setUsage documents botd sim -set.
const setUsage = "write KEY=VALUE on every agent's blackboard before the first tick (repeatable; typed as botctl set types it: " +
	"true/false, a number, \"a string\", else text); a sensor's key keeps the value for the whole run instead of the simulated reading"

// setFlag collects -set KEY=VALUE arguments.
type setFlag []string

func (s *setFlag) String() string { return strings.Join(*s, ",") }

func (s *setFlag) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*s = append(*s, v)
	return nil
}

// preset is one -set value resolved to a slot of the mission's blackboard.
type preset struct {
	slot  bt.Slot
	value bt.Value
	// held: the key is a sensor's, so the simulated reading would replace
	// the value on the next tick; the value is written after every
	// snapshot instead, stamped with the tick's time (fresh for max_age_ms).
	held bool
}

// resolve finds each key's slot. A key the mission never reads or writes
// is refused (with the key it most likely meant): setting it would change
// nothing, and a typo would leave the branch under test untried.
func (s setFlag) resolve(t *bt.Tree, hw *drivers.Config) ([]preset, error) {
	var sensors []string
	if hw != nil {
		sensors = hw.SensorKeys()
	}
	var out []preset
	for _, kv := range s {
		k, v, _ := strings.Cut(kv, "=")
		slot, ok := t.Slot(k)
		if !ok {
			keys := make([]string, 0, len(t.Keys()))
			for _, ki := range t.Keys() {
				if ki.Scope == bt.ScopeGlobal {
					keys = append(keys, ki.Name)
				}
			}
			return nil, fmt.Errorf("-set %s: the mission does not use the key %q%s", kv, k, didYouMean(k, keys, ""))
		}
		out = append(out, preset{slot: slot, value: bt.TextValue(v), held: slices.Contains(sensors, k)})
	}
	return out, nil
}
