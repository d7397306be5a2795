package runner

import (
	"math"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// nodeGoal is the goal of the node defined at path in doc, when its params
// give literal coordinates: lat and lon (a global goal) or x and y (a
// local one). A param that names a blackboard key ("{wp_x}") is not a
// literal: it changes while the mission runs, so there is no fixed goal.
func nodeGoal(doc *missions.Document, path string) *protocol.Goal {
	def := missions.DefAt(doc, path)
	if def == nil || len(def.Params) == 0 {
		return nil
	}
	num := func(k string) (float64, bool) {
		x, ok := def.Params[k].(float64)
		if !ok {
			if i, isInt := def.Params[k].(int); isInt {
				x, ok = float64(i), true
			}
		}
		return x, ok && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	if lat, ok := num("lat"); ok {
		if lon, ok := num("lon"); ok && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 {
			return &protocol.Goal{Frame: "global", X: lon, Y: lat}
		}
	}
	x, okX := num("x")
	y, okY := num("y")
	if okX && okY {
		return &protocol.Goal{Frame: "local", X: x, Y: y}
	}
	return nil
}
