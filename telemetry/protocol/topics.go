package protocol

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// DefaultPrefix is the root of every topic (PROTOCOL.md).
const DefaultPrefix = "botd/v1"

// Connection states (connection topic).
const (
	ConnOnline  = "ONLINE"
	ConnOffline = "OFFLINE"
	ConnBroken  = "CONNECTION_BROKEN"
)

// QoS per topic (PROTOCOL.md).
const (
	QoSRetained = 1 // connection, factsheet, state, tree, gcs presence
	QoSStream   = 0 // status, blackboard, metrics
	QoSReliable = 1 // events, cmd, estop, reply
)

// GCSSegment is the topic level under the prefix that holds ground
// station presence; it cannot be a robot id.
const GCSSegment = "gcs"

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

// ErrBadID is returned for a robot or ground station id that cannot be a
// topic level.
var ErrBadID = errors.New("protocol: bad id")

// ValidRobotID reports whether id can be a robot id: [A-Za-z0-9_.:-]+,
// and not "gcs" (that level holds ground station presence).
func ValidRobotID(id string) error {
	if err := ValidGCSID(id); err != nil {
		return err
	}
	if id == GCSSegment {
		return fmt.Errorf("%w %q: reserved for ground stations", ErrBadID, id)
	}
	return nil
}

// ValidGCSID reports whether id can be a ground station id.
func ValidGCSID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w %q: want [A-Za-z0-9_.:-]+", ErrBadID, id)
	}
	return nil
}

// ValidPrefix reports whether prefix can root the topic tree: one or more
// non-empty levels without wildcards.
func ValidPrefix(prefix string) error {
	if prefix == "" {
		return errors.New("protocol: empty topic prefix")
	}
	for _, level := range strings.Split(prefix, "/") {
		if level == "" || strings.ContainsAny(level, "+#\x00") {
			return fmt.Errorf("protocol: bad topic prefix %q", prefix)
		}
	}
	return nil
}

// Topics names one robot's topics: {prefix}/{robot}/{leaf}.
type Topics struct {
	prefix, robot string
}

// NewTopics validates prefix (empty means DefaultPrefix) and robot.
func NewTopics(prefix, robot string) (Topics, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := ValidPrefix(prefix); err != nil {
		return Topics{}, err
	}
	if err := ValidRobotID(robot); err != nil {
		return Topics{}, err
	}
	return Topics{prefix: prefix, robot: robot}, nil
}

// Leaf names of a robot's topics.
const (
	LeafConnection = "connection"
	LeafFactsheet  = "factsheet"
	LeafState      = "state"
	LeafTree       = "tree"
	LeafStatus     = "status"
	LeafBlackboard = "blackboard"
	LeafEvents     = "events"
	LeafMetrics    = "metrics"
	LeafCmd        = "cmd"
	LeafEStop      = "estop" // e-stops, obeyed whatever the payload
	LeafReply      = "reply"
	// LeafDiscard receives nothing anyone reads: it is where the client
	// turns messages it must not resend after a reconnect (see store.go).
	LeafDiscard = "_discard"
)

func (t Topics) leaf(l string) string { return t.prefix + "/" + t.robot + "/" + l }

// The robot's topics (PROTOCOL.md); Discard is where the client turns
// messages it must not resend.

func (t Topics) Prefix() string     { return t.prefix }
func (t Topics) Robot() string      { return t.robot }
func (t Topics) Root() string       { return t.prefix + "/" + t.robot }
func (t Topics) Connection() string { return t.leaf(LeafConnection) }
func (t Topics) Factsheet() string  { return t.leaf(LeafFactsheet) }
func (t Topics) State() string      { return t.leaf(LeafState) }
func (t Topics) Tree() string       { return t.leaf(LeafTree) }
func (t Topics) Status() string     { return t.leaf(LeafStatus) }
func (t Topics) Blackboard() string { return t.leaf(LeafBlackboard) }
func (t Topics) Events() string     { return t.leaf(LeafEvents) }
func (t Topics) Metrics() string    { return t.leaf(LeafMetrics) }
func (t Topics) Cmd() string        { return t.leaf(LeafCmd) }
func (t Topics) EStop() string      { return t.leaf(LeafEStop) }
func (t Topics) Reply() string      { return t.leaf(LeafReply) }
func (t Topics) Discard() string    { return t.leaf(LeafDiscard) }

// All is a filter for every topic of the robot.
func (t Topics) All() string { return t.Root() + "/#" }

// GCSStateTopic is a ground station's presence topic.
func GCSStateTopic(prefix, gcs string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return prefix + "/" + GCSSegment + "/" + gcs + "/state"
}

// GCSStateFilter matches every ground station's presence topic.
func GCSStateFilter(prefix string) string { return GCSStateTopic(prefix, "+") }

// RobotsFilter matches one leaf of every robot, e.g. RobotsFilter(p,
// LeafConnection) is {prefix}/+/connection.
func RobotsFilter(prefix, leaf string) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return prefix + "/+/" + leaf
}

// SplitTopic returns the robot id and leaf of a robot topic under
// prefix; ok is false for anything else (including presence topics).
func SplitTopic(prefix, topic string) (robot, leaf string, ok bool) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	rest, found := strings.CutPrefix(topic, prefix+"/")
	if !found {
		return "", "", false
	}
	robot, leaf, found = strings.Cut(rest, "/")
	if !found || ValidRobotID(robot) != nil || leaf == "" || strings.Contains(leaf, "/") {
		return "", "", false
	}
	return robot, leaf, true
}

// SplitGCSTopic returns the ground station id of a presence topic.
func SplitGCSTopic(prefix, topic string) (gcs string, ok bool) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	rest, found := strings.CutPrefix(topic, prefix+"/"+GCSSegment+"/")
	if !found {
		return "", false
	}
	gcs, found = strings.CutSuffix(rest, "/state")
	if !found || ValidGCSID(gcs) != nil {
		return "", false
	}
	return gcs, true
}
