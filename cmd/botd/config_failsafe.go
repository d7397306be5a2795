package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/hint"
	"github.com/botd-project/botd/missions/runner"
)

// The failsafe section is where a typo is most dangerous: an action the
// runner does not know is taken for a tree of the mission, and when the
// mission has no such tree the robot only holds, with a log line, at the
// moment it needed to land. So an action is checked three ways: a
// built-in; a name one or two edits from a built-in, which is a typo;
// and otherwise a tree of the configured mission, compiled here as the
// runner will compile it. Without a configured mission a tree name
// cannot be checked yet: check-config says so in a note.

// builtinActions are the failsafe actions the runner carries out itself.
var builtinActions = []string{runner.ActionContinue, runner.ActionHold, runner.ActionAbort, runner.ActionLand, runner.ActionReturnHome}

// The runner's defaults for the battery thresholds: a config that sets
// one of them is compared with the other's default.
const (
	defaultBatteryLow      = runner.DefaultBatteryLow
	defaultBatteryCritical = runner.DefaultBatteryCritical
)

// failsafeAction is one configured action with its field path.
type failsafeAction struct{ field, action string }

// actions are the configured actions that are set (unset ones take a
// built-in default).
func (f *FailsafeSection) actions() []failsafeAction {
	var out []failsafeAction
	for _, a := range []failsafeAction{
		{"failsafe.link_loss_action", f.LinkLossAction}, {"failsafe.battery_low_action", f.BatteryLowAction},
		{"failsafe.battery_action", f.BatteryAction}, {"failsafe.sensor_action", f.SensorAction},
		{"failsafe.overrun_action", f.OverrunAction},
	} {
		if a.action != "" {
			out = append(out, a)
		}
	}
	return out
}

// nearBuiltin is the built-in action a name is one or two edits from, or
// "" (also for a built-in itself).
func nearBuiltin(action string) string { return nearest(action, builtinActions) }

// nearest is the word of a short list (an enumeration) that a value is
// one or two edits from, or "" (also for a word of the list). Unlike
// hint.Closest it allows two edits in short words: "lnad" is "land".
func nearest(value string, words []string) string {
	if value == "" || slices.Contains(words, value) {
		return ""
	}
	best, bestD := "", 3
	for _, w := range words {
		if d := levenshtein.ComputeDistance(strings.ToLower(value), w); d < bestD {
			best, bestD = w, d
		}
	}
	return best
}

// validate checks the section on its own: actions, thresholds, counts.
// What needs the hardware or the mission is checked by checkHardware and
// checkFailsafeTrees.
// withMission: a mission is configured, whose trees may be failsafe
// actions.
func (f *FailsafeSection) validate(withMission bool, bad func(field, format string, args ...any)) {
	for _, a := range f.actions() {
		switch {
		case strings.ContainsAny(a.action, " \t\r\n"):
			bad(a.field, "%q is not a failsafe action (%s) nor a tree name", a.action, actionList())
		case nearBuiltin(a.action) != "" && !withMission:
			// With a mission, its trees decide (checkFailsafeTrees): a
			// tree may be called home.
			bad(a.field, typoAction, a.action, nearBuiltin(a.action), actionList())
		}
	}
	// A negative threshold disables its check (runner.FailsafeConfig);
	// past 100 a percentage trips at once, for ever.
	for _, p := range []struct {
		field string
		v     float64
	}{{"failsafe.battery_low", f.BatteryLow}, {"failsafe.battery_critical", f.BatteryCritical}} {
		if math.IsNaN(p.v) || p.v > 100 {
			bad(p.field, "%v is not a percentage: want 0 to 100 (0: the default; negative: no check)", p.v)
		}
	}
	low, crit := f.BatteryLow, f.BatteryCritical
	if low == 0 {
		low = defaultBatteryLow
	}
	if crit == 0 {
		crit = defaultBatteryCritical
	}
	if low > 0 && crit > 0 && low <= 100 && crit <= 100 && crit >= low {
		bad("failsafe.battery_critical", "%v is not below battery_low %v: the critical level comes after the low one", crit, low)
	}
	if f.BatteryKey != "" && strings.ContainsAny(f.BatteryKey, " {}") {
		bad("failsafe.battery_key", "%q is not a sensor key", f.BatteryKey)
	}
	for i, s := range f.RequiredSensors {
		if s == "" || strings.ContainsAny(s, " {}") {
			bad(fmt.Sprintf("failsafe.required_sensors[%d]", i), "%q is not a sensor key or a device name", s)
		}
	}
}

const typoAction = "%q is not a failsafe action (did you mean %s?): want one of %s, or a tree of the mission"

// actionList is "continue, hold, abort, land, return_home".
func actionList() string { return strings.Join(builtinActions, ", ") }

