package plan

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// qgc wraps items (JSON) in a plan with a home.
func qgc(items ...string) []byte {
	return []byte(`{"fileType": "Plan", "version": 1, "groundStation": "QGroundControl",
 "geoFence": {"circles": [], "polygons": [], "version": 2}, "rallyPoints": {"points": [], "version": 2},
 "mission": {"version": 2, "plannedHomePosition": [47.397742, 8.545594, 488], "items": [` + strings.Join(items, ",") + `]}}`)
}

func simple(cmd, frame int, params string) string {
	return fmt.Sprintf(`{"type": "SimpleItem", "autoContinue": true, "command": %d, "frame": %d, "params": [%s]}`, cmd, frame, params)
}

const (
	takeoff = `{"type": "SimpleItem", "autoContinue": true, "command": 22, "doJumpId": 1, "frame": 3, "params": [0, 0, 0, null, 47.397742, 8.545594, 10]}`
	wp      = `{"type": "SimpleItem", "autoContinue": true, "command": 16, "doJumpId": 2, "frame": 3, "params": [0, 0, 0, null, 47.3979, 8.5456, 10]}`
)

// importPlan parses and builds, returning every problem.
// allocated is the number of bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func importPlan(data []byte, lim Limits) string {
	p, ps := Parse(data, lim)
	if ps == nil {
		_, ps = p.Tree(lim)
	}
	if ps == nil {
		return ""
	}
	return ps.Error()
}

