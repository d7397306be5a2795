package protocol

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/botd-project/botd/bt"
)

// Header is carried by every message a robot sends (PROTOCOL.md).
type Header struct {
	Robot string `json:"robot"`
	// Seq counts messages per topic, from 1 when the daemon starts; a gap
	// shows a lost message. 0 marks a message the broker sent on the
	// robot's behalf (the last will).
	Seq uint64 `json:"seq"`
	TS  string `json:"ts"` // RFC 3339, milliseconds, UTC
	// Boot counts the daemon's starts (its event outbox's opens): a
	// ground station tells a restart (a new boot) from a replay (the same
	// boot, an event seq it has seen). Event seq continues across boots.
	Boot uint64 `json:"boot,omitempty"`
}

const tsLayout = "2006-01-02T15:04:05.000Z"

// FormatTS formats t the way headers carry it.
func FormatTS(t time.Time) string { return t.UTC().Format(tsLayout) }

// ParseTS parses a header or command timestamp (any RFC 3339 precision).
func ParseTS(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// Time parses the header's timestamp.
func (h Header) Time() (time.Time, error) { return ParseTS(h.TS) }

// ConnectionMsg is the retained connection topic.
type ConnectionMsg struct {
	Header
	State string `json:"state"` // ONLINE, OFFLINE or CONNECTION_BROKEN
}

// FactsheetMsg describes the daemon (retained factsheet topic).
type FactsheetMsg struct {
	Header
	Version   string        `json:"version"`
	NodeTypes []bt.TypeInfo `json:"node_types"` // bt.Registry.Catalog()
	Devices   []Device      `json:"devices"`
	Limits    Limits        `json:"limits"`
	// Labels are the robot's configured labels (site, team, kind, ...),
	// used by fleet selectors and the dashboard's filters.
	Labels map[string]string `json:"labels,omitempty"`
	// Geofence is the robot's configured fence, when it has one.
	Geofence *Geofence `json:"geofence,omitempty"`
	// VehicleModes names the numbers a MAVLink vehicle of the robot
	// writes to <key>.mode, by number (UAV.md). Optional: a ground station
	// reads the names from here and falls back to DefaultVehicleModes.
	VehicleModes []string `json:"vehicle_modes,omitempty"`
	// Poses name the robot's position sources on its blackboard, so a
	// ground station's map reads them under whatever key the config gave
	// them, in their own frame. Optional: without it a ground station reads
	// the usual keys (pose, gps, position, a vehicle's <key>.in_air).
	Poses []PoseSource `json:"poses,omitempty"`
}

// PoseSource is one device that writes the robot's position.
type PoseSource struct {
	Device string `json:"device"`
	// Key is the prefix of the values it writes (KEY.x, ...).
	Key string `json:"key"`
	// Frame says how to read them: PoseLocal, PoseGeo or PoseVehicle.
	Frame string `json:"frame"`
}

// Frames of a PoseSource.
const (
	// PoseLocal: KEY.x east and KEY.y north, metres; KEY.heading
	// counter-clockwise from east, radians.
	PoseLocal = "local"
	// PoseGeo: KEY.lat and KEY.lon, degrees, and KEY.x east and KEY.y north
	// of the receiver's origin, metres (a satellite receiver).
	PoseGeo = "geo"
	// PoseVehicle: KEY.x north and KEY.y east of home, metres (NED), KEY.lat
	// and KEY.lon, degrees, KEY.yaw clockwise from north, radians (a MAVLink
	// vehicle).
	PoseVehicle = "vehicle"
)

// DefaultVehicleModes are the flight-mode names of the numbers in a
// vehicle's <key>.mode, for a factsheet without VehicleModes: the one
// copy the ground station keeps (the terminal view and the dashboard).
var DefaultVehicleModes = []string{"unknown", "manual", "stabilized", "altitude", "position", "hold",
	"mission", "return", "land", "takeoff", "guided", "acro", "other"}

// VehicleModeName is the name of mode number v in names (a factsheet's
// VehicleModes; DefaultVehicleModes when empty), "unknown" for a number
// it does not name.
func VehicleModeName(names []string, v float64) string {
	if len(names) == 0 {
		names = DefaultVehicleModes
	}
	if n := int(v); n >= 0 && n < len(names) && float64(n) == v {
		return names[n]
	}
	return "unknown"
}

// Geofence is a keep-in polygon with an optional altitude band. Frame
// "local" gives Points as x/y metres in the robot's world frame; frame
// "global" gives them as latitude/longitude degrees.
type Geofence struct {
	Frame  string       `json:"frame"`
	Points [][2]float64 `json:"points"`
	MinAlt *float64     `json:"min_alt,omitempty"`
	MaxAlt *float64     `json:"max_alt,omitempty"`
	// Margin (m) is how close to the edge a predicted breach trips.
	Margin float64 `json:"margin,omitempty"`
	// Action is what a breach runs: "hold", "return_home", "land" or "abort".
	Action string `json:"action,omitempty"`
}

// Device is one configured device in the factsheet.
type Device struct {
	Name   string         `json:"name"`
	Kind   string         `json:"kind"`
	Driver string         `json:"driver,omitempty"`
	Params map[string]any `json:"params,omitempty"`
}

// Limits are the daemon's limits as a ground station needs them. Zero
// telemetry fields are filled in by the Daemon from its config.
type Limits struct {
	TickHz          float64 `json:"tick_hz"`
	MaxTickHz       float64 `json:"max_tick_hz,omitempty"`
	TelemetryHz     float64 `json:"telemetry_hz"`
	KeyframeEveryMs int64   `json:"keyframe_every_ms"`
	MaxCommandBytes int     `json:"max_command_bytes"`
	MaxMissionBytes int     `json:"max_mission_bytes,omitempty"`
	MaxNodes        int     `json:"max_nodes,omitempty"`
	CommandRate     float64 `json:"command_rate"`
	CommandBurst    int     `json:"command_burst"`
	StaleAfterMs    int64   `json:"stale_after_ms"`
}

// StateMsg is the retained state topic.
type StateMsg struct {
	Header
	State
}

// TreeMsg is the retained tree topic; Nodes is empty without a mission.
// A tree whose JSON would exceed the robot's budget goes compressed:
// Encoding "gzip" and Data, the gzip of the JSON array of nodes (base64 in
// the payload), with Nodes left out; DecodeTree inflates it (bounded), so
// a ground station sees Nodes either way.
type TreeMsg struct {
	Header
	TreeInfo
	Encoding string `json:"encoding,omitempty"`
	Data     []byte `json:"data,omitempty"`
}

// TreeEncodingGzip marks a compressed tree (TreeMsg.Encoding).
const TreeEncodingGzip = "gzip"

// MaxTreeBytes bounds what a compressed tree may inflate to.
const MaxTreeBytes = 32 << 20

// CompressTree returns m with its nodes compressed when their JSON is
// larger than budget bytes (m unchanged otherwise).
func CompressTree(m TreeMsg, budget int) (TreeMsg, error) {
	raw, err := json.Marshal(m.Nodes)
	if err != nil || len(raw) <= budget {
		return m, err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return m, err
	}
	if err := zw.Close(); err != nil {
		return m, err
	}
	m.Encoding, m.Data, m.Nodes = TreeEncodingGzip, b.Bytes(), nil
	return m, nil
}

// StatusMsg is one message on the status topic: either Changes (a delta
// since the previous message) or Keyframe (one letter per node).
type StatusMsg struct {
	Header
	Mission string `json:"mission"`
	Tick    uint64 `json:"tick"`
	// TickTS is when the tick that produced these statuses ran.
	TickTS   string       `json:"tick_ts,omitempty"`
	Changes  []NodeStatus `json:"changes,omitempty"`
	Keyframe string       `json:"keyframe,omitempty"`
	// Reasons say why nodes failed (StatusUpdate.Reasons); a ground
	// station applies them after the status letters of the same message.
	Reasons []NodeReason `json:"reasons,omitempty"`
}

// IsKeyframe reports whether m is a full snapshot.
func (m StatusMsg) IsKeyframe() bool { return m.Keyframe != "" }

// NodeStatus is one change, [index, "R"] on the wire.
type NodeStatus struct {
	Node   int32
	Status byte // I, S, F, R or E
}

func ValidStatus(b byte) bool {
	switch b {
	case 'I', 'S', 'F', 'R', 'E':
		return true
	}
	return false
}

// MarshalJSON writes [index, "R"].
func (c NodeStatus) MarshalJSON() ([]byte, error) {
	if !ValidStatus(c.Status) {
		return nil, fmt.Errorf("node %d: bad status %q", c.Node, c.Status)
	}
	b := make([]byte, 0, 16)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(c.Node), 10)
	b = append(b, ',', '"', c.Status, '"', ']')
	return b, nil
}

