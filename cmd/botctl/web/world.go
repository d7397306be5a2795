package web

import "github.com/botd-project/botd/telemetry/protocol"

// Device kinds the map reads from a factsheet (drivers' names; botctl does
// not link the drivers: world_test.go checks them against drivers).
const (
	kindSimPose        = "pose"            // a simulated board's true pose: only the simulated rover has one
	kindMAVLinkVehicle = "mavlink_vehicle" // its local frame is NED around home
)

// worldRect is an axis-aligned rectangle in the local frame, metres.
type worldRect struct {
	Name string  `json:"name,omitempty"`
	MinX float64 `json:"min_x"`
	MinY float64 `json:"min_y"`
	MaxX float64 `json:"max_x"`
	MaxY float64 `json:"max_y"`
}

// worldFrame is the yard the map draws under a simulated rover: its walls
// (Bounds) and boxes.
type worldFrame struct {
	Bounds worldRect   `json:"bounds"`
	Boxes  []worldRect `json:"boxes"`
}

// simYard is the simulated rover's built-in yard (drivers/sim's
// DefaultWorldSpec; world_test.go keeps the two equal). A daemon started
// with a world file of its own has other walls, which its factsheet does
// not say: the map then draws this yard, marked as the built-in one.
var simYard = worldFrame{
	Bounds: worldRect{MinX: -2, MinY: -2, MaxX: 8, MaxY: 8},
	Boxes: []worldRect{
		{Name: "crate", MinX: 3.0, MinY: -0.3, MaxX: 3.6, MaxY: 0.3},
		{Name: "bench", MinX: 1.4, MinY: 3.2, MaxX: 2.6, MaxY: 3.6},
		{Name: "tank", MinX: 5.0, MinY: 5.0, MaxX: 7.0, MaxY: 6.5},
	},
}

// mapFacts is what the map learns from a robot's devices: the yard of a
// simulated rover, and whether its mission's local goals are north/east
// (a MAVLink vehicle's GoTo x is north of home) rather than east/north.
func mapFacts(devs []protocol.Device) (world *worldFrame, goalsNED bool) {
	for _, d := range devs {
		switch d.Kind {
		case kindSimPose:
			world = &simYard
		case kindMAVLinkVehicle:
			goalsNED = true
		}
	}
	return world, goalsNED
}