// Plans built to hurt are refused with a located problem, before the work
// they would cost is done.
func TestHostilePlans(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"unknown command", qgc(takeoff, simple(31000, 3, "0,0,0,0,47.3,8.5,10")), "/mission/items/1: item 1: MAV_CMD 31000 is not supported"},
		{"known but not flown", qgc(takeoff, simple(80, 3, "0,0,0,0,47.3,8.5,10")), "item 1: MAV_CMD 80 is not supported"},
		{"null latitude", qgc(takeoff, simple(16, 3, "0,0,0,null,null,8.5,10")), "/mission/items/1: item 1: MAV_CMD_NAV_WAYPOINT (16): (NaN, 8.5) is not a place on Earth"},
		{"latitude off the Earth", qgc(takeoff, simple(16, 3, "0,0,0,null,91,8.5,10")), "(91, 8.5) is not a place on Earth"},
		{"null altitude", qgc(takeoff, simple(16, 3, "0,0,0,null,47.3,8.5,null")), "item 1: MAV_CMD_NAV_WAYPOINT (16): the altitude is not a number"},
		{"terrain frame", qgc(takeoff, simple(16, 10, "0,0,0,null,47.3,8.5,10")), "item 1: MAV_CMD_NAV_WAYPOINT (16): MAV_FRAME_GLOBAL_TERRAIN_ALT (10) is not supported"},
		{"below home", qgc(takeoff, simple(16, 0, "0,0,0,null,47.3,8.5,400")), "the altitude is 88.00 m below home"},
		{"jump forever", qgc(takeoff, wp, simple(177, 2, "2,-1,0,0,0,0,0")), "/mission/items/2: item 2: MAV_CMD_DO_JUMP (177): repeats -1 times: a jump that loops forever is not flown"},
		{"absurd repeat", qgc(takeoff, wp, simple(177, 2, "2,1e9,0,0,0,0,0")), "item 2: MAV_CMD_DO_JUMP (177): repeats 1e+09 times, above the limit of 100"},
		{"jump forward", qgc(takeoff, `{"type": "SimpleItem", "autoContinue": true, "command": 177, "doJumpId": 7, "frame": 2, "params": [2, 1, 0, 0, 0, 0, 0]}`, wp), "item 1: MAV_CMD_DO_JUMP (177): jumps forward, to item 2"},
		{"jump to itself", qgc(takeoff, `{"type": "SimpleItem", "autoContinue": true, "command": 177, "doJumpId": 7, "frame": 2, "params": [7, 1, 0, 0, 0, 0, 0]}`), "item 1: MAV_CMD_DO_JUMP (177): jumps to itself: a loop forever is not flown"},
		{"jump nowhere", qgc(takeoff, wp, simple(177, 2, "99,1,0,0,0,0,0")), "jumps to 99, which no item of the plan is"},
		{"structure scan", qgc(takeoff, `{"type": "ComplexItem", "complexItemType": "StructureScan", "version": 3}`), `complex item "StructureScan" is not supported`},
		{"a fence that excludes home", []byte(strings.Replace(string(qgc(takeoff)), `"polygons": []`, `"polygons": [{"inclusion": true, "polygon": [[47,8],[47.1,8],[47.1,8.1]], "version": 1}]`, 1)), "/geoFence/polygons/0: geoFence polygon 0 (inclusion) leaves the plan's home (47.397742, 8.545594) outside, by 4"},
		{"loiter turns forever", qgc(takeoff, simple(18, 3, "1e9,0,5,0,47.3,8.5,10")), "1e+09 turns: botd flies whole turns, 1 to 100"},
		{"wpl nan", []byte("QGC WPL 110\n0\t1\t3\t16\t0\t0\t0\t0\tnan\t8.5\t10\t1\n"), "line 2: item 0: MAV_CMD_NAV_WAYPOINT (16): (NaN, 8.5) is not a place on Earth"},
		{"wpl short line", []byte("QGC WPL 110\n0\t1\t3\t16\t0\t0\n"), "line 2: 6 fields, want 12"},
		{"wpl above sea level without home", []byte("QGC WPL 110\n0\t1\t5\t22\t0\t0\t0\t0\t47.3\t8.5\t15\t1\n"), "line 2: item 0: MAV_CMD_NAV_TAKEOFF (22): MAV_FRAME_GLOBAL_INT (5) gives the altitude above sea level, and the plan has no home altitude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := importPlan(tc.data, Limits{}); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// 100,000 items are refused by the byte limit (1 MiB) before anything is
// parsed; let in by a raised byte limit, by their count, before any item
// is decoded (a linear scan of the bytes: 0.2 s for the 13 MB plan, about
// 1 s under the race detector), and the same for a waypoint file.
func TestHostileItemCount(t *testing.T) {
	items := make([]string, 100_000)
	var wpl strings.Builder
	wpl.WriteString("QGC WPL 110\n")
	for i := range items {
		items[i] = wp
		fmt.Fprintf(&wpl, "%d\t0\t3\t16\t0\t0\t0\t0\t47.3\t8.5\t10\t1\n", i+1)
	}
	for name, data := range map[string][]byte{"plan": qgc(items...), "wpl": []byte(wpl.String())} {
		// Refused by its size before any decoding: the cost is that of
		// the refusal, not of the 13 MB (measured in bytes allocated, which
		// a loaded machine does not change; time would).
		var got string
		if alloc := allocated(func() { got = importPlan(data, Limits{}) }); !strings.Contains(got, "above the limit of 1048576") || alloc > 64<<10 {
			t.Errorf("%s: got %q, allocating %d bytes", name, got, alloc)
		} else {
			t.Logf("%s: %d bytes refused by their size, allocating %d bytes", name, len(data), alloc)
		}
		start := time.Now()
		got = importPlan(data, Limits{Bytes: 64 << 20})
		if !strings.Contains(got, "above the limit of 5000") {
			t.Errorf("%s: got %q", name, got)
		}
		t.Logf("%s: %d bytes refused by their count in %v", name, len(data), time.Since(start))
	}
	if got := importPlan(qgc(wp), Limits{Bytes: 100}); !strings.Contains(got, "above the limit of 100") {
		t.Errorf("byte limit: got %q", got)
	}
}

// Two jumps whose ranges cross cannot be one tree of repeats.
func TestJumpRangesMustNest(t *testing.T) {
	w := func(id int) string {
		return fmt.Sprintf(`{"type": "SimpleItem", "autoContinue": true, "command": 16, "doJumpId": %d, "frame": 3, "params": [0, 0, 0, null, 47.3979, 8.5456, 10]}`, id)
	}
	j := func(id, target int) string {
		return fmt.Sprintf(`{"type": "SimpleItem", "autoContinue": true, "command": 177, "doJumpId": %d, "frame": 2, "params": [%d, 1, 0, 0, 0, 0, 0]}`, id, target)
	}
	crossed := qgc(takeoff, w(2), w(3), j(4, 2), w(5), j(6, 3))
	if got := importPlan(crossed, Limits{}); !strings.Contains(got, "overlaps the range of the jump at item 3") {
		t.Errorf("got %q", got)
	}
	nested := qgc(takeoff, w(2), w(3), j(4, 3), w(5), j(6, 2))
	if got := importPlan(nested, Limits{}); got != "" {
		t.Errorf("nested: %s", got)
	}
}

// A corridor scan is flattened like a survey; a generated item botd
// cannot fly is located inside its complex item.
func TestComplexItems(t *testing.T) {
	corridor := `{"type": "ComplexItem", "complexItemType": "CorridorScan", "version": 3, "TransectStyleComplexItem": {"Items": [` +
		simple(16, 3, "0,0,0,null,47.3979,8.5456,10") + `,` + simple(206, 2, "25,0,1,0,0,0,0") + `,` + simple(16, 3, "0,0,0,null,47.3981,8.5456,10") + `]}}`
	p, ps := Parse(qgc(takeoff, corridor), Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	var cmds []int
	for _, it := range p.Items {
		cmds = append(cmds, it.Command)
	}
	if fmt.Sprint(cmds) != "[22 16 206 16]" || p.Items[3].Path != "/mission/items/1/TransectStyleComplexItem/Items/2" {
		t.Errorf("got %v, last at %s", cmds, p.Items[3].Path)
	}
	bad := strings.Replace(corridor, `"command": 206`, `"command": 31000`, 1)
	if got := importPlan(qgc(takeoff, bad), Limits{}); !strings.Contains(got, "/mission/items/1/TransectStyleComplexItem/Items/1: item 2: MAV_CMD 31000 is not supported") {
		t.Errorf("got %q", got)
	}
}
