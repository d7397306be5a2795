package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/botd-project/botd/drivers/geofence"
)

// Blackboard keys of an imported plan's fence and rally points, written in
// the plan's own layout so that a mission sent on as botd JSON keeps them
// and Export writes them back.
const (
	// FenceKey holds the plan's geoFence: {"polygons": [{"inclusion":
	// bool, "polygon": [[lat, lon], ...]}], "circles": [{"inclusion": bool,
	// "circle": {"center": [lat, lon], "radius": m}}]}.
	FenceKey = "plan.fence"
	// RallyKey holds the plan's rally points: [[lat, lon, alt above home], ...].
	RallyKey = "plan.rally"
)

// Zone is one zone of a plan's geoFence.
type Zone struct {
	// Name is what a breach names the zone by: "geoFence polygon 0
	// (inclusion)", "geoFence circle 1 (exclusion)".
	Name string
	// Path locates the zone in the file ("/geoFence/circles/1").
	Path      string
	Inclusion bool
	// Polygon is a polygon's corners (latitude, longitude in degrees);
	// nil for a circle.
	Polygon [][2]float64
	// Center (latitude, longitude) and Radius (m) are a circle's.
	Center [2]float64
	Radius float64
}

// Local is the zone on the plane tangent to the Earth at o (metres east
// and north of it), without an altitude band (a plan's fence has none).
func (z *Zone) Local(o geofence.LatLon) geofence.Zone {
	g := geofence.Zone{Name: z.Name, Exclusion: !z.Inclusion, MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}
	if z.Polygon == nil {
		g.CX, g.CY = o.ToLocal(z.Center[0], z.Center[1])
		g.Radius = z.Radius
		return g
	}
	g.Polygon.Xs = make([]float64, len(z.Polygon))
	g.Polygon.Ys = make([]float64, len(z.Polygon))
	for i, c := range z.Polygon {
		g.Polygon.Xs[i], g.Polygon.Ys[i] = o.ToLocal(c[0], c[1])
	}
	return g
}

// LocalZones places every zone on the plane tangent to the Earth at o.
func LocalZones(zs []Zone, o geofence.LatLon) geofence.Zones {
	out := make(geofence.Zones, len(zs))
	for i := range zs {
		out[i] = zs[i].Local(o)
	}
	return out
}

type fenceJSON struct {
	Version  *float64          `json:"version"`
	Polygons []json.RawMessage `json:"polygons"`
	Circles  []json.RawMessage `json:"circles"`
}

type polygonJSON struct {
	Inclusion *bool        `json:"inclusion"`
	Polygon   [][]*float64 `json:"polygon"`
	Version   *float64     `json:"version"`
	Circle    *circleJSON  `json:"circle"`
	_         [0]func()    // not comparable
}

type circleJSON struct {
	Center []*float64 `json:"center"`
	Radius *float64   `json:"radius"`
}

type rallyJSON struct {
	Version *float64     `json:"version"`
	Points  [][]*float64 `json:"points"`
}

func isNull(raw *json.RawMessage) bool {
	return raw == nil || bytes.Equal(bytes.TrimSpace(*raw), []byte("null"))
}

