package bt

import "math"

var distanceControllerType = NodeType{
	Name: "DistanceController", Kind: Decorator, ChildReset: ChildResetNever,
	Doc: "As in Nav2, with the robot's position read from the blackboard (`x_key`, `y_key`): when it starts afresh it notes the " +
		"position and ticks the child at once; afterwards it ticks the child while the child runs, and otherwise only once the robot " +
		"has moved `distance` metres from where the child last succeeded, returning RUNNING in between. FAILURE when the position " +
		"is not on the blackboard or the child fails. The frames are accepted and not used.",
	Params: []Param{
		{Name: "distance", Type: TNumber, Default: 1.0, Min: Float(0), Unit: "m", Doc: "distance between two runs of the child"},
		{Name: "global_frame", Type: TString, Doc: "not used (Nav2's TF frame)"},
		{Name: "robot_base_frame", Type: TString, Doc: "not used (Nav2's TF frame)"},
		{Name: "x_key", Type: TKey, Default: "pose.x", Doc: "the robot's x position (m)"},
		{Name: "y_key", Type: TKey, Default: "pose.y", Doc: "the robot's y position (m)"},
	},
	New: func(b *Builder) Behavior {
		return &distanceController{distance: b.Number("distance"), x: b.KeyParam("x_key"), y: b.KeyParam("y_key"),
			mem: Reserve[distanceMem](b)}
	},
}

type distanceController struct {
	distance Num
	x, y     Slot
	mem      Mem[distanceMem]
}

type distanceMem struct {
	held           HeldMem
	startX, startY float64
	first          bool
}

func (d *distanceController) pose(a *Agent) (x, y float64, ok bool) {
	x, ok1 := a.BB.Number(d.x)
	y, ok2 := a.BB.Number(d.y)
	return x, y, ok1 && ok2
}

func (d *distanceController) Tick(a *Agent, n *Node) Status {
	m := d.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		x, y, ok := d.pose(a)
		if !ok {
			return Failure
		}
		m.startX, m.startY, m.first = x, y, true
	}
	x, y, ok := d.pose(a)
	if !ok {
		return Failure
	}
	dist, ok := d.distance.Get(a)
	if !ok {
		a.Emit(n.Index, "error", "DistanceController: distance: "+a.NumProblem(d.distance, "a number"))
		return Error
	}
	child := n.Children[0]
	if !m.first && !a.IsOpen(child) && math.Hypot(x-m.startX, y-m.startY) < dist {
		return Running
	}
	m.first = false
	switch st := a.Exec(child); st {
	case Success:
		if m.startX, m.startY, ok = d.pose(a); !ok {
			return Failure
		}
		return Success
	case Running, Error:
		return st
	}
	return Failure
}
