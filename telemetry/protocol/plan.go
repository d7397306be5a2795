package protocol

// PlanGeometry is what a ground station's map draws of a mission's flight
// plan besides its waypoints (the nodes' goals): the plan's home, its
// geofence zones of both kinds and its rally points, in degrees of
// latitude and longitude. The tree topic carries it (TreeInfo.Plan) for a
// mission that has any of them (a QGroundControl plan's geoFence and
// rallyPoints); it is bounded (Bound), whatever the mission holds.
type PlanGeometry struct {
	// Home is the plan's planned home: latitude, longitude (degrees) and
	// altitude above sea level (m).
	Home *[3]float64 `json:"home,omitempty"`
	// Polygons and Circles are the plan's zones, in the plan's order.
	Polygons []PlanPolygon `json:"polygons,omitempty"`
	Circles  []PlanCircle  `json:"circles,omitempty"`
	// Rally is the rally points: latitude, longitude (degrees) and
	// altitude above home (m).
	Rally [][3]float64 `json:"rally,omitempty"`
	// Mission is the mission items that fly to a place, when the mission
	// hands its items to an autopilot to fly (a node whose `mission`
	// parameter is a list of MAVLink mission items, as a plan flown by
	// the autopilot has): its nodes give no waypoints then, and the
	// vehicle's MISSION_CURRENT (a vehicle's KEY.mission_item) counts
	// these items' Seq.
	Mission []PlanItem `json:"mission,omitempty"`
	// LeftOut counts what the bounds left out; nil when nothing was.
	LeftOut *PlanLeftOut `json:"left_out,omitempty"`
}

// PlanPolygon is a polygon zone: kept in (Inclusion) or kept out.
type PlanPolygon struct {
	// Name is what a breach names the zone by: "geoFence polygon 0
	// (inclusion)".
	Name      string `json:"name"`
	Inclusion bool   `json:"inclusion"`
	// Points are the corners: [latitude, longitude] in degrees.
	Points [][2]float64 `json:"points"`
}

// PlanCircle is a circle zone: kept in (Inclusion) or kept out.
type PlanCircle struct {
	// Name is what a breach names the zone by: "geoFence circle 0
	// (exclusion)".
	Name      string `json:"name"`
	Inclusion bool   `json:"inclusion"`
	// Center is [latitude, longitude] in degrees; Radius is in metres.
	Center [2]float64 `json:"center"`
	Radius float64    `json:"radius"`
}

// PlanItem is a mission item that flies to a place.
type PlanItem struct {
	// Seq is the item's number in the mission the autopilot is given
	// (from 0, every item counted, those without a place too).
	Seq int `json:"seq"`
	// Lat and Lon are where it flies to, in degrees.
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

// PlanLeftOut counts the zones, their corners, the rally points and the
// mission items that PlanGeometry.Bound left out.
type PlanLeftOut struct {
	Zones   int `json:"zones"`
	Corners int `json:"corners"`
	Rally   int `json:"rally"`
	Mission int `json:"mission,omitempty"`
}

// Bounds of a PlanGeometry: at most about 110 KB of JSON, whatever the
// mission holds (a plan's own import allows 64 zones of up to 4,000
// corners together, 100 rally points and 5,000 items).
const (
	MaxPlanZones   = 64
	MaxPlanCorners = 2000
	MaxPlanRally   = 100
	MaxPlanMission = 1000
)

// Bound keeps g within MaxPlanZones zones (polygons first), MaxPlanCorners
// corners in all polygons together, MaxPlanRally rally points and the
// first MaxPlanMission mission items. A
// polygon that does not fit is left out whole (a cut polygon would draw
// another zone than the robot keeps), and counted in LeftOut with its
// corners.
func (g *PlanGeometry) Bound() {
	if g == nil {
		return
	}
	var out PlanLeftOut
	zones, corners := 0, 0
	kept := g.Polygons[:0]
	for _, p := range g.Polygons {
		if zones >= MaxPlanZones || corners+len(p.Points) > MaxPlanCorners {
			out.Zones++
			out.Corners += len(p.Points)
			continue
		}
		zones++
		corners += len(p.Points)
		kept = append(kept, p)
	}
	g.Polygons = kept
	if n := MaxPlanZones - zones; len(g.Circles) > n {
		out.Zones += len(g.Circles) - n
		g.Circles = g.Circles[:n]
	}
	if len(g.Rally) > MaxPlanRally {
		out.Rally = len(g.Rally) - MaxPlanRally
		g.Rally = g.Rally[:MaxPlanRally]
	}
	if len(g.Mission) > MaxPlanMission {
		out.Mission = len(g.Mission) - MaxPlanMission
		g.Mission = g.Mission[:MaxPlanMission]
	}
	if out != (PlanLeftOut{}) {
		if g.LeftOut != nil { // left out by the robot already
			out.Zones += g.LeftOut.Zones
			out.Corners += g.LeftOut.Corners
			out.Rally += g.LeftOut.Rally
			out.Mission += g.LeftOut.Mission
		}
		g.LeftOut = &out
	}
}
