package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/drivers/sim/multicopter"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
	"github.com/botd-project/botd/telemetry/vda5050"
)

// Config is botd's configuration file (configs/botd.example.yaml documents
// every field).
type Config struct {
	Robot string `yaml:"robot"`
	// Labels sort the robot into its fleet (site, team, kind...): they go
	// out in the factsheet and fleet selectors match them.
	Labels    map[string]string `yaml:"labels"`
	Tick      TickConfig        `yaml:"tick"`
	Broker    BrokerConfig      `yaml:"broker"`
	Telemetry TelemetryConfig   `yaml:"telemetry"`
	Limits    LimitsConfig      `yaml:"limits"`
	StateDir  string            `yaml:"state_dir"`
	Hardware  yaml.Node         `yaml:"hardware"`
	World     string            `yaml:"world"`
	Mission   string            `yaml:"mission"`
	Plan      PlanConfig        `yaml:"plan"`
	Writable  []string          `yaml:"writable"`
	Failsafe  FailsafeSection   `yaml:"failsafe"`
	Security  SecurityConfig    `yaml:"security"`
	Metrics   MetricsConfig     `yaml:"metrics"`
	Memory    MemoryConfig      `yaml:"memory"`
	Groot2    Groot2Config      `yaml:"groot2"`
	Debug     DebugConfig       `yaml:"debug"`
	BTLog     BTLogConfig       `yaml:"btlog"`
	Log       LogConfig         `yaml:"log"`

	// Geofence is a keep-in fence the failsafe supervisor enforces.
	Geofence *drivers.GeofenceConfig `yaml:"geofence"`
	// Substitute holds substitution rules for a simulated robot (see
	// config_substitute.go).
	Substitute []string `yaml:"substitute"`
	// SimMulticopter starts a simulated PX4 multicopter in the daemon (see
	// simcopter.go); a mavlink_vehicle device flies it over UDP.
	SimMulticopter *multicopter.Config `yaml:"sim_multicopter"`
	// VDA5050 makes the robot speak VDA 5050 too (see vda5050.go).
	VDA5050 *vda5050.Config `yaml:"vda5050"`

	// dir resolves relative paths in the file (hardware, world, mission).
	dir fs.FS
	// source names the file for messages.
	source string
	// wrapConn wraps the robot's MQTT connections (botd fleet meters them).
	wrapConn func(net.Conn) (net.Conn, error)
	// stepWorld, when set, steps the simulated world until ctx is done in
	// place of a ticker of the robot's own (botd fleet steps every
	// robot's world from a few goroutines).
	stepWorld func(ctx context.Context, w *sim.World)
	// brokerSecret, set when botd runs the broker itself, is the per-boot
	// secret its own connections present: the embedded broker keeps the
	// robot's client ids for them (broker.Identity).
	brokerSecret string
}

// TickConfig is the tick rate and the range missions may ask for.
type TickConfig struct {
	Hz    float64 `yaml:"hz"`
	MinHz float64 `yaml:"min_hz"`
	MaxHz float64 `yaml:"max_hz"`
	// Spin wakes the tick loop this long before each deadline and waits
	// the rest actively: less jitter, more CPU.
	Spin time.Duration `yaml:"spin"`
	// DeadmanPeriods and DeadmanMin: the actuators go to their safe state
	// on their own when the tick has not renewed their commands for this
	// many periods of the current rate, never sooner than deadman_min
	// [4, 100ms].
	DeadmanPeriods float64       `yaml:"deadman_periods"`
	DeadmanMin     time.Duration `yaml:"deadman_min"`
}

// BrokerConfig says which broker to use; with no URL botd starts its own.
type BrokerConfig struct {
	URL string `yaml:"url"`
	// URLs are several brokers (the nodes of a cluster, bridged brokers):
	// each robot tries them in an order of its own, stable per robot id,
	// so a fleet spreads over them; after a loss it goes down its list
	// again. Instead of url.
	URLs []string `yaml:"urls"`
	// ReconnectMax bounds the wait between reconnect rounds while every
	// broker refuses [defaultReconnectMax]; paho's own is 10 minutes.
	ReconnectMax time.Duration `yaml:"reconnect_max"`
	// Kind names the broker product (brokerKinds) so that what it would
	// rewrite is refused at check-config: RabbitMQ turns a "." in a topic
	// level into a level separator, so a robot id or topic prefix with
	// one would not be the robot's topics any more. Empty: not said.
	Kind     string `yaml:"kind"`
	ClientID string `yaml:"client_id"`
	Username string `yaml:"username"`
	// EStopUsername is the user of the e-stop connection [username], with
	// the same password (deploy/mosquitto binds client ids to users).
	EStopUsername string         `yaml:"estop_username"`
	PasswordFile  string         `yaml:"password_file"`
	CAFile        string         `yaml:"ca_file"`
	CertFile      string         `yaml:"cert_file"`
	KeyFile       string         `yaml:"key_file"`
	TopicPrefix   string         `yaml:"topic_prefix"`
	Embedded      EmbeddedBroker `yaml:"embedded"`
}

