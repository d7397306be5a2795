package multicopter

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
)

// DefaultListen is where the simulated vehicle listens: PX4 SITL's offboard port on loopback.
const DefaultListen = "127.0.0.1:14540"

// Config describes the simulated multicopter. Zero fields take the defaults of Defaults.
type Config struct {
	// Listen is the UDP address the vehicle listens on (default 127.0.0.1:14540; port 0 picks
	// a free port, see Addr). A ground station sends to it and is answered where it sent from.
	Listen string `yaml:"listen"`
	// SystemID is the vehicle's MAVLink system id (default 1, as PX4).
	SystemID int `yaml:"system_id"`
	// Home is where the vehicle stands when it starts: latitude and longitude (degrees) and
	// altitude above sea level (m). Default: PX4 SITL's home in Zurich.
	Home *Home `yaml:"home,omitempty"`
	// TimeScale runs the simulated clock this many times faster than real time when the
	// vehicle runs on its own clock (Run): 1 is real time (default), at most 20.
	TimeScale float64 `yaml:"time_scale"`
	// MaxSpeed is the horizontal speed limit, m/s (default 10; PX4 MPC_XY_VEL_MAX is 12).
	MaxSpeed float64 `yaml:"max_speed"`
	// MaxClimb and MaxDescent are the vertical speed limits, m/s (defaults 3 and 1.5).
	MaxClimb   float64 `yaml:"max_climb"`
	MaxDescent float64 `yaml:"max_descent"`
	// LandSpeed is the descent speed of a landing, m/s (default 0.7, PX4 MPC_LAND_SPEED).
	LandSpeed float64 `yaml:"land_speed"`
	// MaxAccel is the acceleration limit, m/s² (default 3).
	MaxAccel float64 `yaml:"max_accel"`
	// Wind is a constant wind, m/s towards north and east: it drifts the vehicle, and the
	// position controller fights it.
	Wind [2]float64 `yaml:"wind"`
	// TakeoffAlt is the altitude of a take-off that names none, m above home (default 2.5,
	// PX4 MIS_TAKEOFF_ALT).
	TakeoffAlt float64 `yaml:"takeoff_alt"`
	// RTLAlt is the altitude a return flies home at, m above home (default 30; PX4
	// RTL_RETURN_ALT): a vehicle higher than this returns at its altitude.
	RTLAlt float64 `yaml:"rtl_alt"`
	// Battery is the charge at start, % (default 100).
	Battery float64 `yaml:"battery"`
	// DrainGround and DrainAir are how fast the battery drains armed on the ground and in
	// flight, %/s (defaults 0.02 and 0.1: about 15 minutes of flight).
	DrainGround float64 `yaml:"drain_ground"`
	DrainAir    float64 `yaml:"drain_air"`
	// MinArmBattery: arming is refused below this charge, % (default 20).
	MinArmBattery float64 `yaml:"min_arm_battery"`
	// LowBattery warns (STATUSTEXT), CriticalBattery lands the vehicle, % (defaults 15 and 7,
	// PX4 BAT_LOW_THR and BAT_CRIT_THR).
	LowBattery      float64 `yaml:"low_battery"`
	CriticalBattery float64 `yaml:"critical_battery"`
	// GPSFix is the GPS fix type reported (GPS_FIX_TYPE; default 3, a 3-D fix; 1 is no fix).
	// Arming is refused below 3.
	GPSFix int `yaml:"gps_fix"`
	// DisarmPreflight disarms a vehicle armed on the ground that has not taken off after this
	// many seconds (default 10, PX4 COM_DISARM_PRFLT; -1: never).
	DisarmPreflight float64 `yaml:"disarm_preflight"`
}

// Home is the vehicle's starting place.
type Home struct {
	Lat float64 `yaml:"lat"`
	Lon float64 `yaml:"lon"`
	Alt float64 `yaml:"alt"`
}

