package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Failsafe actions: what a failsafe does to a running mission. Any other
// action names a tree of the mission to run instead (return home, land).
const (
	ActionContinue = "continue"
	ActionHold     = "hold"
	ActionAbort    = "abort"
	// ActionLand and ActionReturnHome command the robot's vehicles (a
	// Hardware that is also a Vehicles): land where they are, fly home and
	// land. The mission is halted as for hold.
	ActionLand       = "land"
	ActionReturnHome = "return_home"
)

// Vehicles is a Hardware that flies. Failsafe starts a failsafe action
// (land, return_home, hold) on its vehicles without waiting for them (the
// tick goroutine calls it); handled is false when it has none.
type Vehicles interface {
	Failsafe(action string) (handled bool, err error)
}

// FailsafeConfig says when failsafes trip and what they do. Zero values
// take the defaults; a negative duration or threshold disables a check.
type FailsafeConfig struct {
	// LinkLossTimeout: the link is lost when the broker connection is
	// down, or (RequireGCS) no ground station is online, for this long.
	// The mission's on_link_loss decides the action (default hold).
	LinkLossTimeout time.Duration `yaml:"link_loss_timeout"`
	RequireGCS      bool          `yaml:"require_gcs"`
	// LinkLossAction is the action when the mission has no on_link_loss
	// (default hold; a UAV: return_home or land).
	LinkLossAction string `yaml:"link_loss_action"`
	// BatteryKey is the sensor key holding the battery percentage.
	BatteryKey string `yaml:"battery_key"`
	// BatteryLow raises a warning; BatteryCritical trips the failsafe
	// with BatteryAction (default hold).
	BatteryLow      float64 `yaml:"battery_low"`
	BatteryCritical float64 `yaml:"battery_critical"`
	BatteryAction   string  `yaml:"battery_action"`
	// BatteryLowAction, unless continue (the default: a warning only),
	// trips the failsafe at BatteryLow (a UAV: return_home); BatteryCritical
	// then takes over with BatteryAction (a UAV: land).
	BatteryLowAction string `yaml:"battery_low_action"`
	// RequiredSensors trip the failsafe (SensorAction, default hold)
	// when the hardware reports them stale or failing.
	RequiredSensors []string `yaml:"required_sensors"`
	SensorAction    string   `yaml:"sensor_action"`
	// MaxOverruns in a row trip the failsafe (OverrunAction, default hold).
	MaxOverruns   int    `yaml:"max_overruns"`
	OverrunAction string `yaml:"overrun_action"`
}

// The battery thresholds a zero BatteryLow and BatteryCritical take, in
// percent.
const (
	DefaultBatteryLow      = 25
	DefaultBatteryCritical = 10
)

func (c *FailsafeConfig) setDefaults() {
	if c.LinkLossTimeout == 0 {
		c.LinkLossTimeout = 10 * time.Second
	}
	if c.BatteryKey == "" {
		c.BatteryKey = "battery.percent"
	}
	if c.BatteryLow == 0 {
		c.BatteryLow = DefaultBatteryLow
	}
	if c.BatteryCritical == 0 {
		c.BatteryCritical = DefaultBatteryCritical
	}
	if c.MaxOverruns == 0 {
		c.MaxOverruns = 10
	}
	if c.BatteryLowAction == "" {
		c.BatteryLowAction = ActionContinue
	}
	for _, a := range []*string{&c.BatteryAction, &c.SensorAction, &c.OverrunAction, &c.LinkLossAction} {
		if *a == "" {
			*a = ActionHold
		}
	}
}

// Validate checks the actions.
func (c *FailsafeConfig) Validate() error {
	for name, a := range map[string]string{"battery_action": c.BatteryAction, "sensor_action": c.SensorAction, "overrun_action": c.OverrunAction,
		"link_loss_action": c.LinkLossAction, "battery_low_action": c.BatteryLowAction} {
		if a != "" && strings.ContainsAny(a, " \t") {
			return fmt.Errorf("failsafe.%s: %q is not continue, hold, abort, land, return_home or a tree name", name, a)
		}
	}
	return nil
}

// failsafe is the supervisor's verdict.
type failsafe struct {
	active         bool
	reason, action string
	linkDownSince  time.Time
	lowWarned      bool
	// fenceTripped: the geofence trips now (its breach was reported);
	// fenceActPending: its vehicle action has not run yet.
	fenceTripped, fenceActPending bool
	// announced: failsafe.entered went out for this trip (the mode
	// machine entered FAILSAFE); its failsafe.cleared goes out once. A
	// trip while no mission runs (paused, idle) enters no mode and is
	// seen in the state only, so its clearing is no event either.
	announced bool
}

