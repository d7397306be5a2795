package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/geofence"
)

// Problem codes, the same strings the missions package uses.
const (
	codeTooLarge = "TOO_LARGE"
	codeSyntax   = "INVALID_JSON"
)

// Limits bound what an import may cost; each is checked before the work
// it bounds is done. A zero field takes its default.
type Limits struct {
	// Bytes bounds the file [1 MiB].
	Bytes int
	// Items bounds the mission items, complex items' generated items
	// counted [5,000] (the missions package passes its node limit: every
	// item is at least one node).
	Items int
	// Repeat bounds a DO_JUMP's repeat count [100]: a plan that flies its
	// legs more often is refused, as is one that jumps forever.
	Repeat int
	// Zones bounds the geoFence's polygons and circles together
	// [geofence.MaxZones, 64]; their corners are bounded by the geofence
	// package (1,000 a polygon, 4,000 in all).
	Zones int
	// Rally bounds the rally points [100].
	Rally int
}

func (l Limits) withDefaults() Limits {
	if l.Bytes <= 0 {
		l.Bytes = 1 << 20
	}
	if l.Items <= 0 {
		l.Items = 5000
	}
	if l.Repeat <= 0 {
		l.Repeat = 100
	}
	if l.Zones <= 0 || l.Zones > geofence.MaxZones {
		l.Zones = geofence.MaxZones
	}
	if l.Rally <= 0 {
		l.Rally = 100
	}
	return l
}

// Item is one raw mission item, as an autopilot would be sent it.
type Item struct {
	// Seq is the item's place in the flattened mission (its MAVLink seq).
	Seq int
	// Path locates the item in the file: the JSON pointer of the plan
	// item ("/mission/items/3", or inside a complex item), or "line N" of a
	// waypoint file.
	Path    string
	Command int
	Frame   int
	// Params are MAVLink's param1 to param7; a null in the plan is NaN.
	// For a positional item param5 and param6 are latitude and longitude
	// in degrees and param7 the altitude in the item's frame.
	Params       [7]float64
	AutoContinue bool
	// JumpID is what a DO_JUMP's param1 names this item by: the plan's
	// doJumpId, or the waypoint file's sequence number.
	JumpID int
}

// X and Y are the item's latitude and longitude as MISSION_ITEM_INT
// carries them (degrees x 1e7; for FrameMission the value itself), as
// MAVSDK's importer rounds them.
func (it Item) X() int32 { return intCoord(it.Params[4], it.Frame) }
func (it Item) Y() int32 { return intCoord(it.Params[5], it.Frame) }

func intCoord(v float64, frame int) int32 {
	if math.IsNaN(v) {
		return 0
	}
	if frame == FrameMission {
		return int32(float32(v))
	}
	return int32(math.Round(v * 1e7))
}

// Plan is an imported plan's raw content.
type Plan struct {
	// Home is the planned home position: latitude, longitude (degrees)
	// and altitude above sea level (m); nil when the file has none.
	Home  *[3]float64
	Items []Item
	// CruiseSpeed and HoverSpeed are QGroundControl's plan defaults (m/s;
	// 0 when absent).
	CruiseSpeed, HoverSpeed float64
	// Fence is the plan's geoFence: its polygons, then its circles. The
	// vehicle keeps inside every inclusion zone and out of every
	// exclusion zone.
	Fence []Zone
	// Rally is the plan's rally points: latitude, longitude (degrees) and
	// altitude above home (m).
	Rally [][3]float64
	// ID and Revision are botd's own optional top-level "id" (a UUID) and
	// "revision" of a .plan (QGroundControl ignores members it does not
	// know), so a plan sent to the daemon as it is can name the mission it
	// updates.
	ID       string
	Revision int64
	// Fly is who flies the plan: FlyBotd ("", the default) or
	// FlyAutopilot, from botd's optional top-level "fly" member of a
	// .plan (QGroundControl ignores it) or the import's default.
	Fly string
}

// planFile is the part of a .plan botd reads.
type planFile struct {
	FileType    string           `json:"fileType"`
	ID          string           `json:"id"`
	Revision    *float64         `json:"revision"`
	Fly         *string          `json:"fly"`
	Version     *float64         `json:"version"`
	Mission     *missionJSON     `json:"mission"`
	GeoFence    *json.RawMessage `json:"geoFence"`
	RallyPoints *json.RawMessage `json:"rallyPoints"`
}

type missionJSON struct {
	Version     *float64          `json:"version"`
	Items       []json.RawMessage `json:"items"`
	Home        []*float64        `json:"plannedHomePosition"`
	CruiseSpeed *float64          `json:"cruiseSpeed"`
	HoverSpeed  *float64          `json:"hoverSpeed"`
}

