package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"
)

const (
	// A substep moves a robot at most this far or turns it at most this much, so a robot cannot
	// tunnel through a thin box however large the Step.
	maxSubstepDist = 0.01 // m
	maxSubstepTurn = 0.05 // rad
	maxSubsteps    = 1 << 22
	// The bump switch closes when the body is this close to a wall or box.
	contactTolerance = 0.002 // m
)

// Robot is one simulated rover in a World: its true pose, wheel commands, battery, IMU registers
// and injected faults. All state lives under the world's mutex. The adaptor drives it through
// its pins; tests and the MoveTo leaf read the truth through its methods.
type Robot struct {
	w    *World
	name string
	cfg  RobotConfig

	// guarded by w.mu
	x, y, heading float64
	duty          [2]float64 // commanded wheel duty, -1..1, left and right
	pan           float64    // sonar pan servo offset, rad
	v, omega      float64    // actual speed (m/s) and turn rate (rad/s) over the last Step
	accelX        float64    // forward acceleration over the last Step, m/s²
	pitch, roll   float64
	charge        float64 // 0..1
	current       float64 // A drawn over the last Step
	odometer      float64 // m travelled
	faults        map[string]sensorFault
	imu           mpu6050
	enc           encoderState
	gps           gpsState
	rng           *rand.Rand // the noise, seeded by the config and the name
}

type sensorFault struct {
	err    error // non-nil: reads fail with it
	silent bool  // the sensor stops answering
}

func newRobot(w *World, name string, cfg RobotConfig) *Robot {
	r := &Robot{w: w, name: name, cfg: cfg, charge: cfg.Battery.InitialCharge, faults: map[string]sensorFault{}}
	r.current = cfg.Battery.IdleCurrent
	r.imu.reset()
	h := fnv.New64a()
	h.Write([]byte(name))
	r.rng = rand.New(rand.NewPCG(cfg.Noise.Seed, h.Sum64()))
	r.initEncoders()
	return r
}

// Name is the robot's name in its world.
func (r *Robot) Name() string { return r.name }

// Config is the robot's configuration with the defaults filled in.
func (r *Robot) Config() RobotConfig { return r.cfg }

// World is the world the robot lives in.
func (r *Robot) World() *World { return r.w }

// Pose is the true position (m) and heading (rad in (-pi, pi], counter-clockwise from +x).
func (r *Robot) Pose() (x, y, heading float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.x, r.y, r.heading
}

// Heading is the true heading, the value an ideal compass/IMU fusion would report.
func (r *Robot) Heading() float64 {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.heading
}

// SetPose teleports the robot (tests, mission setup) and zeroes its measured motion. A pose
// inside an obstacle is allowed; the robot can then only move out of it.
func (r *Robot) SetPose(x, y, heading float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.x, r.y, r.heading = x, y, normAngle(heading)
	r.v, r.omega, r.accelX = 0, 0, 0
}

// SetTilt puts the robot on a slope: pitch > 0 is nose up, roll > 0 is left side up (rad). It
// changes only what the accelerometer reads; the yard stays flat for driving.
func (r *Robot) SetTilt(pitch, roll float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.pitch, r.roll = pitch, roll
}

// Velocity is the actual forward speed (m/s) and turn rate (rad/s, counter-clockwise positive)
// over the last Step; a robot pushing against a wall has speed 0.
func (r *Robot) Velocity() (v, omega float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.v, r.omega
}

// Wheels are the commanded wheel duties in -1..1 (PWM/255 with the direction's sign).
func (r *Robot) Wheels() (left, right float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.duty[0], r.duty[1]
}

// Odometer is the total distance the robot has travelled, in metres.
func (r *Robot) Odometer() float64 {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.odometer
}

// Bumped reports whether the body touches a wall or box: the bump switch's true state.
func (r *Robot) Bumped() bool {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.bumpedLocked()
}

func (r *Robot) bumpedLocked() bool {
	return r.w.clearance(r.x, r.y, r.cfg.Radius) < contactTolerance
}

// SonarRange is the true distance the sonar sees now, from the rim of the body (clamped up to
// MinRange); ok is false when nothing is within MaxRange.
func (r *Robot) SonarRange() (dist float64, ok bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.sonarRangeLocked()
}

func (r *Robot) sonarRangeLocked() (float64, bool) {
	s := r.cfg.Sonar
	a := r.heading + s.MountAngle + r.pan
	ox, oy := r.x+r.cfg.Radius*math.Cos(a), r.y+r.cfg.Radius*math.Sin(a)
	d := math.Inf(1)
	for k := -2; k <= 2; k++ {
		d = math.Min(d, r.w.raycast(ox, oy, a+float64(k)*s.BeamWidth/4))
	}
	if d > s.MaxRange {
		return s.MaxRange, false
	}
	return math.Max(d, s.MinRange), true
}

