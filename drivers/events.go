package drivers

import "time"

// Event is something a device reports once, as it happens (an external pose refused), rather
// than a lasting Fault. cmd/botd publishes events on the robot's events topic.
type Event struct {
	Time   time.Time
	Device string
	// Kind names the event: "pose.rejected", "pose.reacquired".
	Kind    string
	Level   string // "info", "warning" or "error"
	Message string
}

// Subscriber is an MQTT connection a device reads its topic through (a pose over MQTT). cmd/botd makes
// one on telemetry/transport (Options.MQTT); drivers itself speaks no MQTT.
type Subscriber interface {
	// Subscribe registers h for topic now and again after every reconnect. h runs on the
	// client's goroutine and must not block.
	Subscribe(topic string, h func(payload []byte)) error
	// Close disconnects.
	Close() error
}