// UnmarshalJSON reads [index, "R"] and nothing else.
func (c *NodeStatus) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("status change: %w", err)
	}
	if len(pair) != 2 {
		return fmt.Errorf("status change: want [index, status], got %d elements", len(pair))
	}
	var node int32
	if err := json.Unmarshal(pair[0], &node); err != nil {
		return fmt.Errorf("status change index: %w", err)
	}
	var s string
	if err := json.Unmarshal(pair[1], &s); err != nil {
		return fmt.Errorf("status change status: %w", err)
	}
	if len(s) != 1 || !ValidStatus(s[0]) {
		return fmt.Errorf("status change: bad status %q", s)
	}
	*c = NodeStatus{Node: node, Status: s[0]}
	return nil
}

// BlackboardMsg carries the active mission's global values.
//
// It carries values by exception: a Full message has every value (on
// request, after a reconnect, and every few seconds); the others only
// the values that changed beyond their deadband since they were last
// sent. BlackboardTable merges them back into the full picture.
type BlackboardMsg struct {
	Header
	Mission string            `json:"mission,omitempty"`
	Full    bool              `json:"full,omitempty"`
	Values  []BlackboardValue `json:"values"`
}

// EventMsg is one event. ID is unique per event and stays the same when
// the outbox resends it: subscribers dedupe on it (QoS 1 is at least
// once).
type EventMsg struct {
	Header
	ID string `json:"id"`
	Event
}

