package web

import (
	"testing"

	"github.com/botd-project/botd/drivers/gpio"
	"github.com/botd-project/botd/drivers/mavlink"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The map's copy of the built-in yard and the device kinds it reads are
// the drivers' own.
func TestSimYardIsTheDrivers(t *testing.T) {
	spec := sim.DefaultWorldSpec()
	b := spec.Bounds
	if simYard.Bounds != (worldRect{MinX: b.MinX, MinY: b.MinY, MaxX: b.MaxX, MaxY: b.MaxY}) || len(simYard.Boxes) != len(spec.Boxes) {
		t.Fatalf("simYard %+v, drivers/sim %+v", simYard, spec)
	}
	for i, x := range spec.Boxes {
		if simYard.Boxes[i] != (worldRect{Name: x.Name, MinX: x.MinX, MinY: x.MinY, MaxX: x.MaxX, MaxY: x.MaxY}) {
			t.Errorf("box %d: %+v, drivers/sim %+v", i, simYard.Boxes[i], x)
		}
	}
	if kindSimPose != gpio.KindPose || kindMAVLinkVehicle != mavlink.Kind {
		t.Errorf("kinds %q %q, drivers %q %q", kindSimPose, kindMAVLinkVehicle, gpio.KindPose, mavlink.Kind)
	}
	w, ned := mapFacts([]protocol.Device{{Name: "pose", Kind: "pose"}, {Name: "drive", Kind: "diff_drive"}})
	if w != &simYard || ned {
		t.Errorf("a simulated rover: world %v, NED %v", w, ned)
	}
	if w, ned = mapFacts([]protocol.Device{{Name: "uav", Kind: "mavlink_vehicle"}}); w != nil || !ned {
		t.Errorf("a vehicle: world %v, NED %v", w, ned)
	}
}
