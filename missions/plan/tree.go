package plan

import (
	"fmt"
	"math"
	"strconv"

	"github.com/botd-project/botd/bt"
)

// Blackboard keys a generated mission sets.
const (
	// SpeedKey holds the speed the last DO_CHANGE_SPEED set (m/s).
	SpeedKey = "plan.speed"
	// HomeKey holds the plan's planned home: [lat, lon, alt above sea level].
	HomeKey = "plan.home"
)

// CommandLeaf is the node type of an item botd does not fly itself (a
// servo, a camera trigger): params command, frame and param1..param7 (a
// null param is left out). botd's leaves do not send it yet, so such a
// mission checks only with a stand-in (-substitute 'MAVCommand=Succeed').
const CommandLeaf = "MAVCommand"

// circlePoints is how many points one turn of NAV_LOITER_TURNS flies.
const circlePoints = 8

// earthRadius is the mean radius the local offsets use (m).
const earthRadius = 6371008.8

// builder turns items into nodes.
type builder struct {
	p        *Plan
	lim      Limits
	ps       *problems
	jumps    map[int]jump // by the DO_JUMP's seq
	speed    float64      // the speed GoTos fly at (0: the vehicle's own)
	alt      float64      // the altitude of the last position, above home
	haveAlt  bool
	airborne bool
}

type jump struct{ target, repeat int }

// Tree returns the tree that flies the plan: a MemSequence of a GPS check,
// arming, and one leaf (or a few) per item, each named "item N: COMMAND"
// after the item it flies. It reports every item it cannot fly, located.
func (p *Plan) Tree(lim Limits) (*bt.NodeDef, bt.Problems) {
	lim = lim.withDefaults()
	b := &builder{p: p, lim: lim, ps: &problems{}, jumps: map[int]jump{}}
	for _, it := range p.Items {
		b.check(it)
	}
	b.findJumps()
	if len(b.ps.list) > 0 {
		return nil, b.ps.list
	}
	root := &bt.NodeDef{Type: "MemSequence", Name: "plan", Children: []*bt.NodeDef{
		{Type: "GpsFix", Name: "preflight: GPS fix"},
		{Type: "Arm", Name: "preflight: arm"},
	}}
	root.Children = append(root.Children, b.build(0, len(p.Items))...)
	if len(b.ps.list) > 0 {
		return nil, b.ps.list
	}
	return root, nil
}

// check reports what is wrong with one item on its own.
func (b *builder) check(it Item) {
	c, pr := it.Command, it.Params
	where := func(f string, a ...any) {
		b.ps.invalid(it.Path, "item %d: %s: %s", it.Seq, cmdName(c), fmt.Sprintf(f, a...))
	}
	switch {
	case isNav(c):
		switch frameKind(it.Frame) {
		case "rel":
		case "amsl":
			if b.p.Home == nil {
				where("%s gives the altitude above sea level, and the plan has no home altitude to convert it", frameName(it.Frame))
			}
		default:
			where("%s is not supported (botd flies altitudes above home or above sea level)", frameName(it.Frame))
			return
		}
		if !finite(pr[6]) {
			where("the altitude is not a number")
		}
		lat, lon := pr[4], pr[5]
		switch c {
		case CmdNavTakeoff:
		case CmdNavLand:
			if (finite(lat) || finite(lon)) && !(lat == 0 && lon == 0) && !(finite(lat) && finite(lon) && validLatLon(lat, lon)) {
				where("(%v, %v) is not a place on Earth", lat, lon)
			}
		default:
			if !finite(lat) || !finite(lon) || !validLatLon(lat, lon) {
				where("(%v, %v) is not a place on Earth", lat, lon)
			}
		}
		if c != CmdNavLand && finite(pr[6]) && b.relAlt(it) < 0 {
			where("the altitude is %.2f m below home", -b.relAlt(it))
		}
		if c == CmdNavTakeoff && finite(pr[6]) && b.relAlt(it) < 1 {
			where("a take-off to %.2f m above home (botd takes off to 1 m or more)", b.relAlt(it))
		}
		switch c {
		case CmdNavWaypoint, CmdNavLoiterTime:
			if pr[0] < 0 || math.IsInf(pr[0], 0) {
				where("the hold time %v s is not a duration", pr[0])
			}
		case CmdNavLoiterTurns:
			if !whole(pr[0]) || pr[0] < 1 || pr[0] > float64(b.lim.Repeat) {
				where("%v turns: botd flies whole turns, 1 to %d", pr[0], b.lim.Repeat)
			}
			if !finite(pr[2]) || math.Abs(pr[2]) < 1 || math.Abs(pr[2]) > 10_000 {
				where("a loiter radius of %v m: botd flies 1 m to 10 km", pr[2])
			}
		}
	case c == CmdNavReturnHome, c == CmdDoChangeSpeed, c == CmdDoJump, passThrough[c]:
		if c == CmdDoChangeSpeed && finite(pr[1]) && pr[1] > 100 {
			where("a speed of %v m/s", pr[1])
		}
	default:
		b.ps.invalid(it.Path, "item %d: %s is not supported: botd cannot fly it", it.Seq, cmdName(c))
	}
}