// supervise runs once per tick, before the mission: link loss, battery,
// stale required sensors, tick overruns. E-stop is handled by the mode
// machine and wins over all of these.
func (r *Runner) supervise(now time.Time) {
	cfg := &r.cfg.Failsafe
	errs := r.errBuf[:0]
	reason, action := "", ""
	trip := func(why, act string) {
		if reason == "" {
			reason, action = why, act
		}
	}

	r.mu.Lock()
	link := r.link
	for _, e := range r.external {
		errs = append(errs, e)
	}
	r.mu.Unlock()
	if e, ok := r.superviseFence(now, trip); ok {
		errs = append(errs, e)
	}
	up := link.Broker && (!cfg.RequireGCS || link.GCSOnline)
	switch {
	case up:
		r.fs.linkDownSince = time.Time{}
	case r.fs.linkDownSince.IsZero():
		r.fs.linkDownSince = now
		// A silent broker was last heard from before it was noticed
		// gone: the timeout runs from that last contact.
		if !link.Broker && !link.DownSince.IsZero() && link.DownSince.Before(now) {
			r.fs.linkDownSince = link.DownSince
		}
	}
	if !up && cfg.LinkLossTimeout > 0 && now.Sub(r.fs.linkDownSince) >= cfg.LinkLossTimeout {
		act := cfg.LinkLossAction
		if r.run != nil && r.run.s.m.Doc.OnLinkLoss != "" {
			act = r.run.s.m.Doc.OnLinkLoss
		}
		trip("link_lost", act)
		errs = append(errs, protocol.StateError{Code: "LINK_LOST", Level: "ERROR", Message: fmt.Sprintf("no link to the ground for %v", now.Sub(r.fs.linkDownSince).Round(time.Second))})
	}

	var battery protocol.BatteryState
	haveBattery := false
	if hw := r.cfg.Hardware; hw != nil {
		if pct, _, ok := hw.Reading(cfg.BatteryKey); ok {
			battery, haveBattery = protocol.BatteryState{Percent: pct}, true
			if v, _, ok := hw.Reading("battery.voltage"); ok {
				battery.Voltage = v
			}
			switch {
			case cfg.BatteryCritical > 0 && pct <= cfg.BatteryCritical:
				trip("battery_critical", cfg.BatteryAction)
				errs = append(errs, protocol.StateError{Code: "BATTERY_CRITICAL", Level: "ERROR", Ref: cfg.BatteryKey, Message: fmt.Sprintf("battery at %.0f%%", pct)})
			case cfg.BatteryLow > 0 && pct <= cfg.BatteryLow:
				errs = append(errs, protocol.StateError{Code: "BATTERY_LOW", Level: "WARNING", Ref: cfg.BatteryKey, Message: fmt.Sprintf("battery at %.0f%%", pct)})
				if cfg.BatteryLowAction != ActionContinue {
					trip("battery_low", cfg.BatteryLowAction)
					errs[len(errs)-1].Level = "ERROR"
				}
				if !r.fs.lowWarned {
					r.fs.lowWarned = true
					r.emit(protocol.Event{Kind: "battery.low", Level: "warning", Message: fmt.Sprintf("battery low: %.0f%%", pct)})
				}
			default:
				r.fs.lowWarned = false
			}
		}
		for _, f := range hw.Faults() {
			errs = append(errs, protocol.StateError{Code: f.Code, Level: "WARNING", Ref: f.Key, Message: f.Message})
			for _, req := range cfg.RequiredSensors {
				if req == f.Key || req == f.Device {
					trip("sensor_stale", cfg.SensorAction)
					errs[len(errs)-1].Level = "ERROR"
				}
			}
			r.reportFault(f)
		}
	}
	if run := r.run; run != nil && !isActive(run.status) {
		if e, ok := endError(run); ok {
			errs = append(errs, e)
		}
	}
	if n := r.stats.overrunsInARow(); cfg.MaxOverruns > 0 && n >= cfg.MaxOverruns {
		trip("tick_overruns", cfg.OverrunAction)
		errs = append(errs, protocol.StateError{Code: "TICK_OVERRUNS", Level: "ERROR", Message: fmt.Sprintf("%d tick deadlines missed in a row", n)})
	}

	reason, action, errs = r.returnLatch(reason, action, errs)
	was := r.fs
	r.fs.active, r.fs.reason, r.fs.action = reason != "", reason, action
	if was.active && !r.fs.active {
		if was.announced {
			r.emit(protocol.Event{Kind: "failsafe.cleared", Level: "info", Message: fmt.Sprintf("failsafe %s cleared", was.reason)})
		}
		r.fs.announced = false
	} else if r.fs.active && was.active && was.reason != reason && was.announced {
		r.emit(protocol.Event{Kind: "failsafe.changed", Level: "warning", Message: fmt.Sprintf("failsafe now %s (%s)", reason, action)})
		// An escalation on a vehicle (battery low: return home, then
		// critical: land) is carried out at once.
		if action != was.action && isVehicleAction(action) && r.currentMode() == protocol.ModeFailsafe {
			r.vehicleAction(action)
		}
	}
	if was.active != r.fs.active || was.reason != r.fs.reason {
		r.signal()
	}
	// r.state.Errors has its own array (errs reuses errBuf's), and only
	// this goroutine writes it: read without the lock.
	errsChanged := !sameErrors(r.state.Errors, errs)
	r.errBuf = errs
	r.mu.Lock()
	r.state.Errors = append(r.state.Errors[:0], errs...)
	r.state.Battery = nil
	if haveBattery {
		r.batteryBuf = battery
		r.state.Battery = &r.batteryBuf
	}
	r.mu.Unlock()
	if errsChanged {
		// A new problem (or one gone) is news for the state topic now,
		// not at the next change of anything else.
		r.signal()
	}
}

