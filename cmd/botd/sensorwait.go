package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The configured mission starts once every sensor of the robot has given its first reading:
// started before, its first Check of a key no sensor has read yet finds the key missing and
// the mission ends ERROR (a slow board, an emulated one, a sensor fed from outside the robot).
// The wait is bounded by failsafe.sensor_wait; when it ends first, failsafe.sensor_wait_action
// says what happens: refuse (the default: the mission is loaded but not started, as a
// preflight check refuses to arm, and an operator starts it once the sensors read) or start
// (it starts anyway, with a warning).

// Sensor wait actions (failsafe.sensor_wait_action).
const (
	sensorWaitRefuse = "refuse"
	sensorWaitStart  = "start"
)

// defaultSensorWait bounds the wait when failsafe.sensor_wait is not set: a sensor reads
// within its first period; the bound is for one that does not (unplugged, a tracker not
// publishing yet), and is the vehicles' bound too.
const defaultSensorWait = vehicleWait

// maxSensorWait is the longest failsafe.sensor_wait a config may set.
const maxSensorWait = 10 * time.Minute

var _ firstReadings = (*drivers.Robot)(nil)

// firstReadings is what the wait needs of the robot: a channel closed once every started
// sensor has given its first reading, and the devices still without one.
type firstReadings interface {
	FirstReadings() <-chan struct{}
	AwaitingFirstReading() []string
}

// awaitFirstReadings waits until r's sensors have all given their first reading (true), ctx
// ends or after has fired (false, with the sensors still awaited). waiting is called once,
// before it blocks, with the sensors awaited then; not at all when they have all read.
func awaitFirstReadings(ctx context.Context, r firstReadings, after <-chan time.Time, waiting func([]string)) (bool, []string) {
	first := r.FirstReadings()
	select {
	case <-first:
		return true, nil
	default:
	}
	waiting(r.AwaitingFirstReading())
	select {
	case <-first:
		return true, nil
	case <-ctx.Done():
	case <-after:
	}
	// They may have come together with the deadline.
	select {
	case <-first:
		return true, nil
	default:
		return false, r.AwaitingFirstReading()
	}
}

// waitSensors holds the configured mission back until the robot's sensors have read (see
// above) and says whether to start it: false when the wait ended without them and the action
// is refuse, or when ctx ended.
func (s *system) waitSensors(ctx context.Context) bool {
	fs := s.cfg.Failsafe
	wait := fs.sensorWait()
	t := s.clock.NewTimer(wait)
	defer t.Stop()
	ok, missing := awaitFirstReadings(ctx, s.robot, t.Chan(), func(sensors []string) {
		s.log.Info("the configured mission waits for the sensors' first readings", "sensors", sensors, "bound", wait)
		s.emit(protocolEvent("mission.waiting", "info", s.missionID,
			fmt.Sprintf("the configured mission (%s) waits up to %v for the first readings of %s", s.cfg.Mission, wait, strings.Join(sensors, ", ")),
			map[string]any{"sensors": sensors, "wait_ms": wait.Milliseconds(), "file": s.cfg.Mission}))
	})
	switch {
	case ok:
		return true
	case ctx.Err() != nil:
		return false
	}
	refuse := fs.sensorWaitAction() == sensorWaitRefuse
	data := map[string]any{"sensors": missing, "wait_ms": wait.Milliseconds(), "action": fs.sensorWaitAction(), "file": s.cfg.Mission}
	if !refuse {
		s.log.Warn("sensors without a first reading: starting the configured mission anyway", "sensors", missing, "waited", wait)
		s.emit(protocolEvent("sensors.not_ready", "warning", s.missionID,
			fmt.Sprintf("no first reading from %s after %v: the configured mission (%s) starts anyway (failsafe.sensor_wait_action: start)", strings.Join(missing, ", "), wait, s.cfg.Mission), data))
		return true
	}
	s.log.Error("sensors without a first reading: the configured mission is loaded, not started", "sensors", missing, "waited", wait)
	s.emit(protocolEvent("sensors.not_ready", "error", s.missionID,
		fmt.Sprintf("no first reading from %s after %v", strings.Join(missing, ", "), wait), data))
	s.emit(protocolEvent("mission.not_started", "error", s.missionID,
		fmt.Sprintf("the configured mission (%s) was loaded but not started: no first reading from %s after %v (failsafe.sensor_wait); check the sensors (state.errors, botd hwtest), then send mission.start with mission_id %s",
			s.cfg.Mission, strings.Join(missing, ", "), wait, s.missionID), data))
	return false
}

// sensorWait is failsafe.sensor_wait or its default.
func (f *FailsafeSection) sensorWait() time.Duration {
	if f.SensorWait > 0 {
		return f.SensorWait
	}
	return defaultSensorWait
}

// sensorWaitAction is failsafe.sensor_wait_action or its default.
func (f *FailsafeSection) sensorWaitAction() string {
	if f.SensorWaitAction != "" {
		return f.SensorWaitAction
	}
	return sensorWaitRefuse
}

// validateSensorWait checks the two fields.
func (f *FailsafeSection) validateSensorWait(bad func(field, format string, args ...any)) {
	if f.SensorWait < 0 || f.SensorWait > maxSensorWait {
		bad("failsafe.sensor_wait", "%v is outside [0, %v] (0: the default, %v)", f.SensorWait, maxSensorWait, defaultSensorWait)
	}
	switch f.SensorWaitAction {
	case "", sensorWaitRefuse, sensorWaitStart:
	default:
		bad("failsafe.sensor_wait_action", "%q: want %s or %s", f.SensorWaitAction, sensorWaitRefuse, sensorWaitStart)
	}
}

// protocolEvent is a daemon event.
func protocolEvent(kind, level, mission, msg string, data map[string]any) protocol.Event {
	return protocol.Event{Kind: kind, Level: level, Mission: mission, Message: msg, Data: data}
}
