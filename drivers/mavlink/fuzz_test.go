package mavlink

import (
	"bytes"
	"io"
	"math"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/ardupilotmega"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"
	"github.com/botd-project/botd/drivers"
)

// FuzzVehicleFrames feeds whatever a link may carry through gomavlib's parser into the
// vehicle's frame handling: nothing panics, and the state stays within what the blackboard can
// hold.
func FuzzVehicleFrames(f *testing.F) {
	f.Add(encodeFrames(f, &mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_PX4, CustomMode: 4<<16 | 3<<24, MavlinkVersion: 3}))
	f.Add(encodeFrames(f,
		&mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_ARDUPILOTMEGA, CustomMode: 4, MavlinkVersion: 3},
		&mav.MessageCommandAck{Command: mav.MAV_CMD_COMPONENT_ARM_DISARM},
		&mav.MessageMissionRequestInt{Seq: 7},
		&mav.MessageMissionAck{Type: mav.MAV_MISSION_ERROR},
		&mav.MessageStatustext{Severity: mav.MAV_SEVERITY_EMERGENCY, Text: "x"},
		&mav.MessageSysStatus{BatteryRemaining: -1, VoltageBattery: math.MaxUint16},
		&mav.MessageGlobalPositionInt{Lat: math.MaxInt32, Lon: math.MinInt32, Alt: -1, RelativeAlt: math.MaxInt32},
		&mav.MessageExtendedSysState{LandedState: 200},
		&mav.MessageMissionItemReached{Seq: 65535}))
	f.Add([]byte{0xfd, 0xff, 0, 0, 0, 1, 1, 0, 0, 0})
	rw := &dialect.ReadWriter{Dialect: ardupilotmega.Dialect}
	if err := rw.Initialize(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		r := &frame.Reader{ByteReader: bytes.NewReader(data), DialectRW: rw}
		if err := r.Initialize(); err != nil {
			t.Fatal(err)
		}
		cfg := &Config{Connection: "udpin://:0"}
		cfg.Defaults("")
		v := &Vehicle{cfg: cfg, name: "uav", now: time.Now, log: quiet, estopped: func() bool { return false },
			ops: make(chan *vehicleOp, 1), missionCount: -1, missionReached: -1}
		w := &linkWorker{v: v} // nothing in flight: nothing is sent
		for range 256 {
			fr, err := r.Read()
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				continue // a damaged frame: the reader skips it
			}
			w.handle(&gomavlib.EventFrame{Frame: fr})
		}
		vals := make([]float64, vkCount)
		if err := v.read(time.Now(), vals); err != nil && err != drivers.ErrNoSample {
			t.Fatal(err)
		}
		for i, x := range vals {
			if math.IsInf(x, 0) {
				t.Fatalf("key %s is infinite", vehicleKeys[i].Name)
			}
		}
	})
}
