//go:build linux

package mqttpose

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/transport"
)

// quiet drops the robot's logs.
var quiet = slog.New(slog.DiscardHandler)

// transportSub is what cmd/botd gives mqtt_pose devices: a telemetry/transport connection.
type transportSub struct{ transport.Conn }

func (s transportSub) Subscribe(topic string, h func([]byte)) error {
	return s.Conn.Subscribe(topic, 0, func(_ string, p []byte) { h(p) })
}

// TestMQTTPoseOverTheBroker runs an mqtt_pose device against the embedded broker: poses
// published by a tracker reach the blackboard keys stamped with their ts; a jump is refused
// with an event and leaves the pose where it was.
func TestMQTTPoseOverTheBroker(t *testing.T) {
	drivertest.SkipOffLinux(t)
	b := mqtttest.StartBroker(t, "")
	url := b.URL()
	cfg := drivertest.Parse(t, kinds(), `
adaptors: {board: {kind: sim}}
devices:
  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
     wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
  - {name: tracker, kind: mqtt_pose, topic: lab/rover-1/pose, frame: lab}
`)
	events := make(chan drivers.Event, 16)
	dials := make(chan string, 1)
	r, err := drivers.Build(cfg, drivers.Options{World: sim.DefaultWorld(), Name: "rover-1", Logger: quiet,
		Events: func(e drivers.Event) {
			select {
			case events <- e:
			default:
			}
		},
		MQTT: func(broker, id string) (drivers.Subscriber, error) {
			dials <- broker + " " + id
			o := mqtttest.Options(url)
			o.ClientID = id
			c, err := transport.Dial(o)
			if err != nil {
				return nil, err
			}
			return transportSub{c}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := <-dials; d != " rover-1-tracker" {
		t.Errorf("dialled %q, want the daemon's broker and client id rover-1-tracker", d)
	}
	pub := mqtttest.NewPublisher(t, url)
	send := func(x float64, ts time.Time) {
		msg := fmt.Sprintf(`{"x": %v, "y": 0.5, "heading": 0.1, "ts": %.6f, "frame": "lab"}`, x, float64(ts.UnixNano())/1e9)
		if err := pub.Publish("lab/rover-1/pose", 0, false, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	// QoS 0 and a subscription that may not be in place yet: send until one arrives.
	var ts time.Time
	mqtttest.Eventually(t, "a pose on the blackboard", func() bool {
		ts = time.Now()
		send(1.25, ts)
		v, _, ok := r.Reading("pose.x")
		return ok && v == 1.25
	})
	_, at, _ := r.Reading("pose.x")
	// ts travels as seconds with six decimals, rounded to the nearest
	// microsecond: the stamp may be up to half a microsecond after it.
	if d := at.Sub(ts); d > time.Microsecond || d < -time.Second {
		t.Errorf("the pose is stamped %v, %v from the last message sent", at, d)
	}
	send(9, time.Now())
	select {
	case e := <-events:
		if e.Kind != "pose.rejected" || e.Device != "tracker" || !strings.Contains(e.Message, "jumped") {
			t.Errorf("event %+v", e)
		}
		t.Logf("%s %s: %s", e.Level, e.Kind, e.Message)
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("no event for a jump")
	}
	if v, _, _ := r.Reading("pose.x"); v != 1.25 {
		t.Errorf("pose.x %v after a refused jump", v)
	}
	if err := r.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
