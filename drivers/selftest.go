package drivers

import (
	"context"
	"fmt"
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

// Exerciser is an actuator implementation the self-test can move (SelfTestOptions.Move):
// Exercise moves it briefly through x and says what happened (status TestOK, TestFailed or
// TestSkipped). The self-test writes the safe states after each.
type Exerciser interface {
	Exercise(x *Exercise) (status, msg string)
}

// Exercise is what an Exerciser moves its actuator with.
type Exercise struct {
	ctx  context.Context
	r    *Robot
	d    *device
	opts SelfTestOptions
}

// Options are the self-test's options (defaults filled in).
func (x *Exercise) Options() SelfTestOptions { return x.opts }

// Hold sets the actuator's command with set (latched, as a leaf would), applies it and waits
// dur, or until the self-test's context ends.
func (x *Exercise) Hold(set func() error, dur time.Duration) error {
	if err := set(); err != nil {
		return err
	}
	if err := x.r.Apply(); err != nil {
		return err
	}
	select {
	case <-x.ctx.Done():
		return x.ctx.Err()
	case <-time.After(dur):
	}
	return nil
}

// WheelCounter is the started device counting the wheels of the exercised device (a drive),
// nil when there is none.
func (x *Exercise) WheelCounter() WheelCounter {
	var out WheelCounter
	for _, o := range x.r.devices {
		if wc, ok := abilityOf[WheelCounter](o); ok && wc.CountedDrive() == x.d.name && o.sens != nil && !o.sens.left {
			out = wc
		}
	}
	return out
}

// exercise moves one actuator briefly and says what happened.
func (r *Robot) exercise(ctx context.Context, d *device, st SelfTestOptions) (status, msg string) {
	e, ok := abilityOf[Exerciser](d)
	if !ok {
		return TestSkipped, "no exercise for this kind"
	}
	return e.Exercise(&Exercise{ctx: ctx, r: r, d: d, opts: st})
}
