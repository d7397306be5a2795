package nav2

import (
	"math"

	"github.com/botd-project/botd/bt"
)

var distanceControllerType = bt.NodeType{
	Name: "DistanceController", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2, with the robot's position read from the blackboard (`x_key`, `y_key`): when it starts afresh it notes the " +
		"position and ticks the child at once; afterwards it ticks the child while the child runs, and otherwise only once the robot " +
		"has moved `distance` metres from where the child last succeeded, returning RUNNING in between. FAILURE when the position " +
		"is not on the blackboard or the child fails. The frames are accepted and not used.",
	Params: []bt.Param{
		{Name: "distance", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0), Unit: "m", Doc: "distance between two runs of the child"},
		{Name: "global_frame", Type: bt.TString, Doc: "not used (Nav2's TF frame)"},
		{Name: "robot_base_frame", Type: bt.TString, Doc: "not used (Nav2's TF frame)"},
		{Name: "x_key", Type: bt.TKey, Default: "pose.x", Doc: "the robot's x position (m)"},
		{Name: "y_key", Type: bt.TKey, Default: "pose.y", Doc: "the robot's y position (m)"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &distanceController{distance: b.Number("distance"), x: b.KeyParam("x_key"), y: b.KeyParam("y_key"),
			mem: bt.Reserve[distanceMem](b)}
	},
}

type distanceController struct {
	distance bt.Num
	x, y     bt.Slot
	mem      bt.Mem[distanceMem]
}

type distanceMem struct {
	held           bt.HeldMem
	startX, startY float64
	first          bool
}

func (d *distanceController) pose(a *bt.Agent) (x, y float64, ok bool) {
	x, ok1 := a.BB.Number(d.x)
	y, ok2 := a.BB.Number(d.y)
	return x, y, ok1 && ok2
}

func (d *distanceController) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := d.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		x, y, ok := d.pose(a)
		if !ok {
			return bt.Failure
		}
		m.startX, m.startY, m.first = x, y, true
	}
	x, y, ok := d.pose(a)
	if !ok {
		return bt.Failure
	}
	dist, ok := d.distance.Get(a)
	if !ok {
		a.Emit(n.Index, "error", "DistanceController: distance: "+a.NumProblem(d.distance, "a number"))
		return bt.Error
	}
	child := n.Children[0]
	if !m.first && !a.IsOpen(child) && math.Hypot(x-m.startX, y-m.startY) < dist {
		return bt.Running
	}
	m.first = false
	switch st := a.Exec(child); st {
	case bt.Success:
		if m.startX, m.startY, ok = d.pose(a); !ok {
			return bt.Failure
		}
		return bt.Success
	case bt.Running, bt.Error:
		return st
	}
	return bt.Failure
}