// FailSensor makes every read of the named sensor (SensorSonar, SensorIMU, SensorBattery,
// SensorBump) fail with err (ErrSensorFault if err is nil) until RestoreSensor. It panics on an
// unknown name.
func (r *Robot) FailSensor(name string, err error) {
	if err == nil {
		err = ErrSensorFault
	}
	r.setFault(name, sensorFault{err: fmt.Errorf("sim: %s %s: %w", r.name, name, err)})
}

// SilenceSensor makes the named sensor stop answering, the way a loose wire does: the HC-SR04
// sends no echo (the driver times out after 160 ms), the MPU6050 does not ACK, the battery ADC
// reads 0 counts and the bump switch never closes. It panics on an unknown name.
func (r *Robot) SilenceSensor(name string) { r.setFault(name, sensorFault{silent: true}) }

// RestoreSensor undoes FailSensor and SilenceSensor.
func (r *Robot) RestoreSensor(name string) { r.setFault(name, sensorFault{}) }

func (r *Robot) setFault(name string, f sensorFault) {
	if !validSensor(name) {
		panic(fmt.Sprintf("sim: unknown sensor %q", name))
	}
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if f == (sensorFault{}) {
		delete(r.faults, name)
		return
	}
	r.faults[name] = f
}

func (r *Robot) setDuty(side int, d float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.duty[side] = d
}

func (r *Robot) setPan(rad float64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.pan = rad
}

// step advances the robot by sec seconds; the caller holds w.mu.
func (r *Robot) step(sec float64) {
	duty := r.duty
	if r.charge <= 0 {
		duty = [2]float64{} // flat battery: the motor driver browns out
	}
	vl, vr := duty[0]*r.cfg.MaxWheelSpeed, duty[1]*r.cfg.MaxWheelSpeed // the wheels' rims
	if r.cfg.hasEncoders() {
		t0, dt := r.w.elapsed-time.Duration(sec*float64(time.Second)), time.Duration(sec*float64(time.Second))
		for side, rim := range [2]float64{vl, vr} {
			turn := rim * sec
			if n := r.cfg.Noise.Encoder; n > 0 && turn != 0 {
				turn *= 1 + n*r.rng.NormFloat64()
			}
			r.turnEncoder(side, turn, t0, dt)
		}
	}
	// Slip: a share of each wheel's turn does not move the body.
	vl, vr = vl*(1-r.cfg.Noise.SlipLeft), vr*(1-r.cfg.Noise.SlipRight)
	v, omega := (vl+vr)/2, (vr-vl)/r.cfg.WheelBase
	travelled := 0.0
	if v != 0 || omega != 0 {
		n := math.Ceil(math.Max(math.Abs(v)*sec/maxSubstepDist, math.Abs(omega)*sec/maxSubstepTurn))
		n = math.Min(math.Max(n, 1), maxSubsteps)
		h := sec / n
		for range int(n) {
			travelled += r.substep(v, omega, h)
		}
	}
	prev := r.v
	r.v = math.Copysign(travelled/sec, v)
	r.omega = omega // rotation is never blocked: the body is round
	r.accelX = (r.v - prev) / sec
	r.odometer += travelled

	b := r.cfg.Battery
	r.current = b.IdleCurrent + (math.Abs(duty[0])+math.Abs(duty[1]))*b.MotorCurrent
	r.charge = math.Max(0, r.charge-r.current*sec/(b.CapacityAh*3600))
	r.stepGPS()
}

// substep moves along the arc for h seconds, stopping at first contact with a wall or box, and
// returns the distance actually moved.
func (r *Robot) substep(v, omega, h float64) float64 {
	th := r.heading
	nx, ny := r.x+v*h*math.Cos(th), r.y+v*h*math.Sin(th)
	if math.Abs(omega) > 1e-9 {
		th2 := th + omega*h
		nx = r.x + v/omega*(math.Sin(th2)-math.Sin(th))
		ny = r.y - v/omega*(math.Cos(th2)-math.Cos(th))
	}
	r.heading = normAngle(th + omega*h)
	rad := r.cfg.Radius
	c0 := r.w.clearance(r.x, r.y, rad)
	allowed := func(x, y float64) bool {
		c := r.w.clearance(x, y, rad)
		return c >= 0 || c >= c0 // moving out of an overlap is always allowed
	}
	f := 1.0
	if !allowed(nx, ny) {
		lo, hi := 0.0, 1.0 // lo is allowed, hi is not
		for range 40 {
			mid := (lo + hi) / 2
			if allowed(r.x+mid*(nx-r.x), r.y+mid*(ny-r.y)) {
				lo = mid
			} else {
				hi = mid
			}
		}
		f = lo
	}
	dx, dy := f*(nx-r.x), f*(ny-r.y)
	r.x, r.y = r.x+dx, r.y+dy
	return math.Hypot(dx, dy)
}