// sameErrors reports whether two lists of state errors name the same
// problems. Messages are left out: some carry a figure that moves every
// tick (a battery percentage, a reading's age), which is no reason to
// publish the state each tick; they go out with the next state.
func sameErrors(a, b []protocol.StateError) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Code != y.Code || x.Level != y.Level || x.Ref != y.Ref || !x.Time.Equal(y.Time) ||
			(x.Node == nil) != (y.Node == nil) || (x.Node != nil && *x.Node != *y.Node) {
			return false
		}
	}
	return true
}

// reportFault emits an event the first time a fault appears.
func (r *Runner) reportFault(f Fault) {
	k := f.Code + "\x00" + f.Device + "\x00" + f.Key
	if r.lastFlt[k] {
		return
	}
	r.lastFlt[k] = true
	r.emit(protocol.Event{Kind: "device.fault", Level: "warning", Message: fmt.Sprintf("%s %s: %s", f.Device, f.Key, f.Message),
		Data: map[string]any{"code": f.Code, "device": f.Device, "key": f.Key}})
}

// startFailsafeTree compiles a tree of the running mission and runs it in
// place of the mission (its own agent, the same sensors).
func (r *Runner) startFailsafeTree(run *activeRun, name string) {
	d := run.s.m.Doc
	spec := d.Spec(r.loadOptions())
	spec.Main = name
	t, err := r.cfg.Registry.Compile(spec)
	if err != nil {
		r.emit(protocol.Event{Kind: "failsafe.error", Level: "error", Mission: d.ID, Message: fmt.Sprintf("failsafe tree %q does not compile: %v; holding", name, err)})
		return
	}
	now := r.cfg.Clock.Now()
	a := bt.NewAgent(t, 1, now.UnixNano())
	a.Sink = agentSink{r}
	a.ExprLimits = r.exprLimits(r.hz)
	if hw := r.cfg.Hardware; hw != nil {
		a.Env = hw.Env()
		run.fsBinding = hw.Bind(t)
	}
	run.fsAgent, run.fsTree = a, name
}

func (r *Runner) tickFailsafeTree(run *activeRun, now time.Time) {
	a := run.fsAgent
	if a == nil {
		return
	}
	if run.fsBinding != nil {
		run.fsBinding.Snapshot(&a.BB)
	}
	if st := a.Tick(now.UnixNano()); st != bt.Running {
		r.emit(protocol.Event{Kind: "failsafe.tree", Level: "info", Mission: run.s.m.Doc.ID,
			Message: fmt.Sprintf("failsafe tree %q ended: %s; holding", run.fsTree, st)})
		run.fsAgent = nil
		r.safe()
	}
}

func isVehicleAction(a string) bool { return a == ActionLand || a == ActionReturnHome }

// vehicleAction starts a vehicle failsafe action; without a vehicle the
// robot holds, and says so.
func (r *Runner) vehicleAction(action string) {
	if action == ActionReturnHome && r.startReturn(r.fs.reason) {
		return // botd's own (returnhome.go)
	}
	r.stopReturn() // a landing wins over botd's own return
	v, ok := r.cfg.Hardware.(Vehicles)
	handled := false
	var err error
	if ok {
		handled, err = v.Failsafe(action)
	}
	switch {
	case !handled:
		r.emit(protocol.Event{Kind: "failsafe.error", Level: "error", Message: fmt.Sprintf("failsafe action %s: the robot has no vehicle; holding", action)})
	case err != nil:
		r.emit(protocol.Event{Kind: "failsafe.error", Level: "error", Message: fmt.Sprintf("failsafe action %s: %v", action, err)})
	}
}