// EmbeddedBroker configures the broker botd starts when no URL is given.
type EmbeddedBroker struct {
	Listen          string `yaml:"listen"`
	CredentialsFile string `yaml:"credentials_file"`
	// MaxPacketBytes refuses larger MQTT packets at their header [2 MiB].
	MaxPacketBytes int `yaml:"max_packet_bytes"`
	// MaxClients bounds the connections at once [1000].
	MaxClients int `yaml:"max_clients"`
	// MaxQueueBytes bounds what waits for one client, to be sent or to be
	// acknowledged; past it the client is disconnected [32 MiB].
	MaxQueueBytes int `yaml:"max_queue_bytes"`
	// MaxTotalQueueBytes bounds the same for all the clients together;
	// past it the client with most waiting is disconnected [64 MiB].
	MaxTotalQueueBytes int `yaml:"max_total_queue_bytes"`
}

// TelemetryConfig sets publishing rates and command intake limits.
type TelemetryConfig struct {
	StatusHz      float64       `yaml:"status_hz"`
	KeyframeEvery time.Duration `yaml:"keyframe_every"`
	MaxPayload    int           `yaml:"max_payload"`
	CommandRate   float64       `yaml:"command_rate"`
	CommandBurst  int           `yaml:"command_burst"`
	StaleAfter    time.Duration `yaml:"stale_after"`
	// ReplyCache is how many commands' replies are kept by sender and id,
	// so that a repeat gets its reply and does nothing twice [256].
	ReplyCache int `yaml:"reply_cache"`
	// Telemetry by exception (see telemetry.DaemonConfig).
	StatusMaxHz         float64            `yaml:"status_max_hz"`
	BlackboardHz        float64            `yaml:"blackboard_hz"`
	BlackboardFullEvery time.Duration      `yaml:"blackboard_full_every"`
	Deadbands           map[string]float64 `yaml:"deadbands"`
	MetricsEvery        time.Duration      `yaml:"metrics_every"`
}

// LimitsConfig bounds what missions may cost: each document and compiled
// tree, and the missions kept in the state directory. Zero fields take the
// defaults, which fit a Raspberry Pi.
type LimitsConfig struct {
	missions.Limits `yaml:",inline"`
	StoredMissions  int `yaml:"stored_missions"`
	StoredBytes     int `yaml:"stored_bytes"`
}

// PlanConfig holds the defaults of the QGroundControl plans (and Mission
// Planner waypoint files) the daemon takes, however they arrive (mission,
// -mission, mission.load, botd check -config): what a plan leaves out.
type PlanConfig struct {
	// Fly is who flies a plan without a "fly" member of its own: botd
	// (the default; one leaf per item) or autopilot (uploaded, flown in
	// the autopilot's mission mode). A plan's own "fly" wins.
	Fly string `yaml:"fly"`
}

// imports are the defaults of imported mission files (missions.Options,
// runner.Config).
func (c *Config) imports() missions.ImportDefaults {
	return missions.ImportDefaults{PlanFly: c.Plan.Fly}
}

// FailsafeSection is runner.FailsafeConfig plus the e-stop button.
type FailsafeSection struct {
	runner.FailsafeConfig `yaml:",inline"`
	// EStopButton is a digital input device (kind bump) that e-stops the
	// robot while pressed.
	EStopButton string `yaml:"estop_button"`
	// SensorWait bounds how long the configured mission waits at start
	// for every sensor's first reading [30s] (sensorwait.go).
	SensorWait time.Duration `yaml:"sensor_wait"`
	// SensorWaitAction is what happens when that wait ends first:
	// refuse (load the mission, do not start it) or start [refuse].
	SensorWaitAction string `yaml:"sensor_wait_action"`
}

