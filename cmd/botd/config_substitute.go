package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions"
)

// The config's `substitute:` list: substitution rules, as botd check and
// botd sim take with -substitute, applied to every mission the daemon
// loads. They stand scripted nodes in for real ones, so they are refused
// unless every board is simulated: a robot must never run a mission
// whose actions are pretend.

// substitutions parses the config's rules; nil when there are none.
func (c *Config) substitutions() (missions.Substitutions, error) {
	var out missions.Substitutions
	for i, r := range c.Substitute {
		subs, err := missions.ParseSubstitutions(r)
		if err != nil {
			return nil, fmt.Errorf("substitute[%d]: %w", i, err)
		}
		out = append(out, subs...)
	}
	return out, nil
}

// checkSubstitutionsSim refuses substitution rules on a robot with a
// board that is not simulated.
func (c *Config) checkSubstitutionsSim(hw *drivers.Config) error {
	if len(c.Substitute) == 0 {
		return nil
	}
	var real []string
	for name, a := range hw.Adaptors {
		if a.Kind != drivers.BoardSim {
			real = append(real, fmt.Sprintf("%s (%s)", name, a.Kind))
		}
	}
	if len(real) == 0 {
		return nil
	}
	slices.Sort(real)
	return fmt.Errorf("%s: substitute: substitution rules stand in scripted nodes for real ones and are allowed only "+
		"when every board is simulated (kind: sim); this robot has %s", c.source, strings.Join(real, ", "))
}
