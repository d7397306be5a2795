package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/botd-project/botd/telemetry/protocol"
)

// vehicleModesMsg is the robot's factsheet's names of the numbers a MAVLink vehicle writes
// to <key>.mode (docs/UAV.md, "Blackboard keys"); without them the watch uses
// protocol.DefaultVehicleModes.
type vehicleModesMsg []string

// maxVehicleModes bounds the names the watch keeps of a factsheet.
const maxVehicleModes = 256

// maxVehicleKeys bounds what the watch keeps of the blackboard: the few keys of the vehicle
// line, for a handful of vehicles.
const maxVehicleKeys = 64

// vehicleKeys keeps the blackboard values the vehicle line shows: <prefix>.armed, .in_air,
// .mode, .alt and .battery_percent. A prefix with an armed and a mode key is a vehicle.
type vehicleKeys map[string]float64

var vehicleSuffixes = []string{".armed", ".in_air", ".mode", ".alt", ".battery_percent"}

func (k vehicleKeys) apply(m protocol.BlackboardMsg) {
	for _, v := range m.Values {
		keep := false
		for _, s := range vehicleSuffixes {
			keep = keep || strings.HasSuffix(v.Key, s)
		}
		if !keep {
			continue
		}
		var f float64
		switch x := v.Value.(type) {
		case float64:
			f = x
		case bool:
			if x {
				f = 1
			}
		default:
			delete(k, v.Key)
			continue
		}
		if _, ok := k[v.Key]; !ok && len(k) >= maxVehicleKeys {
			continue
		}
		k[v.Key] = f
	}
}

// lines are one line per vehicle: "vehicle uav  ARMED  in air  mode guided  alt 15.0 m  battery 93%".
func (k vehicleKeys) lines(st styles, modes []string) []string {
	var prefixes []string
	for key := range k {
		if p, ok := strings.CutSuffix(key, ".armed"); ok {
			if _, mode := k[p+".mode"]; mode {
				prefixes = append(prefixes, p)
			}
		}
	}
	sort.Strings(prefixes)
	var out []string
	for _, p := range prefixes {
		armed := st.dim.Render("disarmed")
		if k[p+".armed"] == 1 {
			armed = st.warn.Render("ARMED")
		}
		line := "vehicle " + st.bold.Render(p) + "  " + armed
		if v, ok := k[p+".in_air"]; ok {
			if v == 1 {
				line += "  in air"
			} else {
				line += "  on the ground"
			}
		}
		line += "  mode " + st.bold.Render(protocol.VehicleModeName(modes, k[p+".mode"]))
		if v, ok := k[p+".alt"]; ok {
			line += fmt.Sprintf("  alt %.1f m", v)
		}
		if v, ok := k[p+".battery_percent"]; ok {
			line += fmt.Sprintf("  battery %.0f%%", v)
		}
		out = append(out, line)
	}
	return out
}
