package nav2

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
)

// Nav2's PathLongerOnApproach, its path read from the blackboard.

var pathLongerType = bt.NodeType{
	Name: "PathLongerOnApproach", Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in Nav2, the path read from the blackboard key `path`: a list of poses, each [x, y] or [x, y, z] or an object with " +
		"x, y (z) (a pose's \"position\" object too). Ticks the child only when the path was replanned for the same goal (another " +
		"number of poses, the same last position) while the robot is near the goal (the previous path shorter than `prox_len` m) " +
		"and the new path is longer than `length_factor` times the previous one, and not on the first path after a goal change; " +
		"then returns the child's status. Otherwise SUCCESS. A path that is not such a list is ERROR.",
	Params: []bt.Param{
		{Name: "path", Type: bt.TString, Required: true, Doc: "the key holding the planned path (\"{path}\")"},
		{Name: "prox_len", Type: bt.TNumber, Default: 3.0, Unit: "m", Doc: "proximity to the goal, along the previous path"},
		{Name: "length_factor", Type: bt.TNumber, Default: 2.0, Doc: "how much longer the new path must be"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &pathLonger{path: b.PortKey("path"), prox: b.Number("prox_len"), factor: b.Number("length_factor"),
			mem: bt.Reserve[pathLongerMem](b)}
	},
}

// pathSummary is what the node keeps of a path: its pose count, length
// and last position.
type pathSummary struct {
	n      int
	length float64
	last   [3]float64
}

type pathLongerMem struct {
	old      pathSummary
	notFirst bool // Nav2's !first_time_
}

type pathLonger struct {
	path         bt.Slot
	prox, factor bt.Num
	mem          bt.Mem[pathLongerMem]
}

// summarize reads a path value; ok is false when it is not a path.
func summarize(v bt.Value) (s pathSummary, ok bool) {
	if v.Kind() == bt.KindNone {
		return s, true // no path yet: an empty one
	}
	poses, isList := v.Interface().([]any)
	if !isList {
		return s, false
	}
	var prev [3]float64
	for i, p := range poses {
		pos, ok := position(p)
		if !ok {
			return s, false
		}
		if i > 0 {
			s.length += math.Sqrt((pos[0]-prev[0])*(pos[0]-prev[0]) + (pos[1]-prev[1])*(pos[1]-prev[1]) + (pos[2]-prev[2])*(pos[2]-prev[2]))
		}
		prev = pos
	}
	s.n, s.last = len(poses), prev
	return s, true
}

// position reads a pose: [x, y], [x, y, z], {x, y, z} or {position: ...}.
func position(p any) (out [3]float64, ok bool) {
	switch t := p.(type) {
	case []any:
		if len(t) < 2 || len(t) > 3 {
			return out, false
		}
		for i, c := range t {
			if out[i], ok = bt.AsNumber(c); !ok {
				return out, false
			}
		}
		return out, true
	case map[string]any:
		if inner, has := t["position"]; has {
			return position(inner)
		}
		for i, k := range [...]string{"x", "y", "z"} {
			c, has := t[k]
			if !has {
				if i < 2 {
					return out, false
				}
				continue
			}
			if out[i], ok = bt.AsNumber(c); !ok {
				return out, false
			}
		}
		return out, true
	}
	return out, false
}

func (p *pathLonger) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := p.mem.Of(a, n)
	var v bt.Value
	if p.path != bt.NoSlot {
		v = a.BB.Get(p.path)
	}
	cur, ok := summarize(v)
	prox, okP := p.prox.Get(a)
	factor, okF := p.factor.Get(a)
	if !ok || !okP || !okF {
		var why string
		switch {
		case !okP:
			why = "prox_len: " + a.NumProblem(p.prox, "a number")
		case !okF:
			why = "length_factor: " + a.NumProblem(p.factor, "a number")
		case p.path == bt.NoSlot:
			why = "no path key given"
		default:
			why = fmt.Sprintf("path: %q holds %s, not a path (a list of poses with x and y)", a.BB.Key(p.path).Name, bt.DescribeValue(v))
		}
		a.Emit(n.Index, "error", "PathLongerOnApproach: "+why)
		return bt.Error
	}
	old := m.old
	if m.notFirst && (old.n == 0 || cur.n == 0 || old.last != cur.last) {
		m.notFirst = false // a new goal: the first path again
	}
	updated := old.n != 0 && cur.n != 0 && cur.n != old.n && old.last == cur.last
	if updated && old.length < prox && cur.length > factor*old.length && m.notFirst {
		st := a.Exec(n.Children[0])
		if st == bt.Success || st == bt.Failure || st == bt.Error {
			m.old = cur
		}
		return st
	}
	m.old, m.notFirst = cur, true
	return bt.Success
}