// Defaults fills the zero fields of c with the defaults.
func (c Config) Defaults() Config {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.SystemID == 0 {
		c.SystemID = 1
	}
	if c.Home == nil {
		c.Home = &Home{Lat: 47.397742, Lon: 8.545594, Alt: 488}
	}
	def(&c.TimeScale, 1)
	def(&c.MaxSpeed, 10)
	def(&c.MaxClimb, 3)
	def(&c.MaxDescent, 1.5)
	def(&c.LandSpeed, 0.7)
	def(&c.MaxAccel, 3)
	def(&c.TakeoffAlt, 2.5)
	def(&c.RTLAlt, 30)
	def(&c.Battery, 100)
	def(&c.DrainGround, 0.02)
	def(&c.DrainAir, 0.1)
	def(&c.MinArmBattery, 20)
	def(&c.LowBattery, 15)
	def(&c.CriticalBattery, 7)
	def(&c.DisarmPreflight, 10)
	if c.GPSFix == 0 {
		c.GPSFix = 3
	}
	return c
}

// Validate checks a config (its defaults filled in); the error names every bad field.
func (c Config) Validate() error {
	c = c.Defaults()
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
	}
	if host, port, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "%q is not host:port (%v)", c.Listen, err)
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("listen", "port %q is not a number from 0 to 65535", port)
	} else if host != "" && net.ParseIP(host) == nil && host != "localhost" {
		bad("listen", "host %q is not an IP address", host)
	}
	if c.SystemID < 1 || c.SystemID > 255 {
		bad("system_id", "%d is not from 1 to 255", c.SystemID)
	}
	h := c.Home
	if !finite(h.Lat, h.Lon, h.Alt) || math.Abs(h.Lat) > 85 || math.Abs(h.Lon) > 180 || math.Abs(h.Alt) > 9000 {
		bad("home", "(%g, %g, %g m) is not a place on Earth (|lat| ≤ 85, |lon| ≤ 180, |alt| ≤ 9000)", h.Lat, h.Lon, h.Alt)
	}
	rng := func(field string, v, lo, hi float64) {
		if !finite(v) || v < lo || v > hi {
			bad(field, "%g is not from %g to %g", v, lo, hi)
		}
	}
	rng("time_scale", c.TimeScale, 0.1, 20)
	rng("max_speed", c.MaxSpeed, 0.5, 30)
	rng("max_climb", c.MaxClimb, 0.2, 10)
	rng("max_descent", c.MaxDescent, 0.2, 10)
	rng("land_speed", c.LandSpeed, 0.1, c.MaxDescent)
	rng("max_accel", c.MaxAccel, 0.5, 20)
	rng("wind[0]", c.Wind[0], -15, 15)
	rng("wind[1]", c.Wind[1], -15, 15)
	if math.Hypot(c.Wind[0], c.Wind[1]) >= c.MaxSpeed {
		bad("wind", "%.1f m/s is not below max_speed: the vehicle could not hold against it", math.Hypot(c.Wind[0], c.Wind[1]))
	}
	rng("takeoff_alt", c.TakeoffAlt, 0.5, 500)
	rng("rtl_alt", c.RTLAlt, 1, 500)
	rng("battery", c.Battery, 0, 100)
	rng("drain_ground", c.DrainGround, 0, 10)
	rng("drain_air", c.DrainAir, 0, 10)
	rng("min_arm_battery", c.MinArmBattery, 0, 100)
	rng("low_battery", c.LowBattery, 0, 100)
	rng("critical_battery", c.CriticalBattery, 0, c.LowBattery)
	if c.GPSFix < 0 || c.GPSFix > 6 {
		bad("gps_fix", "%d is not a GPS_FIX_TYPE from 0 to 6", c.GPSFix)
	}
	if c.DisarmPreflight != -1 {
		rng("disarm_preflight", c.DisarmPreflight, 1, 3600)
	}
	return errors.Join(errs...)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