// parseFence reads a geoFence section (version 2; a section botd wrote to
// the blackboard has no version: versioned false).
func parseFence(raw *json.RawMessage, path string, versioned bool, lim Limits, ps *problems) []Zone {
	if isNull(raw) {
		return nil
	}
	var f fenceJSON
	if err := json.Unmarshal(*raw, &f); err != nil {
		ps.invalid(path, "%v", err)
		return nil
	}
	if versioned && (f.Version == nil || *f.Version != 2) {
		ps.invalid(path+"/version", "geoFence version %s is not supported (botd reads version 2)", num(f.Version))
	}
	if n := len(f.Polygons) + len(f.Circles); n > lim.Zones {
		ps.add(path, codeTooLarge, "%d zones, above the limit of %d", n, lim.Zones)
		return nil
	}
	var zs []Zone
	corners := 0
	for i, r := range f.Polygons {
		zp := path + "/polygons/" + strconv.Itoa(i)
		var p polygonJSON
		if err := json.Unmarshal(r, &p); err != nil {
			ps.invalid(zp, "%v", err)
			continue
		}
		z := Zone{Path: zp, Polygon: [][2]float64{}}
		if !zoneHead(&z, p.Inclusion, p.Version, "polygon", i, versioned, ps) {
			continue
		}
		corners += len(p.Polygon)
		switch {
		case corners > geofence.MaxZonePoints:
			ps.add(zp+"/polygon", codeTooLarge, "more than %d corners in all polygons together", geofence.MaxZonePoints)
			return nil
		case len(p.Polygon) > geofence.MaxPoints:
			ps.add(zp+"/polygon", codeTooLarge, "%s: %d corners, above the limit of %d", z.Name, len(p.Polygon), geofence.MaxPoints)
			continue
		case len(p.Polygon) < 3:
			ps.invalid(zp+"/polygon", "%s: %d corners: a polygon has at least 3", z.Name, len(p.Polygon))
			continue
		}
		ok := true
		for k, c := range p.Polygon {
			ll, good := latLon(c, 2)
			if !good {
				ps.invalid(ptrIdx(zp+"/polygon", k), "%s: corner %d: %s is not a latitude and longitude on Earth", z.Name, k, showNums(c))
				ok = false
			}
			z.Polygon = append(z.Polygon, [2]float64{ll[0], ll[1]})
		}
		if ok {
			zs = append(zs, z)
		}
	}
	for i, r := range f.Circles {
		zp := path + "/circles/" + strconv.Itoa(i)
		var p polygonJSON
		if err := json.Unmarshal(r, &p); err != nil {
			ps.invalid(zp, "%v", err)
			continue
		}
		z := Zone{Path: zp}
		if !zoneHead(&z, p.Inclusion, p.Version, "circle", i, versioned, ps) {
			continue
		}
		if p.Circle == nil {
			ps.invalid(zp+"/circle", "%s: no circle", z.Name)
			continue
		}
		ll, good := latLon(p.Circle.Center, 2)
		if !good {
			ps.invalid(zp+"/circle/center", "%s: the centre %s is not a latitude and longitude on Earth", z.Name, showNums(p.Circle.Center))
			continue
		}
		r := p.Circle.Radius
		if r == nil || !finite(*r) || *r <= 0 || *r > geofence.MaxCircleRange {
			ps.invalid(zp+"/circle/radius", "%s: a radius of %s m: above 0 and at most %v m", z.Name, num(r), geofence.MaxCircleRange)
			continue
		}
		z.Center, z.Radius = [2]float64{ll[0], ll[1]}, *r
		zs = append(zs, z)
	}
	return zs
}

// zoneHead reads what a polygon and a circle share: the inclusion flag and
// the item's version (1).
func zoneHead(z *Zone, incl *bool, version *float64, kind string, i int, versioned bool, ps *problems) bool {
	if incl == nil {
		ps.invalid(z.Path+"/inclusion", "%s %d: inclusion is missing (true: keep in, false: keep out)", kind, i)
		return false
	}
	z.Inclusion = *incl
	way := "exclusion"
	if z.Inclusion {
		way = "inclusion"
	}
	z.Name = "geoFence " + kind + " " + strconv.Itoa(i) + " (" + way + ")"
	if versioned && (version == nil || *version != 1) {
		ps.invalid(z.Path+"/version", "%s: version %s is not supported (botd reads version 1)", z.Name, num(version))
		return false
	}
	return true
}

// latLon reads [lat, lon] (n 2) or [lat, lon, alt] (n 3).
func latLon(c []*float64, n int) ([3]float64, bool) {
	var out [3]float64
	if len(c) != n {
		return out, false
	}
	for i, v := range c {
		if v == nil || !finite(*v) {
			return out, false
		}
		out[i] = *v
	}
	return out, validLatLon(out[0], out[1])
}

func showNums(c []*float64) string {
	s := "["
	for i, v := range c {
		if i > 0 {
			s += ", "
		}
		if v == nil {
			s += "null"
		} else {
			s += strconv.FormatFloat(*v, 'g', -1, 64)
		}
	}
	return s + "]"
}

// parseRally reads a rallyPoints section: each point latitude, longitude
// and altitude above home.
func parseRally(raw *json.RawMessage, path string, versioned bool, lim Limits, ps *problems) [][3]float64 {
	if isNull(raw) {
		return nil
	}
	var r rallyJSON
	if err := json.Unmarshal(*raw, &r); err != nil {
		ps.invalid(path, "%v", err)
		return nil
	}
	if versioned && (r.Version == nil || *r.Version != 2) {
		ps.invalid(path+"/version", "rallyPoints version %s is not supported (botd reads version 2)", num(r.Version))
	}
	if len(r.Points) > lim.Rally {
		ps.add(path+"/points", codeTooLarge, "%d rally points, above the limit of %d", len(r.Points), lim.Rally)
		return nil
	}
	var out [][3]float64
	for i, c := range r.Points {
		p, ok := latLon(c, 3)
		switch {
		case !ok:
			ps.invalid(ptrIdx(path+"/points", i), "rally point %d: %s is not a latitude, longitude and altitude on Earth", i, showNums(c))
		case p[2] < 0:
			ps.invalid(ptrIdx(path+"/points", i), "rally point %d: the altitude is %v m below home", i, -p[2])
		default:
			out = append(out, p)
		}
	}
	return out
}