// findJumps checks every DO_JUMP: backwards, to an item of the plan, a
// bounded number of times, and over a range that nests with the others'.
func (b *builder) findJumps() {
	byID := map[int]int{}
	for _, it := range b.p.Items {
		if _, dup := byID[it.JumpID]; !dup {
			byID[it.JumpID] = it.Seq
		}
	}
	var seqs []int
	for _, it := range b.p.Items {
		if it.Command != CmdDoJump {
			continue
		}
		fail := func(f string, a ...any) {
			b.ps.invalid(it.Path, "item %d: %s: %s", it.Seq, cmdName(CmdDoJump), fmt.Sprintf(f, a...))
		}
		target, repeat := it.Params[0], it.Params[1]
		t, ok := byID[int(target)]
		switch {
		case !whole(target) || !ok:
			fail("jumps to %v, which no item of the plan is", target)
			continue
		case t == it.Seq:
			fail("jumps to itself: a loop forever is not flown")
			continue
		case t > it.Seq:
			fail("jumps forward, to item %d: botd flies backward jumps (a repeat) only", t)
			continue
		case !whole(repeat) || repeat < 0:
			fail("repeats %v times: a jump that loops forever is not flown", repeat)
			continue
		case repeat > float64(b.lim.Repeat):
			fail("repeats %v times, above the limit of %d", repeat, b.lim.Repeat)
			continue
		}
		for _, o := range seqs {
			oj := b.jumps[o]
			// [t, seq] and [oj.target, o] must be nested or apart.
			if oj.target < t && t <= o || t < oj.target && oj.target <= it.Seq && o > it.Seq {
				fail("its range (items %d to %d) overlaps the range of the jump at item %d (items %d to %d)", t, it.Seq, o, oj.target, o)
			}
		}
		b.jumps[it.Seq] = jump{target: t, repeat: int(repeat)}
		seqs = append(seqs, it.Seq)
	}
}

// build returns the nodes of items [lo, hi), a jumped-over range as a
// Repeater.
func (b *builder) build(lo, hi int) []*bt.NodeDef {
	var out []*bt.NodeDef
	for i := lo; i < hi; i++ {
		// The outermost jump back to i that ends inside [lo, hi).
		end := -1
		for j := hi - 1; j > i; j-- {
			if jp, ok := b.jumps[j]; ok && jp.target == i {
				end = j
				break
			}
		}
		if end >= 0 {
			it := b.p.Items[end]
			body := b.build(i, end)
			out = append(out, &bt.NodeDef{Type: "Repeater", Name: label(it),
				Params:   map[string]any{"count": float64(b.jumps[end].repeat + 1)},
				Children: []*bt.NodeDef{{Type: "MemSequence", Name: label(it) + " body", Children: body}}})
			i = end
			continue
		}
		out = append(out, b.item(b.p.Items[i])...)
	}
	return out
}

func label(it Item) string {
	name := cmdNames[it.Command]
	if name == "" {
		name = strconv.Itoa(it.Command)
	}
	return "item " + strconv.Itoa(it.Seq) + ": " + name + " (" + strconv.Itoa(it.Command) + ")"
}

// relAlt is an item's altitude above home.
func (b *builder) relAlt(it Item) float64 {
	if frameKind(it.Frame) == "amsl" && b.p.Home != nil {
		return it.Params[6] - b.p.Home[2]
	}
	return it.Params[6]
}

