package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The watch header gets a line per vehicle from the blackboard: armed, in the air, flight mode,
// altitude and battery; a robot without vehicle keys gets none.
func TestWatchVehicleLine(t *testing.T) {
	m := fixedWatch(t, termenv.Ascii)
	m.Update(protocol.BlackboardMsg{Full: true, Values: []protocol.BlackboardValue{
		{Key: "range.front", Value: 1.2}, {Key: "battery.percent", Value: 80.0}}})
	if out := m.render(m.now()); strings.Contains(out, "vehicle") {
		t.Fatalf("a rover got a vehicle line:\n%s", out)
	}
	m.Update(protocol.BlackboardMsg{Values: []protocol.BlackboardValue{
		{Key: "uav.armed", Value: true}, {Key: "uav.in_air", Value: true}, {Key: "uav.mode", Value: 10.0},
		{Key: "uav.alt", Value: 15.04}, {Key: "uav.battery_percent", Value: 93.2}, {Key: "uav.lat", Value: 47.39}}})
	want := "vehicle uav  ARMED  in air  mode guided  alt 15.0 m  battery 93%"
	if out := m.render(m.now()); !strings.Contains(out, want) {
		t.Fatalf("no %q in:\n%s", want, out)
	}
	m.Update(protocol.BlackboardMsg{Values: []protocol.BlackboardValue{
		{Key: "uav.armed", Value: false}, {Key: "uav.in_air", Value: false}, {Key: "uav.mode", Value: 8.0}, {Key: "uav.alt", Value: 0.0}}})
	want = "vehicle uav  disarmed  on the ground  mode land  alt 0.0 m  battery 93%"
	if out := m.render(m.now()); !strings.Contains(out, want) {
		t.Fatalf("no %q in:\n%s", want, out)
	}
	m.Update(protocol.BlackboardMsg{Values: []protocol.BlackboardValue{{Key: "uav.mode", Value: 99.0}}})
	if out := m.render(m.now()); !strings.Contains(out, "mode unknown") {
		t.Fatalf("an out-of-range mode:\n%s", out)
	}
	// A robot whose factsheet names its modes is read by its names.
	m.Update(vehicleModesMsg{"zero", "one", "two"})
	m.Update(protocol.BlackboardMsg{Values: []protocol.BlackboardValue{{Key: "uav.mode", Value: 2.0}}})
	if out := m.render(m.now()); !strings.Contains(out, "mode two") {
		t.Fatalf("the factsheet's mode names are not used:\n%s", out)
	}
	m.Update(vehicleModesMsg(nil))
	// The keys kept are bounded.
	var many []protocol.BlackboardValue
	for i := range 500 {
		many = append(many, protocol.BlackboardValue{Key: "v" + strconv.Itoa(i) + ".alt", Value: 1.0})
	}
	m.Update(protocol.BlackboardMsg{Values: many})
	if len(m.vehicles) > maxVehicleKeys {
		t.Fatalf("%d keys kept", len(m.vehicles))
	}
}
