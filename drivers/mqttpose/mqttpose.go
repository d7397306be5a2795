// Package mqttpose is the MQTT pose family: a pose published on an MQTT topic by something
// outside the robot that sees it (a camera tracker, UWB anchors, motion capture, a ROS bridge),
// checked for age, frame and jumps. Add it to a drivers.Registry with Register.
package mqttpose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers"
)

// Kind is a pose arriving over MQTT.
const Kind = "mqtt_pose"

// Register adds the mqtt_pose kind to r.
func Register(r *drivers.Registry) {
	r.Add(drivers.KindInfo{Name: Kind, Doc: "a pose arriving over MQTT (motion capture, a localizer)", Boardless: true,
		New: func() drivers.Spec { return &Config{} }, Build: build})
}

// Config is a pose published on an MQTT topic by something outside the robot that
// sees it: a camera tracker, UWB anchors, motion capture, a ROS bridge. A message is a JSON
// object {"x": m, "y": m, "heading": rad, "ts": Unix seconds} with optionally "frame",
// "quality" (0..1) and "sigma" (m). A message that is too old, from the future, in another
// frame, or further from the last accepted pose than the rover can have gone is refused with a
// pose.rejected event; a pose that keeps jumping consistently for reacquire_ms is taken (the
// rover was carried, the tracker re-initialised) with a pose.reacquired event. It writes the
// same keys as odometry under its key (default "pose"), stamped with the message's ts. It is
// wired to no board.
type Config struct {
	Topic string `yaml:"topic"`
	// Broker is the broker's URL (default: the one botd is connected to).
	Broker string `yaml:"broker,omitempty"`
	// Frame is the frame the poses must be in (default "map"); RequireFrame refuses messages
	// that name none.
	Frame        string `yaml:"frame,omitempty"`
	RequireFrame bool   `yaml:"require_frame,omitempty"`
	// MaxAgeMs: a message whose ts is older than this on arrival is refused (default 500);
	// MaxFutureMs: one from further ahead of the robot's clock too (default 200).
	MaxAgeMs    float64 `yaml:"max_age_ms,omitempty"`
	MaxFutureMs float64 `yaml:"max_future_ms,omitempty"`
	// MaxSpeed (m/s, default 2), MaxTurnRate (rad/s, default 6) and MaxJump (m, default 0.2,
	// for the source's own noise) bound how far a pose may be from the last accepted one;
	// headings get 0.35 rad of noise.
	MaxSpeed    float64 `yaml:"max_speed,omitempty"`
	MaxTurnRate float64 `yaml:"max_turn_rate,omitempty"`
	MaxJump     float64 `yaml:"max_jump,omitempty"`
	// ReacquireMs: rejected poses that agree with each other for this long are taken
	// (default 2000).
	ReacquireMs float64 `yaml:"reacquire_ms,omitempty"`
	// Quality and Sigma are written when a message carries none (default 0.9 and 0.02 m).
	Quality              float64 `yaml:"quality,omitempty"`
	Sigma                float64 `yaml:"sigma,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*Config) Kind() string { return Kind }

// Defaults implements drivers.Spec.
func (c *Config) Defaults(string) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Frame == "" {
		c.Frame = "map"
	}
	def(&c.MaxAgeMs, 500)
	def(&c.MaxFutureMs, 200)
	def(&c.MaxSpeed, 2)
	def(&c.MaxTurnRate, 6)
	def(&c.MaxJump, 0.2)
	def(&c.ReacquireMs, 2000)
	def(&c.Quality, 0.9)
	def(&c.Sigma, 0.02)
	c.SampleConfig.SetDefaults("pose", 20)
}

// Validate implements drivers.Spec.
func (c *Config) Validate(v *drivers.Validator, path string) {
	switch {
	case c.Topic == "":
		v.Errorf(path+".topic", "missing topic")
	case strings.ContainsAny(c.Topic, "+#"):
		v.Errorf(path+".topic", "%q: one topic, no wildcards", c.Topic)
	}
	if c.Broker != "" && !strings.Contains(c.Broker, "://") {
		v.Errorf(path+".broker", "%q needs a scheme (tcp://, ssl://, ws://)", c.Broker)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"max_age_ms", c.MaxAgeMs}, {"max_future_ms", c.MaxFutureMs}, {"max_speed", c.MaxSpeed},
		{"max_turn_rate", c.MaxTurnRate}, {"max_jump", c.MaxJump}, {"reacquire_ms", c.ReacquireMs}, {"sigma", c.Sigma}} {
		v.Positive(path+"."+f.name, f.v)
	}
	v.Within(path+".quality", c.Quality, 0, 1)
	c.SampleConfig.Check(v, path)
}

// Pins implements drivers.Spec: it is wired to no board.
func (*Config) Pins() []drivers.Pin { return nil }

// Keys implements drivers.Spec: the pose keys under its key.
func (c *Config) Keys(string) []drivers.Key {
	out := make([]drivers.Key, len(drivers.PoseKeys))
	for i, k := range drivers.PoseKeys {
		out[i] = drivers.Key{Name: c.Key + "." + k}
	}
	return out
}

// extPose is one pose from outside, ts in Unix seconds.
type extPose struct {
	x, y, heading, ts float64
	quality, sigma    float64
	frame             string
}

// decodeExtPose reads a pose message: every field known, x, y, heading and ts present and
// finite, quality within 0..1, sigma not negative.
func decodeExtPose(data []byte, c *Config) (extPose, error) {
	var m struct {
		X, Y, Heading, TS *float64
		Frame             string
		Quality, Sigma    *float64
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return extPose{}, fmt.Errorf("not a pose message: %v", err)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"x", m.X}, {"y", m.Y}, {"heading", m.Heading}, {"ts", m.TS}} {
		if f.v == nil {
			return extPose{}, fmt.Errorf("no %s in the message", f.name)
		}
	}
	p := extPose{x: *m.X, y: *m.Y, heading: drivers.WrapAngle(*m.Heading), ts: *m.TS, frame: m.Frame, quality: c.Quality, sigma: c.Sigma}
	if m.Quality != nil {
		if !(*m.Quality >= 0 && *m.Quality <= 1) {
			return extPose{}, fmt.Errorf("quality %v is not within 0..1", *m.Quality)
		}
		p.quality = *m.Quality
	}
	if m.Sigma != nil {
		if !(*m.Sigma >= 0) {
			return extPose{}, fmt.Errorf("sigma %v is negative", *m.Sigma)
		}
		p.sigma = *m.Sigma
	}
	if math.Abs(p.x) > 1e6 || math.Abs(p.y) > 1e6 || p.ts <= 0 {
		return extPose{}, fmt.Errorf("x %v, y %v, ts %v: not a pose", p.x, p.y, p.ts)
	}
	return p, nil
}

// headingNoise is how far a heading may move beyond max_turn_rate between two poses.
const headingNoise = 0.35 // rad

// eventEvery: a device reports a run of refusals at most this often (with their count).
const eventEvery = 5 * time.Second

// mqttPose is an mqtt_pose device: messages arrive on the MQTT client's goroutine (handle),
// the sensor copies the latest accepted one (read).
type mqttPose struct {
	cfg    *Config
	name   string
	now    func() time.Time
	log    *slog.Logger
	events func(drivers.Event)
	at     time.Time // the stamp of the pose readPose read last

	mu        sync.Mutex
	last      extPose // the last accepted pose
	have      bool
	seq, read uint64  // accepted poses; the last one read
	jumping   bool    // a run of refused jumps is on
	runStart  float64 // ts of its first pose
	cand      extPose // its last pose
	accepted  uint64
	rejected  uint64
	unsaid    int       // refusals not reported yet
	lastEvent time.Time // of the last refusal reported
	lastWhy   string
}

func (m *mqttPose) ms(v float64) float64 { return v / 1000 }

// handle takes one message.
func (m *mqttPose) handle(payload []byte) {
	now := m.now()
	p, err := decodeExtPose(payload, m.cfg)
	if err != nil {
		m.refuse(now, err.Error())
		return
	}
	c := m.cfg
	age := now.Sub(time.Unix(0, int64(p.ts*1e9))).Seconds()
	switch {
	case c.RequireFrame && p.frame == "":
		m.refuse(now, fmt.Sprintf("the message names no frame (want %q)", c.Frame))
		return
	case p.frame != "" && p.frame != c.Frame:
		m.refuse(now, fmt.Sprintf("frame %q, not %q", p.frame, c.Frame))
		return
	case age > m.ms(c.MaxAgeMs):
		m.refuse(now, fmt.Sprintf("%.0f ms old on arrival (max_age_ms %v)", age*1000, c.MaxAgeMs))
		return
	case -age > m.ms(c.MaxFutureMs):
		m.refuse(now, fmt.Sprintf("stamped %.0f ms ahead of the robot's clock (max_future_ms %v): are the clocks synchronised?", -age*1000, c.MaxFutureMs))
		return
	}
	m.mu.Lock()
	why, reacquired := "", false
	switch {
	case m.have && p.ts <= m.last.ts:
		why = fmt.Sprintf("ts %.3f is not after the last pose's %.3f", p.ts, m.last.ts)
	case m.have:
		if jump := m.implausible(m.last, p); jump != "" {
			if m.jumping && m.implausible(m.cand, p) == "" {
				m.cand = p
				if p.ts-m.runStart >= m.ms(c.ReacquireMs) {
					reacquired, why = true, jump
				}
			} else {
				m.jumping, m.runStart, m.cand = true, p.ts, p
			}
			if !reacquired {
				why = jump
			}
		}
	}
	if why != "" && !reacquired {
		m.mu.Unlock()
		m.refuse(now, why)
		return
	}
	from, start := m.last, m.runStart
	m.last, m.have, m.jumping = p, true, false
	m.seq++
	m.accepted++
	m.mu.Unlock()
	if reacquired {
		m.emit(now, "pose.reacquired", "info", fmt.Sprintf("%s: pose taken again at (%.2f, %.2f) after %.1f s of consistent poses %.2f m from the last accepted one (%s)",
			m.name, p.x, p.y, p.ts-start, math.Hypot(p.x-from.x, p.y-from.y), why))
	}
}

// implausible says why b cannot follow a, or "".
func (m *mqttPose) implausible(a, b extPose) string {
	c := m.cfg
	dt := math.Max(b.ts-a.ts, 0)
	if d := math.Hypot(b.x-a.x, b.y-a.y); d > c.MaxJump+c.MaxSpeed*dt {
		return fmt.Sprintf("jumped %.2f m in %.3f s (max_speed %v m/s, max_jump %v m)", d, dt, c.MaxSpeed, c.MaxJump)
	}
	if dh := math.Abs(drivers.WrapAngle(b.heading - a.heading)); dh > headingNoise+c.MaxTurnRate*dt {
		return fmt.Sprintf("heading turned %.0f° in %.3f s (max_turn_rate %v rad/s)", dh*180/math.Pi, dt, c.MaxTurnRate)
	}
	return ""
}

// refuse counts a refused message and reports it: the first at once, then at most one report
// per eventEvery with the count.
func (m *mqttPose) refuse(now time.Time, why string) {
	m.mu.Lock()
	m.rejected++
	m.unsaid++
	m.lastWhy = why
	say := m.lastEvent.IsZero() || now.Sub(m.lastEvent) >= eventEvery
	n := m.unsaid
	if say {
		m.unsaid, m.lastEvent = 0, now
	}
	m.mu.Unlock()
	if !say {
		return
	}
	msg := fmt.Sprintf("%s: pose rejected: %s", m.name, why)
	if n > 1 {
		msg += fmt.Sprintf(" (%d rejected since the last report)", n)
	}
	m.emit(now, "pose.rejected", "warning", msg)
}

func (m *mqttPose) emit(now time.Time, kind, level, msg string) {
	if level == "info" {
		m.log.Info(msg, "device", m.name)
	} else {
		m.log.Warn(msg, "device", m.name)
	}
	if m.events != nil {
		m.events(drivers.Event{Time: now, Device: m.name, Kind: kind, Level: level, Message: msg})
	}
}

// readPose copies the latest accepted pose and returns its ts; drivers.ErrNoSample when none
// is new.
func (m *mqttPose) readPose(_ time.Time, vals []float64) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.have || m.seq == m.read {
		return time.Time{}, drivers.ErrNoSample
	}
	m.read = m.seq
	p := m.last
	vals[0], vals[1], vals[2], vals[3], vals[4] = p.x, p.y, p.heading, p.quality, p.sigma
	m.at = time.Unix(0, int64(p.ts*1e9))
	return m.at, nil
}

// counts are the messages accepted and refused so far, and the last refusal's reason.
func (m *mqttPose) counts() (accepted, rejected uint64, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.accepted, m.rejected, m.lastWhy
}

// mqttPoseDriver is the Gobot driver of an mqtt_pose device: it connects and subscribes when
// it starts and disconnects when it halts. It has no board.
type mqttPoseDriver struct {
	name     string
	m        *mqttPose
	dial     func(broker, clientID string) (drivers.Subscriber, error)
	clientID string

	mu   sync.Mutex
	conn drivers.Subscriber
}

var _ gobot.Driver = (*mqttPoseDriver)(nil)

func (d *mqttPoseDriver) Name() string                 { return d.name }
func (d *mqttPoseDriver) SetName(n string)             { d.name = n }
func (d *mqttPoseDriver) Connection() gobot.Connection { return nil }

func (d *mqttPoseDriver) Start() error {
	if d.dial == nil {
		return errors.New("no MQTT connection to subscribe with (this program gives the drivers none: Options.MQTT)")
	}
	conn, err := d.dial(d.m.cfg.Broker, d.clientID)
	if err != nil {
		return fmt.Errorf("connecting to the broker: %w", err)
	}
	if err := conn.Subscribe(d.m.cfg.Topic, d.m.handle); err != nil {
		_ = conn.Close()
		return fmt.Errorf("subscribing to %s: %w", d.m.cfg.Topic, err)
	}
	d.mu.Lock()
	d.conn = conn
	d.mu.Unlock()
	return nil
}

func (d *mqttPoseDriver) Halt() error {
	d.mu.Lock()
	conn := d.conn
	d.conn = nil
	d.mu.Unlock()
	if conn == nil {
		return nil
	}
	return conn.Close()
}

// build builds an mqtt_pose device.
func build(b *drivers.Builder) error {
	c := b.Spec().(*Config)
	o := b.Options()
	m := &mqttPose{cfg: c, name: b.Name(), now: b.Clock(), log: b.Logger(), events: o.Events}
	b.TimedSensor(c.SampleConfig, m.readPose)
	b.AddDriver(&mqttPoseDriver{name: b.Name(), m: m, dial: o.MQTT, clientID: b.RobotName() + "-" + b.Name()}, true)
	b.Detail(func() string {
		a, rj, why := m.counts()
		s := fmt.Sprintf("%d poses accepted, %d rejected", a, rj)
		if why != "" {
			s += " (last: " + why + ")"
		}
		return s
	})
	return nil
}

// PoseKey implements drivers.PoseSource.
func (c *Config) PoseKey() string { return c.Key }