type itemJSON struct {
	Type            string           `json:"type"`
	Command         *float64         `json:"command"`
	Frame           *float64         `json:"frame"`
	Params          []*float64       `json:"params"`
	AutoContinue    *bool            `json:"autoContinue"`
	DoJumpID        *float64         `json:"doJumpId"`
	ComplexItemType string           `json:"complexItemType"`
	Version         *float64         `json:"version"`
	Transect        *json.RawMessage `json:"TransectStyleComplexItem"`
}

// IsPlan reports whether data looks like a QGroundControl plan or a
// Mission Planner waypoint file (the first bytes only are read).
func IsPlan(data []byte) bool {
	return isWPL(data)
}

// IsPlanObject reports whether a JSON object's fileType member (already
// decoded) says it is a plan.
func IsPlanObject(fileType any) bool {
	s, ok := fileType.(string)
	return ok && s == "Plan"
}

// Parse reads a .plan or a QGC WPL 110 file into its raw items. Every
// problem found is reported, located; a plan is returned only when there
// are none.
func Parse(data []byte, lim Limits) (*Plan, bt.Problems) {
	lim = lim.withDefaults()
	ps := &problems{}
	if len(data) > lim.Bytes {
		ps.add("", codeTooLarge, "the plan is %d bytes, above the limit of %d", len(data), lim.Bytes)
		return nil, ps.list
	}
	if isWPL(data) {
		p := parseWPL(data, lim, ps)
		return result(p, ps)
	}
	p := parseQGC(data, lim, ps)
	return result(p, ps)
}

func result(p *Plan, ps *problems) (*Plan, bt.Problems) {
	if len(ps.list) > 0 {
		return nil, ps.list
	}
	return p, nil
}

func parseQGC(data []byte, lim Limits, ps *problems) *Plan {
	var f planFile
	if err := json.Unmarshal(data, &f); err != nil {
		ps.add("", codeSyntax, "not a QGroundControl plan: %v", err)
		return nil
	}
	if f.FileType != "Plan" {
		ps.invalid("/fileType", "%q, want \"Plan\"", f.FileType)
	}
	if f.Version == nil || *f.Version != 1 {
		ps.invalid("/version", "plan version %s is not supported (botd reads version 1)", num(f.Version))
	}
	if f.Mission == nil {
		ps.invalid("/mission", "the plan has no mission")
		return nil
	}
	m := f.Mission
	if m.Version == nil || *m.Version != 2 {
		ps.invalid("/mission/version", "mission version %s is not supported (botd reads version 2)", num(m.Version))
	}
	p := &Plan{ID: f.ID}
	if f.Fly != nil {
		switch *f.Fly {
		case FlyBotd, FlyAutopilot:
			p.Fly = *f.Fly
		default:
			ps.invalid("/fly", "%q: who flies the plan is %q or %q", *f.Fly, FlyBotd, FlyAutopilot)
		}
	}
	if f.Revision != nil {
		if !whole(*f.Revision) || *f.Revision < 0 || *f.Revision > 1<<53 {
			ps.invalid("/revision", "%s is not a revision (a whole number, 0 or more)", num(f.Revision))
		}
		p.Revision = int64(*f.Revision)
	}
	if m.CruiseSpeed != nil {
		p.CruiseSpeed = *m.CruiseSpeed
	}
	if m.HoverSpeed != nil {
		p.HoverSpeed = *m.HoverSpeed
	}
	if len(m.Home) != 0 {
		p.Home = readHome(m.Home, "/mission/plannedHomePosition", ps)
	}
	p.Fence = parseFence(f.GeoFence, "/geoFence", true, lim, ps)
	local, origin := checkZones(p.Fence, p.Home, ps)
	p.Rally = parseRally(f.RallyPoints, "/rallyPoints", true, lim, ps)
	if len(m.Items) > lim.Items {
		ps.add("/mission/items", codeTooLarge, "%d items, above the limit of %d", len(m.Items), lim.Items)
		return nil
	}
	for i, raw := range m.Items {
		path := "/mission/items/" + strconv.Itoa(i)
		var it itemJSON
		if err := json.Unmarshal(raw, &it); err != nil {
			ps.invalid(path, "item %d: %v", len(p.Items), err)
			continue
		}
		switch it.Type {
		case "SimpleItem":
			if item, ok := simpleItem(it, path, len(p.Items), ps); ok {
				p.Items = append(p.Items, item)
			}
		case "ComplexItem":
			if !complexItems(p, it, path, lim, ps) {
				return nil
			}
		default:
			ps.invalid(path+"/type", "item %d: type %q is neither SimpleItem nor ComplexItem", len(p.Items), it.Type)
		}
		if len(p.Items) > lim.Items {
			ps.add("/mission/items", codeTooLarge, "more than %d items once complex items are flattened", lim.Items)
			return nil
		}
	}
	checkItemsInZones(p.Items, local, origin, ps)
	return p
}