// SecurityConfig holds command signing: with RequireSignedMissions every
// command that can move the robot or change its mission needs a signed
// envelope (PROTOCOL.md, "Signed commands").
type SecurityConfig struct {
	RequireSignedMissions bool     `yaml:"require_signed_missions"`
	PublicKeys            []string `yaml:"public_keys"` // "id:base64"
	// RevokedKeys are key ids or base64 public keys that sign nothing.
	RevokedKeys []string `yaml:"revoked_keys"`
	// MaxValidity refuses envelopes valid for longer [10m].
	MaxValidity time.Duration `yaml:"max_validity"`
	// ClockSkew is how far a ground station's clock may be off [30s].
	ClockSkew time.Duration `yaml:"clock_skew"`
}

// MetricsConfig enables the Prometheus endpoint.
type MetricsConfig struct {
	Listen string `yaml:"listen"` // e.g. 127.0.0.1:9100; empty: off
}

// LogConfig sets the log level and format.
type LogConfig struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // text or json
}

var robotIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

// loadConfig reads a config file; relative paths inside it are resolved
// from its directory.
func loadConfig(file string) (*Config, error) {
	c, err := readConfig(file)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// readConfig is loadConfig that also returns what it could decode of a
// config with problems (see decodeAndValidate), so that check-config can
// check what the config refers to as well, and report every problem at
// once.
func readConfig(file string) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return decodeAndValidate(data, os.DirFS(filepath.Dir(file)), file)
}

