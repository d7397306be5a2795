package mavlink

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/botd-project/botd/drivers"
)

// Kind is a PX4 or ArduPilot vehicle over MAVLink 2.
const Kind = "mavlink_vehicle"

// Config is a vehicle flown by a PX4 or ArduPilot autopilot over MAVLink 2: UDP,
// TCP or a serial port (a telemetry radio, a companion computer's UART). botd is the vehicle's
// ground station: it sends heartbeats, every command waits for its COMMAND_ACK (retried on
// timeout), and the vehicle's telemetry is written to the blackboard under key (default "uav").
// The vehicle's heartbeat is required: without one for heartbeat_timeout_ms the device reports
// a SENSOR_ERROR fault (list the device in failsafe.required_sensors to make that a failsafe).
// It is wired to no board: the MAVLink link is its own Gobot adaptor.
type Config struct {
	// Connection is where the autopilot is:
	//   udpin://0.0.0.0:14540        listen for the vehicle (PX4 SITL's offboard port, a
	//                                 companion's mavlink-router output)
	//   udpout://192.168.1.20:14550  send to the vehicle (it answers to our port)
	//   tcp://127.0.0.1:5760         connect (ArduPilot SITL's first serial port)
	//   serial:///dev/ttyUSB0:57600  a serial port and its baud rate (SiK radio 57600,
	//                                 a flight controller's TELEM2 to a companion 921600)
	Connection string `yaml:"connection"`
	// Autopilot is "auto" (from the vehicle's heartbeat, default), "px4" or "ardupilot":
	// the flight-mode numbers and command flavours differ.
	Autopilot string `yaml:"autopilot,omitempty"`
	// SystemID is the vehicle's MAVLink system id (default 0: the first autopilot heard).
	SystemID int `yaml:"system_id,omitempty"`
	// GCSSystemID is botd's own system id on the link (default 245; QGroundControl is 255).
	GCSSystemID int `yaml:"gcs_system_id,omitempty"`
	// HeartbeatHz is how often botd sends its heartbeat (default 1).
	HeartbeatHz float64 `yaml:"heartbeat_hz,omitempty"`
	// HeartbeatTimeoutMs: the vehicle is lost after this long without its heartbeat
	// (default 3000).
	HeartbeatTimeoutMs float64 `yaml:"heartbeat_timeout_ms,omitempty"`
	// AckTimeoutMs and Retries: a command unacknowledged after ack_timeout_ms is sent again
	// (with its confirmation field counted up), up to retries times (default 1000 ms, 3).
	AckTimeoutMs float64 `yaml:"ack_timeout_ms,omitempty"`
	Retries      int     `yaml:"retries,omitempty"`
	// SetpointHz is how often a position target is sent while GoTo flies (PX4's offboard mode
	// needs more than 2 Hz; default 10).
	SetpointHz float64 `yaml:"setpoint_hz,omitempty"`
	// EStop is what an e-stop does to a flying vehicle: "land" (default: land where it is) or
	// "motors_off" (disarm; only once landed unless estop_force is set: then the motors stop
	// in the air and the vehicle falls).
	EStop      string `yaml:"estop,omitempty"`
	EStopForce bool   `yaml:"estop_force,omitempty"`
	// MaxAltitude (m above home) bounds Takeoff and GoTo (default 120, the usual legal ceiling).
	MaxAltitude float64 `yaml:"max_altitude,omitempty"`
	// MaxSpeed (m/s) bounds GoTo's speed (default 15).
	MaxSpeed             float64 `yaml:"max_speed,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements Spec.
func (*Config) Kind() string { return Kind }

// E-stop behaviours.
const (
	EStopLand      = "land"
	EStopMotorsOff = "motors_off"
)

func (c *Config) Defaults(string) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Autopilot == "" {
		c.Autopilot = "auto"
	}
	if c.GCSSystemID == 0 {
		c.GCSSystemID = 245
	}
	if c.Retries == 0 {
		c.Retries = 3
	}
	if c.EStop == "" {
		c.EStop = EStopLand
	}
	def(&c.HeartbeatHz, 1)
	def(&c.HeartbeatTimeoutMs, 3000)
	def(&c.AckTimeoutMs, 1000)
	def(&c.SetpointHz, 10)
	def(&c.MaxAltitude, 120)
	def(&c.MaxSpeed, 15)
	if c.StaleAfterMs == 0 {
		c.StaleAfterMs = c.HeartbeatTimeoutMs
	}
	c.SampleConfig.SetDefaults("uav", 20)
}

func (c *Config) Validate(v *drivers.Validator, path string) {
	if _, err := parseMAVLinkConnection(c.Connection); err != nil {
		v.Errorf(path+".connection", "%v", err)
	}
	switch c.Autopilot {
	case "auto", "px4", "ardupilot":
	default:
		v.Errorf(path+".autopilot", "%q is not auto, px4 or ardupilot", c.Autopilot)
	}
	v.Within(path+".system_id", float64(c.SystemID), 0, 255)
	v.Within(path+".gcs_system_id", float64(c.GCSSystemID), 1, 255)
	if v.Positive(path+".heartbeat_hz", c.HeartbeatHz) && c.HeartbeatHz > 50 {
		v.Errorf(path+".heartbeat_hz", "must be at most 50 (got %v)", c.HeartbeatHz)
	}
	if v.Positive(path+".heartbeat_timeout_ms", c.HeartbeatTimeoutMs) && c.HeartbeatTimeoutMs < 1000/c.HeartbeatHz {
		v.Errorf(path+".heartbeat_timeout_ms", "%v ms is shorter than one heartbeat period", c.HeartbeatTimeoutMs)
	}
	v.Positive(path+".ack_timeout_ms", c.AckTimeoutMs)
	v.Within(path+".retries", float64(c.Retries), 0, 20)
	if v.Positive(path+".setpoint_hz", c.SetpointHz) && c.SetpointHz > 100 {
		v.Errorf(path+".setpoint_hz", "must be at most 100 (got %v)", c.SetpointHz)
	}
	switch c.EStop {
	case EStopLand, EStopMotorsOff:
	default:
		v.Errorf(path+".estop", "%q is not land or motors_off", c.EStop)
	}
	if c.EStopForce && c.EStop != EStopMotorsOff {
		v.Errorf(path+".estop_force", "only with estop: motors_off")
	}
	if v.Positive(path+".max_altitude", c.MaxAltitude) && c.MaxAltitude > 10000 {
		v.Errorf(path+".max_altitude", "must be at most 10000 m (got %v)", c.MaxAltitude)
	}
	v.Positive(path+".max_speed", c.MaxSpeed)
	c.SampleConfig.Check(v, path)
}

func (*Config) Pins() []drivers.Pin { return nil }

// vehicleKeys are what a vehicle writes under its key, in order (vk* index them).
var vehicleKeys = [...]drivers.Key{
	{Name: "armed", Bool: true}, {Name: "in_air", Bool: true}, {Name: "landed_state"},
	{Name: "mode"}, {Name: "x"}, {Name: "y"}, {Name: "z"}, {Name: "alt"}, {Name: "alt_amsl"},
	{Name: "lat"}, {Name: "lon"}, {Name: "vx"}, {Name: "vy"}, {Name: "vz"},
	{Name: "roll"}, {Name: "pitch"}, {Name: "yaw"}, {Name: "battery_percent"}, {Name: "battery_voltage"},
	{Name: "gps_fix"}, {Name: "satellites"}, {Name: "heartbeat_age"}, {Name: "mission_item"},
}

const (
	vkArmed = iota
	vkInAir
	vkLanded
	vkMode
	vkX
	vkY
	vkZ
	vkAlt
	vkAltAMSL
	vkLat
	vkLon
	vkVx
	vkVy
	vkVz
	vkRoll
	vkPitch
	vkYaw
	vkBattPct
	vkBattV
	vkGPSFix
	vkSats
	vkHBAge
	vkMissionItem
	vkCount
)

func (c *Config) Keys(string) []drivers.Key {
	out := make([]drivers.Key, len(vehicleKeys))
	for i, k := range vehicleKeys {
		out[i] = drivers.Key{Name: c.Key + "." + k.Name, Bool: k.Bool}
	}
	return out
}

// mavConn is a parsed connection string.
type mavConn struct {
	scheme string // udpin, udpout, tcp, serial
	addr   string // host:port, or the serial device
	baud   int
}

func parseMAVLinkConnection(s string) (mavConn, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if s == "" {
		return mavConn{}, fmt.Errorf("missing connection (e.g. udpin://0.0.0.0:14540, tcp://127.0.0.1:5760, serial:///dev/ttyUSB0:57600)")
	}
	if !ok {
		return mavConn{}, fmt.Errorf("%q needs a scheme: udpin://, udpout://, tcp:// or serial://", s)
	}
	c := mavConn{scheme: scheme, addr: rest}
	switch scheme {
	case "udpin", "udpout", "tcp":
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			return mavConn{}, fmt.Errorf("%q: want host:port: %v", s, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 || (p == 0 && scheme != "udpin") {
			return mavConn{}, fmt.Errorf("%q: bad port %q", s, port)
		}
		if host == "" && scheme != "udpin" {
			return mavConn{}, fmt.Errorf("%q: which host?", s)
		}
	case "serial":
		i := strings.LastIndexByte(rest, ':')
		if i <= 0 || !strings.HasPrefix(rest, "/") {
			return mavConn{}, fmt.Errorf("%q: want serial:///dev/ttyUSB0:57600 (the device, then its baud rate)", s)
		}
		baud, err := strconv.Atoi(rest[i+1:])
		if err != nil || baud < 1200 || baud > 4_000_000 {
			return mavConn{}, fmt.Errorf("%q: bad baud rate %q", s, rest[i+1:])
		}
		c.addr, c.baud = rest[:i], baud
	default:
		return mavConn{}, fmt.Errorf("%q: unknown scheme %q (want udpin, udpout, tcp or serial)", s, scheme)
	}
	return c, nil
}

// VehicleKey implements VehicleFrame.
func (c *Config) VehicleKey() string { return c.Key }

// ModeNames implements drivers.ModeNamer: the flight modes by the number <key>.mode holds.
func (*Config) ModeNames() []string { return slices.Clone(flightModeNames[:]) }