// MetricsMsg carries tick figures and telemetry's own health.
type MetricsMsg struct {
	Header
	Tick       TickSummary  `json:"tick"`
	Queues     QueueFigures `json:"queues"`
	Dropped    DropFigures  `json:"dropped"`
	Link       LinkState    `json:"link"`
	Reconnects uint64       `json:"reconnects"`
}

// QueueFigures are current queue depths.
type QueueFigures struct {
	Events      int   `json:"events"`       // waiting to be written to the outbox
	Outbox      int   `json:"outbox"`       // events kept until the broker acknowledges them
	OutboxBytes int64 `json:"outbox_bytes"` //
	Commands    int   `json:"commands"`     // received, not yet handled
}

// DropFigures count what was lost since the daemon started.
type DropFigures struct {
	Events   uint64 `json:"events"`   // the event queue was full
	Outbox   uint64 `json:"outbox"`   // evicted from the full outbox, oldest first
	Commands uint64 `json:"commands"` // the command queue was full (no reply sent)
	Publish  uint64 `json:"publish"`  // a publish failed (link down, timeout)
	// Retained counts the commands ignored because they arrived as
	// retained messages (left on the broker: never executed).
	Retained uint64 `json:"retained"`
}

// ReplyMsg answers one command.
type ReplyMsg struct {
	Header
	Reply
}

// PresenceMsg is a ground station's presence (retained).
type PresenceMsg struct {
	Online bool   `json:"online"`
	GCS    string `json:"gcs,omitempty"`
	TS     string `json:"ts,omitempty"`
}