// checkZones reports zones that are not a fence (a polygon that crosses
// itself, on the plane tangent to the Earth at the home or the first
// zone), and zones that leave the home outside. It returns the zones on
// that plane and its origin when they are a fence.
func checkZones(zs []Zone, home *[3]float64, ps *problems) (geofence.Zones, geofence.LatLon) {
	if len(zs) == 0 {
		return nil, geofence.LatLon{}
	}
	var o geofence.LatLon
	if home != nil {
		o = geofence.LatLon{Lat: home[0], Lon: home[1]}
	} else if zs[0].Polygon != nil {
		o = geofence.LatLon{Lat: zs[0].Polygon[0][0], Lon: zs[0].Polygon[0][1]}
	} else {
		o = geofence.LatLon{Lat: zs[0].Center[0], Lon: zs[0].Center[1]}
	}
	local := LocalZones(zs, o)
	for i := range local {
		if msg, at := local[i].Problem(); msg != "" {
			where := zs[i].Path
			if at >= 0 {
				where = ptrIdx(where+"/polygon", at)
			}
			ps.invalid(where, "%s: %s", zs[i].Name, msg)
			return nil, o
		}
	}
	if home == nil {
		return local, o
	}
	for i := range local {
		if d := local[i].Clearance(0, 0, 0); d < 0 {
			ps.invalid(zs[i].Path, "%s leaves the plan's home (%v, %v) outside, by %.1f m: the vehicle would breach it on the ground", zs[i].Name, home[0], home[1], -d)
		}
	}
	return local, o
}

// checkItemsInZones reports each item that flies to a position the plan's
// own zones forbid (outside an inclusion zone, inside an exclusion zone),
// naming the zone.
func checkItemsInZones(items []Item, local geofence.Zones, o geofence.LatLon, ps *problems) {
	if len(local) == 0 {
		return
	}
	for _, it := range items {
		lat, lon := it.Params[4], it.Params[5]
		if !isNav(it.Command) || !finite(lat) || !finite(lon) || !validLatLon(lat, lon) || lat == 0 && lon == 0 {
			continue
		}
		x, y := o.ToLocal(lat, lon)
		if d, at := local.Clearance(x, y, 0); d < 0 {
			ps.invalid(it.Path, "item %d: %s: (%v, %v) is outside %s, by %.1f m", it.Seq, cmdName(it.Command), lat, lon, local[at].Name, -d)
		}
	}
}

// fenceValue is the blackboard value of a fence (FenceKey).
func fenceValue(zs []Zone) map[string]any {
	polys, circles := []any{}, []any{}
	for _, z := range zs {
		if z.Polygon == nil {
			circles = append(circles, map[string]any{"inclusion": z.Inclusion,
				"circle": map[string]any{"center": []any{z.Center[0], z.Center[1]}, "radius": z.Radius}})
			continue
		}
		pts := make([]any, len(z.Polygon))
		for i, c := range z.Polygon {
			pts[i] = []any{c[0], c[1]}
		}
		polys = append(polys, map[string]any{"inclusion": z.Inclusion, "polygon": pts})
	}
	return map[string]any{"polygons": polys, "circles": circles}
}

func rallyValue(pts [][3]float64) []any {
	out := make([]any, len(pts))
	for i, p := range pts {
		out[i] = []any{p[0], p[1], p[2]}
	}
	return out
}

// Blackboard is what a mission generated from the plan starts with on its
// blackboard: the home (HomeKey), the fence (FenceKey) and the rally
// points (RallyKey), each when the plan has it; nil when it has none.
func (p *Plan) Blackboard() map[string]any {
	bb := map[string]any{}
	if p.Home != nil {
		bb[HomeKey] = []any{p.Home[0], p.Home[1], p.Home[2]}
	}
	if len(p.Fence) > 0 {
		bb[FenceKey] = fenceValue(p.Fence)
	}
	if len(p.Rally) > 0 {
		bb[RallyKey] = rallyValue(p.Rally)
	}
	if len(bb) == 0 {
		return nil
	}
	return bb
}

// FenceFrom reads the fence and rally points of a mission's blackboard
// (FenceKey, RallyKey), checked as an import checks them (home: the plan's
// home or nil). The problems are located at the blackboard keys.
func FenceFrom(blackboard map[string]any, home *[3]float64) ([]Zone, [][3]float64, error) {
	ps := &problems{}
	lim := Limits{}.withDefaults()
	var zs []Zone
	var rally [][3]float64
	if v, ok := blackboard[FenceKey]; ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("/blackboard/%s: %v", FenceKey, err)
		}
		rm := json.RawMessage(raw)
		zs = parseFence(&rm, "/blackboard/"+FenceKey, false, lim, ps)
		checkZones(zs, home, ps)
	}
	if v, ok := blackboard[RallyKey]; ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("/blackboard/%s: %v", RallyKey, err)
		}
		rm := json.RawMessage(`{"points": ` + string(raw) + `}`)
		rally = parseRally(&rm, "/blackboard/"+RallyKey, false, lim, ps)
	}
	if len(ps.list) > 0 {
		return nil, nil, ps.list
	}
	return zs, rally, nil
}
