//go:build linux

package gpio

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/botd-project/botd/drivers"
)

// The self-test's exercises (drivers.Exerciser, with --move): each actuator is moved briefly
// and said what it did; the self-test writes the safe states after each.

// latched returns what sets the actuator's command c, latched (owned by no action).
func latched[C any](x *drivers.Actuator[C], c C) func() error {
	return func() error { return x.Command(drivers.Owner{}, c, false) }
}

// Exercise implements drivers.Exerciser: the servo moves to its limits and back to its safe
// angle.
func (s *servoImpl) Exercise(x *drivers.Exercise) (status, msg string) {
	c, st := s.cfg, x.Options()
	for _, a := range []float64{c.MinAngle, c.MaxAngle, *c.SafeAngle} {
		if err := x.Hold(latched(s.act, AngleCommand{Degrees: a}), st.Pulse); err != nil {
			return drivers.TestFailed, err.Error()
		}
	}
	return drivers.TestOK, fmt.Sprintf("moved to %v°, %v° and back to %v°", c.MinAngle, c.MaxAngle, *c.SafeAngle)
}

// Exercise implements drivers.Exerciser: the LED switches away from its safe state briefly.
func (l *ledImpl) Exercise(x *drivers.Exercise) (status, msg string) {
	cmd, on := LEDCommand{Mode: LEDOn}, true
	if l.Safe().Mode == LEDOn {
		cmd, on = LEDCommand{Mode: LEDOff}, false
	}
	return switched(x, latched(l.act, cmd), on)
}

// Exercise implements drivers.Exerciser: the output switches away from its safe level briefly.
func (l *levelImpl) Exercise(x *drivers.Exercise) (status, msg string) {
	cmd, on := LevelCommand{Level: 1}, true
	if l.Safe().Level == 1 {
		cmd, on = LevelCommand{}, false
	}
	return switched(x, latched(l.act, cmd), on)
}

// switched holds an output's switched state for a pulse and says so.
func switched(x *drivers.Exercise, set func() error, on bool) (status, msg string) {
	st := x.Options()
	if err := x.Hold(set, st.Pulse); err != nil {
		return drivers.TestFailed, err.Error()
	}
	return drivers.TestOK, fmt.Sprintf("switched %s for %v, then back to its safe level", map[bool]string{true: "on", false: "off"}[on], st.Pulse)
}

// Exercise implements drivers.Exerciser: half the allowed duty for a pulse.
func (p *pwmImpl) Exercise(x *drivers.Exercise) (status, msg string) {
	c, st := p.cfg, x.Options()
	if err := x.Hold(latched(p.act, DutyCommand{Duty: c.MaxDuty / 2}), st.Pulse); err != nil {
		return drivers.TestFailed, err.Error()
	}
	return drivers.TestOK, fmt.Sprintf("duty %.2f for %v, then back to %v", c.MaxDuty/2, st.Pulse, c.Safe)
}

// exerciseDrive pulses the base forward, backward and turning left, and checks every wheel
// encoder counted each pulse in the right direction.
// Exercise implements drivers.Exerciser: it pulses the base forward, backward and turning
// left, and checks that every wheel encoder counted each pulse in the right direction.
func (d *driveImpl) Exercise(x *drivers.Exercise) (status, msg string) {
	c, st := d.cfg, x.Options()
	hold := func(cmd DriveCommand, dur time.Duration) error { return x.Hold(latched(d.act, cmd), dur) }
	odo := x.WheelCounter()
	pulses := []struct {
		name string
		c    DriveCommand
		want [2]float64 // the sign each wheel should count
	}{
		{"forward", DriveCommand{Linear: st.Speed * c.MaxLinear}, [2]float64{1, 1}},
		{"backward", DriveCommand{Linear: -st.Speed * c.MaxLinear}, [2]float64{-1, -1}},
		// turning with the wheels as fast as going forward
		{"left", DriveCommand{Angular: math.Min(st.Speed*c.MaxLinear*2/c.WheelBase, c.MaxAngular)}, [2]float64{-1, 1}},
	}
	var notes, problems []string
	for _, p := range pulses {
		var before [2]int64
		if odo != nil {
			before = odo.Counts()
		}
		if err := hold(p.c, st.Pulse); err != nil {
			return drivers.TestFailed, fmt.Sprintf("pulse %s: %v", p.name, err)
		}
		if err := hold(DriveCommand{}, 200*time.Millisecond); err != nil { // stop, let the wheels settle
			return drivers.TestFailed, fmt.Sprintf("stop: %v", err)
		}
		note := fmt.Sprintf("%s %v", p.name, st.Pulse)
		if odo != nil {
			after := odo.Counts()
			delta := [2]int64{after[0] - before[0], after[1] - before[1]}
			problems = append(problems, countProblems(p.name, p.want, delta, odo.Quadrature())...)
			note += fmt.Sprintf(" (left %+d, right %+d counts)", delta[0], delta[1])
		}
		notes = append(notes, note)
	}
	msg = "pulsed " + strings.Join(notes, "; ")
	if odo == nil {
		msg += "; no encoders to check: watch the wheels"
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return drivers.TestFailed, strings.Join(problems, "; ") + "; " + msg
	}
	return drivers.TestOK, msg
}