// item returns the leaves that fly one item.
func (b *builder) item(it Item) []*bt.NodeDef {
	name, pr := label(it), it.Params
	leaf := func(typ string, params map[string]any) *bt.NodeDef {
		return &bt.NodeDef{Type: typ, Name: name, Params: params}
	}
	var out []*bt.NodeDef
	if isNav(it.Command) && it.Command != CmdNavTakeoff && it.Command != CmdNavLand && !b.airborne {
		// PX4 takes off by itself to a first item that flies: botd's
		// leaves do not, so the take-off is written out.
		out = append(out, &bt.NodeDef{Type: "Takeoff", Name: "takeoff (implicit, before " + name + ")",
			Params: map[string]any{"alt": math.Max(1, b.relAlt(it))}})
		b.airborne = true
	}
	switch it.Command {
	case CmdNavTakeoff:
		b.airborne, b.alt, b.haveAlt = true, b.relAlt(it), true
		return append(out, leaf("Takeoff", map[string]any{"alt": b.relAlt(it)}))
	case CmdNavWaypoint, CmdNavLoiterTime, CmdNavLoiterUnlim, CmdNavLoiterTurns:
		out = append(out, leaf("GoTo", b.goTo(it, pr[4], pr[5], b.relAlt(it))))
		b.alt, b.haveAlt = b.relAlt(it), true
	case CmdNavLand:
		b.airborne = false
		if finite(pr[4]) && finite(pr[5]) && !(pr[4] == 0 && pr[5] == 0) {
			if !b.haveAlt {
				b.ps.invalid(it.Path, "item %d: %s: landing at a position needs an altitude to fly there at, and no item before it gives one", it.Seq, cmdName(it.Command))
				return nil
			}
			out = append(out, leaf("GoTo", b.goTo(it, pr[4], pr[5], b.alt)))
		}
		return append(out, leaf("Land", nil))
	case CmdNavReturnHome:
		b.airborne = false
		return append(out, leaf("ReturnHome", nil))
	case CmdDoChangeSpeed:
		if !finite(pr[1]) || pr[1] <= 0 {
			return append(out, leaf("Succeed", nil)) // -1: no change
		}
		b.speed = pr[1]
		return append(out, leaf("Set", map[string]any{"key": SpeedKey, "value": pr[1]}))
	default: // passThrough
		params := map[string]any{"command": float64(it.Command), "frame": float64(it.Frame)}
		for k, v := range pr {
			if !math.IsNaN(v) {
				params["param"+strconv.Itoa(k+1)] = v
			}
		}
		return append(out, leaf(CommandLeaf, params))
	}
	switch it.Command {
	case CmdNavWaypoint:
		if pr[0] > 0 {
			out = append(out, leaf("Wait", map[string]any{"ms": math.Round(pr[0] * 1000)}))
		}
		if finite(pr[3]) && pr[3] != 0 {
			out = append(out, leaf("Yaw", map[string]any{"heading_deg": math.Mod(pr[3], 360)}))
		}
	case CmdNavLoiterTime:
		ms := 0.0
		if finite(pr[0]) {
			ms = math.Round(pr[0] * 1000)
		}
		out = append(out, leaf("Wait", map[string]any{"ms": ms}))
	case CmdNavLoiterUnlim:
		out = append(out, leaf("Running", nil))
	case CmdNavLoiterTurns:
		out = append(out, b.circle(it, name))
	}
	return out
}

func (b *builder) goTo(it Item, lat, lon, alt float64) map[string]any {
	p := map[string]any{"lat": lat, "lon": lon, "alt": alt}
	if it.Command == CmdNavWaypoint && finite(it.Params[1]) && it.Params[1] >= 0.1 {
		p["radius"] = it.Params[1]
	}
	if b.speed > 0 {
		p["speed"] = b.speed
	}
	return p
}

// circle flies NAV_LOITER_TURNS: param1 whole turns of circlePoints
// GoTos each, param3 the radius (negative: counter-clockwise).
func (b *builder) circle(it Item, name string) *bt.NodeDef {
	lat, lon, r := it.Params[4], it.Params[5], it.Params[2]
	dir := 1.0
	if r < 0 {
		dir, r = -1, -r
	}
	var pts []*bt.NodeDef
	for k := 1; k <= circlePoints; k++ {
		bearing := dir * 2 * math.Pi * float64(k) / circlePoints
		plat, plon := offset(lat, lon, r*math.Cos(bearing), r*math.Sin(bearing))
		pts = append(pts, &bt.NodeDef{Type: "GoTo", Name: name + " point " + strconv.Itoa(k), Params: b.goTo(it, plat, plon, b.relAlt(it))})
	}
	return &bt.NodeDef{Type: "Repeater", Name: name, Params: map[string]any{"count": it.Params[0]},
		Children: []*bt.NodeDef{{Type: "MemSequence", Name: name + " turn", Children: pts}}}
}

// offset moves north and east metres from a point (a local flat Earth:
// centimetres over a loiter circle's few hundred metres).
func offset(lat, lon, north, east float64) (float64, float64) {
	dlat := north / earthRadius * 180 / math.Pi
	dlon := east / (earthRadius * math.Cos(lat*math.Pi/180)) * 180 / math.Pi
	return round7(lat + dlat), round7(lon + dlon)
}

// round7 keeps what MISSION_ITEM_INT can carry (1e-7 degrees).
func round7(v float64) float64 { return math.Round(v*1e7) / 1e7 }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func whole(v float64) bool { return finite(v) && v == math.Trunc(v) }
