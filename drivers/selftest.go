package drivers

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// SelfTestOptions configure SelfTest.
type SelfTestOptions struct {
	// Move exercises the actuators: the drive pulses forward, backward and left (the wheels
	// turn!), servos sweep, outputs switch on briefly. Without it they are only started and
	// left in their safe state.
	Move bool
	// Pulse is how long each motor pulse and output lasts (default 300 ms).
	Pulse time.Duration
	// Speed is the pulses' share of the drive's max_linear and max_angular (default 0.3).
	Speed float64
	// Wait is how long a sensor has to give its first sample (default 3 s).
	Wait time.Duration
}

// Self-test outcomes.
const (
	TestOK      = "ok"
	TestFailed  = "FAIL"
	TestSkipped = "skipped"
)

// DeviceReport is what the self-test found of one device.
type DeviceReport struct {
	Device, Kind string
	// Path is the device's place in the config ("devices[3]").
	Path   string
	Status string // TestOK, TestFailed or TestSkipped
	// Message says what the device returned, or why it failed.
	Message string
}

// SelfTest opens every device of cfg in turn and reports what each returned: it connects the
// boards, starts each device's drivers (a device that fails is reported and the rest go on),
// reads every sensor's first samples, and with Move exercises the actuators briefly. Every
// actuator is in its safe state before anything else starts and again when SelfTest returns.
// The robot runs on its own goroutines and real time (Options.Sync is ignored); a sim board's
// world must be stepped by the caller meanwhile. The error is for what stops the test as a
// whole (a config that does not build); devices' problems are in the reports.
func SelfTest(ctx context.Context, cfg *Config, opts Options, st SelfTestOptions) ([]DeviceReport, error) {
	if st.Pulse <= 0 {
		st.Pulse = 300 * time.Millisecond
	}
	if st.Speed <= 0 || st.Speed > 1 {
		st.Speed = 0.3
	}
	if st.Wait <= 0 {
		st.Wait = 3 * time.Second
	}
	opts.Sync = false
	r, err := Build(cfg, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	failed, err := r.start(ctx, true)
	if err != nil {
		return nil, err
	}
	reports := make([]DeviceReport, len(r.devices))
	for i, d := range r.devices {
		reports[i] = DeviceReport{Device: d.name, Kind: d.kind, Path: d.path, Status: TestOK}
		if err := failed[d]; err != nil {
			reports[i].Status, reports[i].Message = TestFailed, err.Error()
		}
	}
	r.waitForSamples(ctx, st.Wait, failed)
	for i, d := range r.devices {
		if failed[d] == nil && d.sens != nil {
			reports[i].Status, reports[i].Message = r.sensorReport(d)
		}
	}
	for i, d := range r.devices {
		// A vehicle (actuator and sensor) reports what it hears: hwtest never flies it.
		if failed[d] != nil || d.act == nil || d.sens != nil {
			continue
		}
		if !st.Move {
			reports[i].Message = "started, in its safe state (--move exercises it)"
			continue
		}
		reports[i].Status, reports[i].Message = r.exercise(ctx, d, st)
		_ = r.Safe()
	}
	return reports, nil
}

// waitForSamples waits until every sensor that started has a good sample, has failed, or wait
// has passed.
func (r *Robot) waitForSamples(ctx context.Context, wait time.Duration, failed map[*device]error) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		pending := false
		r.table.mu.Lock()
		for _, s := range r.sensors {
			if !s.left && failed[s.dev] == nil && s.lastOK.IsZero() && s.err == nil {
				pending = true
			}
		}
		r.table.mu.Unlock()
		if !pending {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sensorReport is a sensor's values, or why it has none.
func (r *Robot) sensorReport(d *device) (status, msg string) {
	s := d.sens
	t := &r.table
	t.mu.Lock()
	var vals []string
	for i, k := range s.keys {
		j := s.off + i
		if t.have[j] {
			vals = append(vals, fmt.Sprintf("%s=%s", strings.TrimPrefix(k.Name, keyPrefix(s.keys)), fmtValue(t.vals[j], t.boolean[j])))
		}
	}
	f, bad := s.fault(r.now())
	t.mu.Unlock()
	parts := []string{strings.Join(vals, " ")}
	if d.detail != nil {
		parts = append(parts, d.detail())
	}
	switch {
	case bad:
		return TestFailed, joinParts(append([]string{f.Message}, parts...))
	case len(vals) == 0:
		return TestFailed, joinParts(append([]string{"no sample yet"}, parts...))
	}
	return TestOK, joinParts(parts)
}

// joinParts joins the non-empty parts of a message with "; ".
func joinParts(parts []string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// keyPrefix is the common prefix of a sensor's keys ("imu."), so reports say roll=0.01.
func keyPrefix(keys []Key) string {
	if len(keys) < 2 {
		return ""
	}
	p := keys[0].Name
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		p = p[:i+1]
	} else {
		return ""
	}
	for _, k := range keys[1:] {
		if !strings.HasPrefix(k.Name, p) {
			return ""
		}
	}
	return p
}

func fmtValue(v float64, boolean bool) string {
	if boolean {
		return fmt.Sprint(v != 0)
	}
	return fmt.Sprintf("%.4g", v)
}

// exercise moves one actuator briefly and says what happened.
func (r *Robot) exercise(ctx context.Context, d *device, st SelfTestOptions) (status, msg string) {
	hold := func(set func() error, dur time.Duration) error {
		if err := set(); err != nil {
			return err
		}
		if err := r.Apply(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(dur):
		}
		return nil
	}
	switch c := d.cfg.Spec.(type) {
	case *DiffDriveConfig:
		return r.exerciseDrive(d, c, st, func(cmd DriveCommand, dur time.Duration) error { return hold(latched(d, cmd), dur) })
	case *ServoConfig:
		for _, a := range []float64{c.MinAngle, c.MaxAngle, *c.SafeAngle} {
			if err := hold(latched(d, AngleCommand{Degrees: a}), st.Pulse); err != nil {
				return TestFailed, err.Error()
			}
		}
		return TestOK, fmt.Sprintf("moved to %v°, %v° and back to %v°", c.MinAngle, c.MaxAngle, *c.SafeAngle)
	case *OutputConfig:
		var set func() error
		on := true
		if x, ok := d.act.slot.(*Actuator[LEDCommand]); ok {
			cmd := LEDCommand{Mode: LEDOn}
			if x.i.Safe().Mode == LEDOn {
				cmd, on = LEDCommand{Mode: LEDOff}, false
			}
			set = latched(d, cmd)
		} else if x, ok := d.act.slot.(*Actuator[LevelCommand]); ok {
			cmd := LevelCommand{Level: 1}
			if x.i.Safe().Level == 1 {
				cmd, on = LevelCommand{}, false
			}
			set = latched(d, cmd)
		} else {
			break
		}
		if err := hold(set, st.Pulse); err != nil {
			return TestFailed, err.Error()
		}
		return TestOK, fmt.Sprintf("switched %s for %v, then back to its safe level", map[bool]string{true: "on", false: "off"}[on], st.Pulse)
	case *PWMOutConfig:
		if err := hold(latched(d, DutyCommand{Duty: c.MaxDuty / 2}), st.Pulse); err != nil {
			return TestFailed, err.Error()
		}
		return TestOK, fmt.Sprintf("duty %.2f for %v, then back to %v", c.MaxDuty/2, st.Pulse, c.Safe)
	}
	return TestSkipped, "no exercise for this kind"
}

// latched returns what sets the device's command c, latched (owned by no action).
func latched[C any](d *device, c C) func() error {
	return func() error { return commandOf(d.act, owner{}, c, false) }
}

// sideNames name the wheels by index.
var sideNames = [2]string{"left", "right"}

func countProblems(pulse string, want [2]float64, delta [2]int64, quad [2]bool) []string {
	var out []string
	for i, n := range delta {
		switch {
		case n == 0:
			out = append(out, fmt.Sprintf("the %s encoder counted nothing %s (its wiring or power, or the wheel did not turn)", sideNames[i], pulse))
		case quad[i] && math.Copysign(1, float64(n)) != want[i]:
			out = append(out, fmt.Sprintf("the %s encoder counted %+d %s: swap its a and b pins (or set reverse: true), unless the motor itself is wired backward", sideNames[i], n, pulse))
		}
	}
	return out
}

// exerciseDrive pulses the base forward, backward and turning left, and checks every wheel
// encoder counted each pulse in the right direction.
func (r *Robot) exerciseDrive(d *device, c *DiffDriveConfig, st SelfTestOptions, hold func(DriveCommand, time.Duration) error) (status, msg string) {
	var odo WheelCounter
	for _, o := range r.devices {
		if wc, ok := abilityOf[WheelCounter](o); ok && wc.CountedDrive() == d.name && o.sens != nil && !o.sens.left {
			odo = wc
		}
	}
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
			return TestFailed, fmt.Sprintf("pulse %s: %v", p.name, err)
		}
		if err := hold(DriveCommand{}, 200*time.Millisecond); err != nil { // stop, let the wheels settle
			return TestFailed, fmt.Sprintf("stop: %v", err)
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
		return TestFailed, strings.Join(problems, "; ") + "; " + msg
	}
	return TestOK, msg
}
