package plan

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// wplHeader starts a Mission Planner waypoint file.
const wplHeader = "QGC WPL 110"

func isWPL(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.TrimLeft(data, " \t\r\n")
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return string(bytes.TrimRight(line, " \t\r")) == wplHeader
}

// parseWPL reads a QGC WPL 110 file: after the header, one item a line,
// seq current frame command param1..4 x y z autocontinue, separated by
// tabs (or spaces). Mission Planner writes the vehicle's home as the line
// of seq 0 (a NAV_WAYPOINT in frame 0): that line is the home, not an item.
// A file whose first line is anything else (MAVSDK's sample starts with a
// take-off) has no home and every line is an item.
func parseWPL(data []byte, lim Limits, ps *problems) *Plan {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &Plan{}
	lines := bytes.Split(data, []byte("\n"))
	if n := len(lines) - 1; n > lim.Items+1 {
		ps.add("", codeTooLarge, "%d lines, above the limit of %d items", n, lim.Items)
		return nil
	}
	first := true
	for i, raw := range lines[1:] {
		where := "line " + strconv.Itoa(i+2)
		line := strings.TrimSpace(string(raw))
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 12 {
			ps.invalid(where, "%d fields, want 12 (seq current frame command param1..4 x y z autocontinue)", len(f))
			continue
		}
		var v [12]float64
		bad := false
		for k, s := range f {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || (k < 4 || k == 11) && (x != math.Trunc(x) || x < 0 || x > 65535) {
				ps.invalid(where, "field %d: %q is not a number here", k+1, s)
				bad = true
				break
			}
			v[k] = x
		}
		if bad {
			continue
		}
		seq, frame, cmd := int(v[0]), int(v[2]), int(v[3])
		if first && seq == 0 && cmd == CmdNavWaypoint && frame == FrameGlobal {
			first = false
			home := [3]float64{v[8], v[9], v[10]}
			if home != ([3]float64{}) {
				if !validLatLon(home[0], home[1]) || math.IsNaN(home[2]) || math.IsInf(home[2], 0) {
					ps.invalid(where, "the home (%v, %v, %v) is not a place on Earth", home[0], home[1], home[2])
					continue
				}
				p.Home = &home
			}
			continue
		}
		first = false
		item := Item{Seq: len(p.Items), Path: where, Command: cmd, Frame: frame, AutoContinue: v[11] != 0, JumpID: seq}
		copy(item.Params[:4], v[4:8])
		copy(item.Params[4:], v[8:11])
		p.Items = append(p.Items, item)
	}
	return p
}