// checkHardware checks what the config says about the robot's hardware:
// substitution rules on real boards, and the failsafe's sensors and
// e-stop button, whose typos would leave a failsafe that never trips.
// check-config and the daemon's start both call it.
func (c *Config) checkHardware(hw *drivers.Config) error {
	var errs []error
	if err := c.checkSubstitutionsSim(hw); err != nil {
		errs = append(errs, err)
	}
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", c.source, field, fmt.Sprintf(format, args...)))
	}
	keys := hw.SensorKeys()
	var devices, bumps []string
	for _, d := range hw.Devices {
		if d != nil {
			devices = append(devices, d.Name)
		}
	}
	for _, d := range hw.DevicesOfKind("bump") {
		bumps = append(bumps, d.Name)
	}
	f := &c.Failsafe
	if f.BatteryKey != "" && !slices.Contains(keys, f.BatteryKey) {
		bad("failsafe.battery_key", "%q is not a sensor key of this robot%s", f.BatteryKey, didYouMean(f.BatteryKey, keys, "its sensor keys"))
	}
	for i, s := range f.RequiredSensors {
		if !slices.Contains(keys, s) && !slices.Contains(devices, s) {
			bad(fmt.Sprintf("failsafe.required_sensors[%d]", i), "%q is neither a sensor key nor a device of this robot%s",
				s, didYouMean(s, append(slices.Clone(keys), devices...), "its devices and keys"))
		}
	}
	if b := f.EStopButton; b != "" && !slices.Contains(bumps, b) {
		switch {
		case slices.Contains(devices, b):
			bad("failsafe.estop_button", "device %q is not a bump (a digital input): it cannot be pressed", b)
		default:
			bad("failsafe.estop_button", "%q is not a device of this robot%s", b, didYouMean(b, bumps, "its bump devices"))
		}
	}
	return errors.Join(errs...)
}

// didYouMean is " (did you mean x?)" for a near miss among known, else
// the known names under what (" (its devices: a, b)"), or nothing (no
// what, or too many to list).
func didYouMean(name string, known []string, what string) string {
	if s := hint.Closest(name, known); s != "" {
		return fmt.Sprintf(" (did you mean %s?)", s)
	}
	if what == "" || len(known) == 0 || len(known) > 20 {
		return ""
	}
	return fmt.Sprintf(" (%s: %s)", what, strings.Join(known, ", "))
}

// didYouMeanWord is " (did you mean x?)" for a value one or two edits
// from a word of an enumeration, else "".
func didYouMeanWord(value string, words []string) string {
	if w := nearest(value, words); w != "" {
		return fmt.Sprintf(" (did you mean %s?)", w)
	}
	return ""
}

// checkFailsafeTrees compiles each failsafe action that names a tree of
// the configured mission, as the runner compiles it when the failsafe
// trips (Document.Spec with the tree as main, Registry.Compile).
// configuredMission calls it, for check-config and the daemon's start.
func (c *Config) checkFailsafeTrees(d *missions.Document, opts missions.Options) error {
	var errs []error
	trees := make([]string, 0, len(d.Trees))
	for name := range d.Trees {
		trees = append(trees, name)
	}
	slices.Sort(trees)
	for _, a := range c.Failsafe.actions() {
		if slices.Contains(builtinActions, a.action) || strings.ContainsAny(a.action, " \t\r\n") {
			continue // validate reports the latter
		}
		_, ok := d.Trees[a.action]
		if b := nearBuiltin(a.action); !ok && b != "" {
			errs = append(errs, fmt.Errorf("%s: "+typoAction, a.field, a.action, b, actionList()))
			continue
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %q is not a failsafe action (%s) nor a tree of this mission%s", a.field, a.action, actionList(),
				didYouMean(a.action, trees, "its trees")))
			continue
		}
		spec := d.Spec(opts)
		spec.Main = a.action
		if _, err := opts.Registry.Compile(spec); err != nil {
			errs = append(errs, fmt.Errorf("%s: tree %q does not compile as a failsafe tree: %w", a.field, a.action, err))
		}
	}
	return errors.Join(errs...)
}

// failsafeNotes are what check-config says about the failsafe besides
// its problems: an action taken for a tree name that no configured
// mission lets it check.
func (c *Config) failsafeNotes() []string {
	if c.Mission != "" {
		return nil
	}
	var out []string
	for _, a := range c.Failsafe.actions() {
		if slices.Contains(builtinActions, a.action) || nearBuiltin(a.action) != "" {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %q is taken for a tree of the mission that will run (no mission is configured to check it against); "+
			"a mission without that tree holds instead", a.field, a.action))
	}
	return out
}