func readHome(h []*float64, path string, ps *problems) *[3]float64 {
	if len(h) != 3 {
		ps.invalid(path, "%d values, want latitude, longitude and altitude", len(h))
		return nil
	}
	var out [3]float64
	for i, v := range h {
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			ps.invalid(ptrIdx(path, i), "not a number")
			return nil
		}
		out[i] = *v
	}
	if out == [3]float64{} {
		return nil // QGroundControl writes zeros when it knew no home
	}
	if !validLatLon(out[0], out[1]) {
		ps.invalid(path, "(%v, %v) is not a place on Earth", out[0], out[1])
		return nil
	}
	return &out
}

func simpleItem(it itemJSON, path string, seq int, ps *problems) (Item, bool) {
	item := Item{Seq: seq, Path: path, AutoContinue: true, JumpID: seq + 1}
	ok := true
	need := func(v *float64, field string) int {
		if v == nil || *v != math.Trunc(*v) || *v < 0 || *v > 65535 {
			ps.invalid(path+"/"+field, "item %d: %s is %s, want a whole number", seq, field, num(v))
			ok = false
			return 0
		}
		return int(*v)
	}
	item.Command = need(it.Command, "command")
	item.Frame = need(it.Frame, "frame")
	if it.DoJumpID != nil && *it.DoJumpID == math.Trunc(*it.DoJumpID) {
		item.JumpID = int(*it.DoJumpID)
	}
	if it.AutoContinue != nil {
		item.AutoContinue = *it.AutoContinue
	}
	if len(it.Params) != 7 {
		ps.invalid(path+"/params", "item %d: %d params, want 7", seq, len(it.Params))
		return item, false
	}
	for i, v := range it.Params {
		item.Params[i] = math.NaN()
		if v != nil {
			item.Params[i] = *v
		}
	}
	return item, ok
}

// complexItems flattens a survey or corridor scan into the items
// QGroundControl generated for it and saved with it.
func complexItems(p *Plan, it itemJSON, path string, lim Limits, ps *problems) bool {
	seq := len(p.Items)
	switch it.ComplexItemType {
	case "survey", "CorridorScan":
	default:
		ps.invalid(path+"/complexItemType", "item %d: complex item %q is not supported (botd reads survey and CorridorScan)", seq, it.ComplexItemType)
		return true
	}
	if it.ComplexItemType == "survey" && (it.Version == nil || *it.Version != 5) {
		ps.invalid(path+"/version", "item %d: survey version %s is not supported (botd reads version 5)", seq, num(it.Version))
		return true
	}
	var ts struct {
		Items []json.RawMessage `json:"Items"`
	}
	if it.Transect == nil || json.Unmarshal(*it.Transect, &ts) != nil || len(ts.Items) == 0 {
		ps.invalid(path+"/TransectStyleComplexItem", "item %d: %s without its generated items", seq, it.ComplexItemType)
		return true
	}
	if seq+len(ts.Items) > lim.Items {
		ps.add(path, codeTooLarge, "item %d: %d generated items, above the limit of %d items", seq, len(ts.Items), lim.Items)
		return false
	}
	for j, raw := range ts.Items {
		sub := path + "/TransectStyleComplexItem/Items/" + strconv.Itoa(j)
		var s itemJSON
		if err := json.Unmarshal(raw, &s); err != nil || s.Type != "SimpleItem" {
			ps.invalid(sub, "item %d: not a SimpleItem", len(p.Items))
			continue
		}
		if item, ok := simpleItem(s, sub, len(p.Items), ps); ok {
			p.Items = append(p.Items, item)
		}
	}
	return true
}

func validLatLon(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}

func num(v *float64) string {
	if v == nil {
		return "missing"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

func ptrIdx(path string, i int) string { return path + "/" + strconv.Itoa(i) }

type problems struct{ list bt.Problems }

func (p *problems) add(path, code, format string, args ...any) {
	p.list = append(p.list, bt.Problem{Path: path, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) invalid(path, format string, args ...any) {
	p.add(path, bt.CodeValidation, format, args...)
}