// parseConfig decodes, fills defaults and validates, reporting every
// problem with its field path. A hardware file is refused as such: it is
// what a config's hardware: names, not a config.
func parseConfig(data []byte, dir fs.FS, source string) (*Config, error) {
	c, err := decodeAndValidate(data, dir, source)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// decodeAndValidate is parseConfig that also returns what it could
// decode of a config with problems (nil when it is not a config at all).
func decodeAndValidate(data []byte, dir fs.FS, source string) (*Config, error) {
	if isHardwareFile(data) {
		return nil, hardwareFileError(source)
	}
	c := &Config{dir: dir, source: source}
	errs, ok := decodeConfig(data, c)
	if !ok {
		return nil, sourceErrors(source, errs)
	}
	c.setDefaults()
	if err := c.validate(); err != nil {
		errs = append(errs, unjoin(err)...)
	}
	return c, sourceErrors(source, errs)
}

// sourceErrors puts the file's name before each problem, one a line.
func sourceErrors(source string, errs []error) error {
	for i, e := range errs {
		errs[i] = fmt.Errorf("%s: %w", source, e)
	}
	return errors.Join(errs...)
}

// hardwareFileError refuses a hardware file given as a daemon config,
// naming the fix.
func hardwareFileError(source string) error {
	return fmt.Errorf("%s is a hardware file (adaptors and devices), not a daemon config: "+
		"name it in a daemon config with `hardware: %s` (configs/rover.yaml is one) and give botd that config", source, filepath.Base(source))
}

func (c *Config) setDefaults() {
	if c.Robot == "" {
		c.Robot = "rover-1"
	}
	if c.Tick.Hz == 0 {
		c.Tick.Hz = 20
	}
	if c.Tick.MinHz == 0 {
		c.Tick.MinHz = 1
	}
	if c.Tick.MaxHz == 0 {
		c.Tick.MaxHz = 500
	}
	if c.Broker.TopicPrefix == "" {
		c.Broker.TopicPrefix = "botd/v1"
	}
	if c.Broker.Embedded.Listen == "" {
		c.Broker.Embedded.Listen = "127.0.0.1:1883"
	}
	if c.Broker.ClientID == "" {
		c.Broker.ClientID = "botd-" + c.Robot
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
}

// validate reports every problem, each prefixed with its field path.
func (c *Config) validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if !robotIDPattern.MatchString(c.Robot) {
		bad("robot", "%q may hold only letters, digits and _ . : -", c.Robot)
	}
	if err := protocol.ValidLabels(c.Labels); err != nil {
		for _, e := range unjoin(err) {
			bad("labels", "%v", e)
		}
	}
	switch {
	case c.Tick.MinHz <= 0 || c.Tick.MaxHz < c.Tick.MinHz:
		bad("tick", "min_hz %v and max_hz %v do not make a range", c.Tick.MinHz, c.Tick.MaxHz)
	case c.Tick.Hz < c.Tick.MinHz || c.Tick.Hz > c.Tick.MaxHz:
		bad("tick.hz", "%v is outside [min_hz %v, max_hz %v]", c.Tick.Hz, c.Tick.MinHz, c.Tick.MaxHz)
	}
	c.validateBrokers(bad)
	if (c.Broker.CertFile == "") != (c.Broker.KeyFile == "") {
		bad("broker", "cert_file and key_file go together")
	}
	if c.Tick.Spin < 0 || c.Tick.Spin > 5*time.Millisecond {
		bad("tick.spin", "%v is outside [0, 5ms]", c.Tick.Spin)
	}
	if c.Tick.DeadmanPeriods < 0 || c.Tick.DeadmanPeriods > 0 && (c.Tick.DeadmanPeriods < 2 || c.Tick.DeadmanPeriods > 100) {
		bad("tick.deadman_periods", "%v is outside [2, 100] (periods of the tick rate)", c.Tick.DeadmanPeriods)
	}
	if c.Tick.DeadmanMin < 0 || c.Tick.DeadmanMin > 5*time.Second {
		bad("tick.deadman_min", "%v is outside [0, 5s]", c.Tick.DeadmanMin)
	}
	if c.Telemetry.StatusHz < 0 || c.Telemetry.StatusHz > 100 {
		bad("telemetry.status_hz", "%v is outside [0, 100]", c.Telemetry.StatusHz)
	}
	c.validateCounts(bad)
	if c.Telemetry.StatusMaxHz < 0 || c.Telemetry.StatusMaxHz > 1000 {
		bad("telemetry.status_max_hz", "%v is outside [0, 1000]", c.Telemetry.StatusMaxHz)
	}
	if c.Telemetry.BlackboardHz < 0 || c.Telemetry.BlackboardHz > 100 {
		bad("telemetry.blackboard_hz", "%v is outside [0, 100]", c.Telemetry.BlackboardHz)
	}
	for pat, v := range c.Telemetry.Deadbands {
		if _, err := path.Match(pat, ""); err != nil {
			bad("telemetry.deadbands."+pat, "not a key pattern: %v", err)
		}
		if v < 0 || math.IsNaN(v) {
			bad("telemetry.deadbands."+pat, "%v: a deadband is zero or more", v)
		}
	}
	c.Failsafe.validate(c.Mission != "", bad)
	c.Failsafe.validateSensorWait(bad)
	if c.Geofence != nil {
		if err := c.Geofence.Validate("geofence"); err != nil {
			errs = append(errs, err)
		}
	}
	if c.SimMulticopter != nil {
		if err := c.SimMulticopter.Validate(); err != nil {
			errs = append(errs, prefixErrors("sim_multicopter", err))
		}
	}
	if c.Security.RequireSignedMissions && len(c.Security.PublicKeys) == 0 {
		bad("security.public_keys", "require_signed_missions needs at least one key")
	}
	keyIDs := map[string]bool{}
	for i, k := range c.Security.PublicKeys {
		id, _, err := missions.ParsePublicKey(k)
		switch {
		case err != nil:
			bad(fmt.Sprintf("security.public_keys[%d]", i), "%v", err)
		case !auth.ValidKeyID(id):
			bad(fmt.Sprintf("security.public_keys[%d]", i), "key id %q: want 1 to %d letters, digits or _ . : -", id, auth.MaxKeyID)
		case keyIDs[id]:
			bad(fmt.Sprintf("security.public_keys[%d]", i), "key id %q is given twice", id)
		}
		keyIDs[id] = true
	}
	for i, k := range c.Security.RevokedKeys {
		if strings.TrimSpace(k) == "" {
			bad(fmt.Sprintf("security.revoked_keys[%d]", i), "empty: want a key id or a base64 public key")
		}
	}
	if c.Security.MaxValidity < 0 {
		bad("security.max_validity", "%s: want a positive duration", c.Security.MaxValidity)
	}
	if c.Security.ClockSkew < 0 {
		bad("security.clock_skew", "%s: want a positive duration", c.Security.ClockSkew)
	}
	for i, k := range c.Writable {
		if k == "" || strings.ContainsAny(k, " {}") {
			bad(fmt.Sprintf("writable[%d]", i), "%q is not a blackboard key", k)
		}
	}
	if levels := []string{"debug", "info", "warn", "error"}; !slices.Contains(levels, c.Log.Level) {
		bad("log.level", "%q is not debug, info, warn or error%s", c.Log.Level, didYouMeanWord(c.Log.Level, levels))
	}
	if flyers := []string{plan.FlyBotd, plan.FlyAutopilot}; c.Plan.Fly != "" && !slices.Contains(flyers, c.Plan.Fly) {
		bad("plan.fly", "%q is not botd or autopilot (who flies a plan that does not say)%s", c.Plan.Fly, didYouMeanWord(c.Plan.Fly, flyers))
	}
	if formats := []string{"text", "json"}; !slices.Contains(formats, c.Log.Format) {
		bad("log.format", "%q is not text or json%s", c.Log.Format, didYouMeanWord(c.Log.Format, formats))
	}
	if _, err := c.substitutions(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.validateVDA5050()...)
	if c.Hardware.Kind == 0 {
		bad("hardware", "missing: name a hardware file (e.g. sim.yaml) or give adaptors and devices inline")
	}
	return errors.Join(errs...)
}

// validateBrokers refuses a broker list botd would never connect with: a
// malformed URL, an unknown scheme, a list in one string, an empty list.
func (c *Config) validateBrokers(bad func(field, format string, args ...any)) {
	b := &c.Broker
	if b.URL != "" {
		if err := transport.CheckBroker(b.URL); err != nil {
			bad("broker.url", "%v", err)
		}
		if len(b.URLs) > 0 {
			bad("broker.urls", "give url or urls, not both")
		}
	}
	if b.URLs != nil && len(b.URLs) == 0 {
		bad("broker.urls", "empty: list one broker URL or more (or leave urls out for the embedded broker)")
	}
	seen := map[string]bool{}
	for i, u := range b.URLs {
		if err := transport.CheckBroker(u); err != nil {
			bad(fmt.Sprintf("broker.urls[%d]", i), "%v", err)
		} else if seen[u] {
			bad(fmt.Sprintf("broker.urls[%d]", i), "%q is listed twice", u)
		}
		seen[u] = true
	}
	if r := b.ReconnectMax; r != 0 && (r < time.Second || r > 5*time.Minute) {
		bad("broker.reconnect_max", "%v is outside [1s, 5m]", r)
	}
	c.validateBrokerKind(bad)
}

// brokerKinds are the broker products broker.kind may name, each with the
// characters it would rewrite in a topic level (none: it keeps topics as
// they are).
var brokerKinds = map[string]string{
	"mosquitto": "",
	"aedes":     "",
	"emqx":      "",
	"vernemq":   "",
	// RabbitMQ's MQTT plugin maps topics to AMQP routing keys, where "."
	// separates words: "botd/v1/rover.1/state" is delivered as
	// "botd/v1/rover/1/state" and a "+" no longer matches the id.
	"rabbitmq": ".",
}

// validateBrokerKind refuses, for the broker kind the config names, a
// robot id or topic prefix that broker would rewrite. Labels are not
// checked: they travel in the factsheet's payload, never in a topic.
func (c *Config) validateBrokerKind(bad func(field, format string, args ...any)) {
	kind := c.Broker.Kind
	if kind == "" {
		return
	}
	rewrites, ok := brokerKinds[kind]
	if !ok {
		kinds := slices.Sorted(maps.Keys(brokerKinds))
		bad("broker.kind", "%q is not %s%s", kind, strings.Join(kinds, ", "), didYouMeanWord(kind, kinds))
		return
	}
	if rewrites == "" {
		return
	}
	if strings.ContainsAny(c.Robot, rewrites) {
		bad("robot", "%q holds %q, which a %s broker rewrites in topics (broker.kind): the robot's topics would not be its own; use - or _", c.Robot, rewrites, kind)
	}
	if strings.ContainsAny(c.Broker.TopicPrefix, rewrites) {
		bad("broker.topic_prefix", "%q holds %q, which a %s broker rewrites in topics (broker.kind)", c.Broker.TopicPrefix, rewrites, kind)
	}
}

// defaultReconnectMax is broker.reconnect_max when the config gives none.
const defaultReconnectMax = 10 * time.Second

// brokers is the configured broker list, in the order this robot tries
// it (transport.Order); nil: the embedded broker.
func (c *Config) brokers() []string {
	list := c.Broker.URLs
	if c.Broker.URL != "" {
		list = []string{c.Broker.URL}
	}
	if len(list) == 0 {
		return nil
	}
	return transport.Order(list, c.Robot)
}

// setBrokerFlag takes a -broker flag: one URL or several, comma-separated,
// in place of the config's.
func (c *Config) setBrokerFlag(s string) error {
	list, err := transport.ParseBrokers(s)
	if err != nil {
		return fmt.Errorf("-broker: %w", err)
	}
	c.Broker.URL, c.Broker.URLs = "", list
	return nil
}

// validateCounts checks the rates, sizes and periods whose zero takes the
// default: a negative one has no meaning (the parts would quietly take
// the default), except where it is documented to turn a check off
// (telemetry.stale_after). Numbers that are not numbers (.nan, .inf) are
// refused everywhere.
func (c *Config) validateCounts(bad func(field, format string, args ...any)) {
	for _, f := range []struct {
		field string
		v     float64
	}{
		{"tick.hz", c.Tick.Hz}, {"tick.min_hz", c.Tick.MinHz}, {"tick.max_hz", c.Tick.MaxHz}, {"tick.deadman_periods", c.Tick.DeadmanPeriods},
		{"telemetry.status_hz", c.Telemetry.StatusHz}, {"telemetry.command_rate", c.Telemetry.CommandRate},
		{"telemetry.status_max_hz", c.Telemetry.StatusMaxHz}, {"telemetry.blackboard_hz", c.Telemetry.BlackboardHz},
		{"failsafe.battery_low", c.Failsafe.BatteryLow}, {"failsafe.battery_critical", c.Failsafe.BatteryCritical},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			bad(f.field, "%v is not a number", f.v)
		} else if f.v < 0 && f.field == "telemetry.command_rate" {
			bad(f.field, "%v: want a positive rate (0: the default)", f.v)
		}
	}
	for _, f := range []struct {
		field string
		v     int
	}{
		{"broker.embedded.max_packet_bytes", c.Broker.Embedded.MaxPacketBytes}, {"broker.embedded.max_clients", c.Broker.Embedded.MaxClients},
		{"broker.embedded.max_queue_bytes", c.Broker.Embedded.MaxQueueBytes},
		{"telemetry.max_payload", c.Telemetry.MaxPayload}, {"telemetry.command_burst", c.Telemetry.CommandBurst},
		{"telemetry.reply_cache", c.Telemetry.ReplyCache},
		{"limits.document_bytes", c.Limits.DocumentBytes}, {"limits.values", c.Limits.Values}, {"limits.alias_values", c.Limits.AliasValues},
		{"limits.depth", c.Limits.Depth}, {"limits.string_bytes", c.Limits.StringBytes}, {"limits.nodes", c.Limits.Nodes},
		{"limits.stored_missions", c.Limits.StoredMissions}, {"limits.stored_bytes", c.Limits.StoredBytes},
	} {
		if f.v < 0 {
			bad(f.field, "%d: want a positive number (0: the default)", f.v)
		}
	}
	for _, f := range []struct {
		field string
		v     time.Duration
	}{
		{"telemetry.keyframe_every", c.Telemetry.KeyframeEvery}, {"telemetry.blackboard_full_every", c.Telemetry.BlackboardFullEvery},
		{"telemetry.metrics_every", c.Telemetry.MetricsEvery},
	} {
		if f.v < 0 {
			bad(f.field, "%v: want a positive duration (0: the default)", f.v)
		}
	}
	if _, _, err := net.SplitHostPort(c.Broker.Embedded.Listen); err != nil {
		bad("broker.embedded.listen", "%q: want host:port (127.0.0.1:1883)", c.Broker.Embedded.Listen)
	}
	if l := c.Metrics.Listen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			bad("metrics.listen", "%q: want host:port (127.0.0.1:9100)", l)
		}
	}
	c.Groot2.validate(bad, c.Security.RequireSignedMissions)
	c.Memory.validate(bad)
	c.Debug.validate(bad)
	c.BTLog.validate(bad)
}

// readRelative reads a file named in the config, relative to it.
func (c *Config) readRelative(name string) ([]byte, error) {
	if filepath.IsAbs(name) {
		return os.ReadFile(name)
	}
	return fs.ReadFile(c.dir, path.Clean(filepath.ToSlash(name)))
}

// hardwareYAML returns the hardware section as a YAML document: the named
// file, or the inline mapping.
func (c *Config) hardwareYAML() ([]byte, string, error) {
	n := &c.Hardware
	if n.Kind == yaml.ScalarNode {
		data, err := c.readRelative(n.Value)
		return data, n.Value, err
	}
	data, err := yaml.Marshal(n)
	return data, "hardware", err
}

// deadbands are the configured ones over the defaults (nil: the defaults).
func deadbands(conf map[string]float64) protocol.Deadbands {
	d := protocol.DefaultDeadbands()
	for k, v := range conf {
		d[k] = v
	}
	return d
}

// unjoin splits an errors.Join into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
