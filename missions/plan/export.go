package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"sync"

	"github.com/botd-project/botd/bt"
)

// ExportOptions configure Export.
type ExportOptions struct {
	// Home is the planned home (latitude, longitude, altitude above sea
	// level). Without it the mission's plan.home blackboard value is used
	// (an imported plan has it), else the first position flown, at 0 m.
	// A GoTo by x/y (metres north and east of home) needs a home.
	Home *[3]float64
}

// Export writes a UAV mission's flight as a QGroundControl plan: its
// Takeoff, GoTo (a Wait after one its hold time), Land, ReturnHome, speed
// changes, MAVCommand items and Repeaters (a DO_JUMP back over their
// body), in the order a MemSequence flies them. An imported plan's leaves
// are named after the items they fly ("item 5: NAV_LOITER_TIME"), so the
// items come back as they were: the altitudes above home (frame 3). The
// checks and arming around the flight (GpsFix, Arm, Disarm, Log) have no
// item and are left out; the blackboard's plan.fence and plan.rally (an
// imported plan's geoFence and rally points) are its geoFence and
// rallyPoints, checked as an import checks them; a node that changes the flight in a way a plan
// cannot say (a Fallback, a Parallel, a Wait on its own) is an error
// naming its path.
func Export(trees map[string]*bt.NodeDef, main string, blackboard map[string]any, opts ExportOptions) ([]byte, error) {
	e := &exporter{trees: trees, home: opts.Home}
	if e.home == nil {
		e.home = homeFrom(blackboard[HomeKey])
	}
	root := trees[main]
	if root == nil {
		return nil, fmt.Errorf("no tree %q", main)
	}
	if err := e.walk(root, "/trees/"+main, 0); err != nil {
		return nil, err
	}
	if err := e.flush(); err != nil {
		return nil, err
	}
	var err error
	if e.fence, e.rally, err = FenceFrom(blackboard, e.home); err != nil {
		return nil, err
	}
	return e.encode()
}

type exporter struct {
	trees map[string]*bt.NodeDef
	home  *[3]float64
	items []Item
	group []member
	speed float64
	first *[2]float64 // the first position flown
	fence []Zone
	rally [][3]float64
	fly   bool // an UploadPlan was met: the autopilot flies the plan
}

// member is one node of the item being gathered.
type member struct {
	n     *bt.NodeDef
	path  string
	key   string // "item N" of an imported leaf, else the path
	cmd   string // the command its name gives
	after bool   // follows a GoTo group directly (a Wait's hold)
}

var labelRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(item [0-9]+): ([A-Z_0-9]+)`) })

func homeFrom(v any) *[3]float64 {
	l, ok := v.([]any)
	if !ok || len(l) != 3 {
		return nil
	}
	var h [3]float64
	for i, x := range l {
		f, ok := x.(float64)
		if !ok {
			return nil
		}
		h[i] = f
	}
	return &h
}

func (e *exporter) walk(n *bt.NodeDef, path string, depth int) error {
	if depth > 64 {
		return fmt.Errorf("%s: nested too deep", path)
	}
	m := labelRE().FindStringSubmatch(n.Name)
	switch n.Type {
	case "MemSequence", "SequenceWithMemory":
		for i, c := range n.Children {
			if err := e.walk(c, path+"/children/"+strconv.Itoa(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case "SubTree":
		name, _ := n.Params["tree"].(string)
		t := e.trees[name]
		if t == nil {
			return fmt.Errorf("%s: SubTree %q is not in the mission", path, name)
		}
		return e.walk(t, "/trees/"+name, depth+1)
	case "Repeater":
		if m != nil && m[2] == cmdNames[CmdNavLoiterTurns] {
			break // a loiter circle: a member of its item
		}
		count, _ := n.Params["count"].(float64)
		if !whole(count) || count < 1 || len(n.Children) != 1 {
			return fmt.Errorf("%s: a Repeater of %v: a plan repeats a whole number of times (DO_JUMP), never forever", path, n.Params["count"])
		}
		if err := e.flush(); err != nil {
			return err
		}
		start := len(e.items)
		if err := e.walk(n.Children[0], path+"/children/0", depth+1); err != nil {
			return err
		}
		if err := e.flush(); err != nil {
			return err
		}
		if len(e.items) == start {
			return fmt.Errorf("%s: a Repeater over nothing a plan flies", path)
		}
		e.add(Item{Command: CmdDoJump, Frame: FrameMission, Params: [7]float64{float64(e.items[start].JumpID), count - 1}})
		return nil
	case "GpsFix", "Arm", "Disarm", "Armed", "InAir", "Log", RunMissionLeaf:
		return nil
	case UploadPlanLeaf:
		if err := e.flush(); err != nil {
			return err
		}
		items, err := itemsFrom(n.Params["mission"], path+"/params/mission")
		if err != nil {
			return err
		}
		for _, it := range items {
			e.add(it)
		}
		e.fly = true
		return nil
	}
	if len(n.Children) > 0 && n.Type != "Repeater" {
		return fmt.Errorf("%s: %s: a plan is a sequence of items; it cannot say what a %s does", path, n.Type, n.Type)
	}
	mem := member{n: n, path: path, key: path}
	if m != nil {
		mem.key, mem.cmd = m[1], m[2]
	}
	if len(e.group) > 0 && e.group[len(e.group)-1].key != mem.key {
		last := e.group[len(e.group)-1]
		mem.after = last.n.Type == "GoTo" && mem.cmd == "" && n.Type == "Wait"
		if !mem.after {
			if err := e.flush(); err != nil {
				return err
			}
		}
	}
	e.group = append(e.group, mem)
	return nil
}

// flush turns the gathered nodes into items.
func (e *exporter) flush() error {
	g := e.group
	e.group = nil
	if len(g) == 0 {
		return nil
	}
	cmd := g[0].cmd
	find := func(typ string) *bt.NodeDef {
		for _, m := range g {
			if m.n.Type == typ {
				return m.n
			}
		}
		return nil
	}
	fail := func(f string, a ...any) error {
		return fmt.Errorf("%s: %s", g[0].path, fmt.Sprintf(f, a...))
	}
	goTo, wait := find("GoTo"), find("Wait")
	var it Item
	var err error
	switch {
	case g[0].n.Type == "Takeoff":
		if len(g[0].n.Name) >= 9 && g[0].n.Name[:9] == "takeoff (" {
			return nil // written by the import: PX4 takes off by itself
		}
		alt, _ := g[0].n.Params["alt"].(float64)
		it = Item{Command: CmdNavTakeoff, Frame: FrameGlobalRelative}
		it.Params = [7]float64{0, 0, 0, math.NaN(), 0, 0, alt}
		if e.home != nil {
			it.Params[4], it.Params[5] = e.home[0], e.home[1]
		}
	case cmd == cmdNames[CmdNavLand] || g[0].n.Type == "Land":
		it = Item{Command: CmdNavLand, Frame: FrameGlobalRelative, Params: [7]float64{0, 0, 0, math.NaN()}}
		if goTo != nil {
			if it.Params[4], it.Params[5], _, err = e.position(goTo, g[0].path); err != nil {
				return err
			}
		}
	case g[0].n.Type == "ReturnHome":
		it = Item{Command: CmdNavReturnHome, Frame: FrameMission}
	case g[0].n.Type == "Set" && g[0].n.Params["key"] == SpeedKey:
		v, _ := g[0].n.Params["value"].(float64)
		e.speed = v
		it = Item{Command: CmdDoChangeSpeed, Frame: FrameMission, Params: [7]float64{1, v, -1}}
	case g[0].n.Type == "Succeed" && cmd == cmdNames[CmdDoChangeSpeed]:
		it = Item{Command: CmdDoChangeSpeed, Frame: FrameMission, Params: [7]float64{1, -1, -1}}
	case g[0].n.Type == CommandLeaf:
		it, err = commandItem(g[0])
		if err != nil {
			return err
		}
	case goTo != nil:
		return e.flight(g, cmd, goTo, wait)
	default:
		return fail("%s: no plan item flies it", g[0].n.Type)
	}
	e.add(it)
	return nil
}

// flight writes the item of a group that flies to a point.
func (e *exporter) flight(g []member, cmd string, goTo, wait *bt.NodeDef) error {
	lat, lon, alt, err := e.position(goTo, g[0].path)
	if err != nil {
		return err
	}
	if s, ok := goTo.Params["speed"].(float64); ok && s != e.speed {
		e.speed = s
		e.add(Item{Command: CmdDoChangeSpeed, Frame: FrameMission, Params: [7]float64{1, s, -1}})
	}
	it := Item{Command: CmdNavWaypoint, Frame: FrameGlobalRelative, Params: [7]float64{0, 0, 0, math.NaN(), lat, lon, alt}}
	if r, ok := goTo.Params["radius"].(float64); ok {
		it.Params[1] = r
	}
	hold := 0.0
	if wait != nil {
		ms, _ := wait.Params["ms"].(float64)
		hold = ms / 1000
	}
	for _, m := range g {
		switch m.n.Type {
		case "GoTo", "Wait":
		case "Yaw":
			it.Params[3], _ = m.n.Params["heading_deg"].(float64)
		case "Running":
			cmd = cmdNames[CmdNavLoiterUnlim]
		case "Repeater":
			turns, _ := m.n.Params["count"].(float64)
			it.Command, it.Params[0], it.Params[1] = CmdNavLoiterTurns, turns, 0
			it.Params[2] = circleRadius(lat, lon, m.n)
			e.add(it)
			return nil
		default:
			return fmt.Errorf("%s: %s inside a flight item", m.path, m.n.Type)
		}
	}
	switch cmd {
	case cmdNames[CmdNavLoiterTime]:
		it.Command, it.Params[0], it.Params[1] = CmdNavLoiterTime, hold, 0
	case cmdNames[CmdNavLoiterUnlim]:
		it.Command, it.Params[1] = CmdNavLoiterUnlim, 0
	default:
		it.Params[0] = hold
	}
	e.add(it)
	return nil
}

// circleRadius reads NAV_LOITER_TURNS' radius back from the circle's
// points: the last lies north of the centre, the first tells the way round.
func circleRadius(lat, lon float64, rep *bt.NodeDef) float64 {
	if len(rep.Children) != 1 || len(rep.Children[0].Children) < 2 {
		return 0
	}
	pts := rep.Children[0].Children
	lastLat, _ := pts[len(pts)-1].Params["lat"].(float64)
	firstLon, _ := pts[0].Params["lon"].(float64)
	r := math.Round((lastLat-lat)*math.Pi/180*earthRadius*100) / 100
	if firstLon < lon {
		r = -r
	}
	return r
}

// position reads a GoTo's target: lat/lon, or x/y from the home.
func (e *exporter) position(n *bt.NodeDef, path string) (lat, lon, alt float64, err error) {
	alt, _ = n.Params["alt"].(float64)
	lat, okLat := n.Params["lat"].(float64)
	lon, okLon := n.Params["lon"].(float64)
	if !okLat || !okLon {
		x, okX := n.Params["x"].(float64)
		y, okY := n.Params["y"].(float64)
		switch {
		case !okX || !okY:
			return 0, 0, 0, fmt.Errorf("%s: GoTo: a plan needs the target as numbers (lat/lon or x/y), not %v", path, n.Params)
		case e.home == nil:
			return 0, 0, 0, fmt.Errorf("%s: GoTo flies to x/y, metres from home: give the home (-home LAT,LON,ALT) to write it as a plan's latitude and longitude", path)
		}
		lat, lon = offset(e.home[0], e.home[1], x, y)
	}
	if e.first == nil {
		e.first = &[2]float64{lat, lon}
	}
	return lat, lon, alt, nil
}

func commandItem(m member) (Item, error) {
	p := m.n.Params
	c, _ := p["command"].(float64)
	f, _ := p["frame"].(float64)
	if !whole(c) || !passThrough[int(c)] {
		return Item{}, fmt.Errorf("%s: MAVCommand: command %v is not one a plan passes through", m.path, p["command"])
	}
	it := Item{Command: int(c), Frame: int(f)}
	for k := range it.Params {
		it.Params[k] = math.NaN()
		if v, ok := p["param"+strconv.Itoa(k+1)].(float64); ok {
			it.Params[k] = v
		}
	}
	return it, nil
}

func (e *exporter) add(it Item) {
	it.Seq = len(e.items)
	it.JumpID = it.Seq + 1
	it.AutoContinue = true
	e.items = append(e.items, it)
}

// fenceSection is the geoFence as QGroundControl saves it.
func (e *exporter) fenceSection() map[string]any {
	f := fenceValue(e.fence)
	for _, l := range []string{"polygons", "circles"} {
		for _, z := range f[l].([]any) {
			z.(map[string]any)["version"] = 1
		}
	}
	f["version"] = 2
	return f
}

// encode writes the plan as QGroundControl saves one.
func (e *exporter) encode() ([]byte, error) {
	home := e.home
	if home == nil {
		home = &[3]float64{}
		if e.first != nil {
			home[0], home[1] = e.first[0], e.first[1]
		}
	}
	items := make([]any, 0, len(e.items))
	for _, it := range e.items {
		params := make([]any, 7)
		for k, v := range it.Params {
			if !math.IsNaN(v) {
				params[k] = v
			}
		}
		m := map[string]any{"type": "SimpleItem", "autoContinue": it.AutoContinue, "command": it.Command,
			"doJumpId": it.JumpID, "frame": it.Frame, "params": params}
		if isNav(it.Command) {
			m["AMSLAltAboveTerrain"], m["Altitude"], m["AltitudeMode"] = nil, it.Params[6], 1
		}
		items = append(items, m)
	}
	doc := map[string]any{
		"fileType":      "Plan",
		"version":       1,
		"groundStation": "QGroundControl",
		"geoFence":      e.fenceSection(),
		"rallyPoints":   map[string]any{"points": rallyValue(e.rally), "version": 2},
		"mission": map[string]any{
			"version": 2, "firmwareType": 12, "vehicleType": 2, "globalPlanAltitudeMode": 1,
			"cruiseSpeed": 15, "hoverSpeed": 5,
			"plannedHomePosition": []float64{home[0], home[1], home[2]},
			"items":               items,
		},
	}
	if e.fly {
		doc["fly"] = FlyAutopilot
	}
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
