package mavlink

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/ardupilotmega"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/frame"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
	"github.com/bluenviron/gomavlib/v3/pkg/streamwriter"
	"github.com/botd-project/botd/drivers"
)

// encodeFrames encodes messages as MAVLink 2 frames from system 1.
func encodeFrames(t testing.TB, msgs ...message.Message) []byte {
	t.Helper()
	rw := &dialect.ReadWriter{Dialect: ardupilotmega.Dialect}
	if err := rw.Initialize(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	fw := &frame.Writer{ByteWriter: &buf, DialectRW: rw}
	if err := fw.Initialize(); err != nil {
		t.Fatal(err)
	}
	sw := &streamwriter.Writer{FrameWriter: fw, Version: streamwriter.V2, SystemID: 1, ComponentID: 1}
	if err := sw.Initialize(); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := sw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// A link that carries damaged frames among good ones: the damaged ones are counted and
// dropped, the good ones still arrive, and no damaged value reaches the state.
func TestVehicleMalformedFramesAreCountedAndDropped(t *testing.T) {
	skipOffLinux(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hb := encodeFrames(t, &mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_PX4, MavlinkVersion: 3})
	good := encodeFrames(t, &mav.MessageGlobalPositionInt{Lat: 474000000, Lon: 85000000, Alt: 500000, RelativeAlt: 1000})
	bad := bytes.Clone(good)
	bad[12] ^= 0x40 // a payload byte: the checksum no longer matches
	junk := []byte{0xfd, 0x09, 0x00, 0x00, 0x07, 0x01, 0x01, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xaa, 0xbb}
	stop := make(chan struct{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, b := range [][]byte{hb, bad, junk, good} {
				if _, err := c.Write(b); err != nil {
					return
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() { close(stop); <-served }()

	cfg := parse(t, fmt.Sprintf("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"tcp://%s\"}\n", ln.Addr()))
	r, err := drivers.Build(cfg, drivers.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, _ := Of(r, "uav")
	deadline := time.Now().Add(20 * time.Second)
	for {
		v.mu.Lock()
		malformed, frames, st := v.malformed, v.frames, v.st
		v.mu.Unlock()
		if st.haveGlobal && (st.lat != 47.4 || st.relAlt != 1) {
			t.Fatalf("a damaged frame reached the state: lat %v, alt %v", st.lat, st.relAlt)
		}
		if malformed >= 4 && frames >= 4 && st.haveGlobal && v.LinkUp() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %d malformed, %d frames, link up %v", malformed, frames, v.LinkUp())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := v.detail(); !bytes.Contains([]byte(d), []byte("malformed dropped")) {
		t.Fatalf("detail %q", d)
	}
}
