package protocol

import (
	"path"
	"sort"
	"time"
)

// Deadbands say how much a number must change before the robot sends it
// again (telemetry by exception). Keys are glob patterns over blackboard
// keys ("pose.*"); the longest matching pattern wins; "*" is the default.
type Deadbands map[string]float64

// For returns the deadband of key.
func (d Deadbands) For(key string) float64 {
	best, bestLen := 0.0, -1
	for pat, v := range d {
		if ok, _ := path.Match(pat, key); ok && len(pat) > bestLen {
			best, bestLen = v, len(pat)
		}
	}
	return best
}

// DefaultDeadbands suit the sensors botd knows: centimetres and
// hundredths of a radian for poses and the IMU, 2 cm for ranges, a
// twentieth of a volt and half a percent for batteries.
func DefaultDeadbands() Deadbands {
	return Deadbands{"*": 0.001, "pose.*": 0.02, "imu.*": 0.02, "range.*": 0.02, "battery.voltage": 0.05, "battery.percent": 0.5}
}

// BlackboardTable rebuilds the full blackboard on the ground from the
// robot's messages: a Full message replaces it, a delta updates the keys it
// carries. Ages are kept against the ground's clock so that Values can
// bring them forward. Not safe for concurrent use.
type BlackboardTable struct {
	mission string
	full    bool // a full message was seen since the mission began
	entries map[string]bbEntry
}

type bbEntry struct {
	value any
	at    time.Time // when the sample was taken, on the ground's clock
}

// Apply takes one message received at now. A message of another mission
// starts the table afresh.
func (t *BlackboardTable) Apply(m BlackboardMsg, now time.Time) {
	if t.entries == nil || m.Full || m.Mission != t.mission {
		t.entries = map[string]bbEntry{}
		t.full = m.Full
	}
	t.mission = m.Mission
	for _, v := range m.Values {
		t.entries[v.Key] = bbEntry{value: v.Value, at: now.Add(-time.Duration(v.AgeMs * float64(time.Millisecond)))}
	}
}

// Complete reports whether the table holds a full picture (a Full message
// came since the mission began); until then it holds only the keys that
// changed.
func (t *BlackboardTable) Complete() bool { return t.full }

// Mission is the mission the values belong to.
func (t *BlackboardTable) Mission() string { return t.mission }

// Values returns every key with its age at now, sorted by key.
func (t *BlackboardTable) Values(now time.Time) []BlackboardValue {
	out := make([]BlackboardValue, 0, len(t.entries))
	for k, e := range t.entries {
		out = append(out, BlackboardValue{Key: k, Value: e.value, AgeMs: max(float64(now.Sub(e.at))/float64(time.Millisecond), 0)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
