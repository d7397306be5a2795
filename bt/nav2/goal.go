package nav2

import "github.com/botd-project/botd/bt"

// Nav2's goal nodes compare the goal (a pose message) with the one they
// saw last. botd's goal is whatever the blackboard keys `goal` and `goals`
// hold; a goal counts as changed when its key was written (or removed)
// since, by the write's time stamp.

// goalParams are the ports every goal node has.
var goalParams = []bt.Param{
	{Name: "goal", Type: bt.TString, Default: "{goal}", Doc: "the goal's key"},
	{Name: "goals", Type: bt.TString, Default: "{goals}", Doc: "the goals' key"},
}

// goalWatch reads the write stamps of the goal keys.
type goalWatch struct{ goal, goals bt.Slot }

// goalSeen is what a goal node remembers of the goal keys.
type goalSeen struct {
	goal, goals       int64 // write stamps
	hasGoal, hasGoals bool
}

func newGoalWatch(b *bt.Builder) goalWatch {
	return goalWatch{goal: b.PortKey("goal"), goals: b.PortKey("goals")}
}

func (g goalWatch) read(a *bt.Agent) goalSeen {
	var s goalSeen
	if g.goal != bt.NoSlot {
		s.goal, s.hasGoal = a.BB.Stamp(g.goal)
	}
	if g.goals != bt.NoSlot {
		s.goals, s.hasGoals = a.BB.Stamp(g.goals)
	}
	return s
}

var goalUpdatedType = bt.NodeType{
	Name: "GoalUpdated", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2: when it starts afresh notes the goal and returns FAILURE; afterwards SUCCESS on each tick that finds the goal " +
		"changed since it last looked, else FAILURE.",
	Params: goalParams,
	New: func(b *bt.Builder) bt.Behavior {
		return &goalUpdated{goals: newGoalWatch(b), mem: bt.Reserve[goalMem](b)}
	},
}

var globalUpdatedGoalType = bt.NodeType{
	Name: "GlobalUpdatedGoal", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2: SUCCESS the first time it runs in the mission; afterwards SUCCESS on each tick that finds the goal changed " +
		"since it last looked, else FAILURE.",
	Params: goalParams,
	New: func(b *bt.Builder) bt.Behavior {
		return &goalUpdated{goals: newGoalWatch(b), mem: bt.Reserve[goalMem](b), global: true}
	},
}

type goalUpdated struct {
	goals  goalWatch
	global bool // GlobalUpdatedGoal: first run is SUCCESS, kept for the mission
	mem    bt.Mem[goalMem]
}

type goalMem struct {
	held    bt.HeldMem
	seen    goalSeen
	started bool
	updated bool
}

func (g *goalUpdated) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := g.mem.Of(a, n)
	cur := g.goals.read(a)
	fresh := !a.HeldStatus(n, &m.held)
	if g.global {
		fresh = !m.started
	}
	if fresh {
		m.seen, m.started = cur, true
		if g.global {
			return bt.Success
		}
		return bt.Failure
	}
	if cur != m.seen {
		m.seen = cur
		return bt.Success
	}
	return bt.Failure
}

var goalUpdatedControllerType = bt.NodeType{
	Name: "GoalUpdatedController", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2: ticks the child when it starts afresh, while the child runs, and whenever the goal has changed; otherwise " +
		"returns RUNNING without ticking it.",
	Params: goalParams,
	New: func(b *bt.Builder) bt.Behavior {
		return &goalUpdatedController{goals: newGoalWatch(b), mem: bt.Reserve[goalMem](b)}
	},
}

type goalUpdatedController struct {
	goals goalWatch
	mem   bt.Mem[goalMem]
}

func (g *goalUpdatedController) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := g.mem.Of(a, n)
	cur := g.goals.read(a)
	if !a.HeldStatus(n, &m.held) {
		m.seen, m.updated = cur, true
	}
	if cur != m.seen {
		m.seen, m.updated = cur, true
	}
	child := n.Children[0]
	if !a.IsOpen(child) && !m.updated {
		return bt.Running
	}
	m.updated = false
	return a.Exec(child)
}

var goalUpdaterType = bt.NodeType{
	Name: "GoalUpdater", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2, with the goal updates read from the blackboard instead of a topic: writes to `output_goal` the value of " +
		"`update_key` when it was written no earlier than `input_goal`, else `input_goal` (likewise `output_goals` from " +
		"`updates_key` and `input_goals`), then ticks the child and returns its status.",
	Params: []bt.Param{
		{Name: "input_goal", Type: bt.TString, Doc: "the original goal (\"{key}\")"},
		{Name: "output_goal", Type: bt.TString, Doc: "where the goal to use is written (\"{key}\")"},
		{Name: "input_goals", Type: bt.TString, Doc: "the original goals (\"{key}\")"},
		{Name: "output_goals", Type: bt.TString, Doc: "where the goals to use are written (\"{key}\")"},
		{Name: "update_key", Type: bt.TKey, Default: "goal_update", Doc: "where goal updates arrive (Nav2's goal_update topic)"},
		{Name: "updates_key", Type: bt.TKey, Default: "goals_update", Doc: "where goals updates arrive (Nav2's goals_update topic)"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &goalUpdater{pairs: [2][3]bt.Slot{
			{b.PortKey("input_goal"), b.PortKey("output_goal"), b.KeyParam("update_key")},
			{b.PortKey("input_goals"), b.PortKey("output_goals"), b.KeyParam("updates_key")},
		}}
	},
}

// goalUpdater's pairs are input, output and update keys (NoSlot: absent).
type goalUpdater struct{ pairs [2][3]bt.Slot }

func (g *goalUpdater) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	for _, p := range g.pairs {
		in, out, upd := p[0], p[1], p[2]
		if out == bt.NoSlot {
			continue
		}
		v := bt.Value{}
		var inStamp int64
		if in != bt.NoSlot {
			v = a.BB.Get(in)
			inStamp, _ = a.BB.Stamp(in)
		}
		if upd != bt.NoSlot {
			if stamp, ok := a.BB.Stamp(upd); ok && (v.Kind() == bt.KindNone || stamp >= inStamp) {
				v = a.BB.Get(upd)
			}
		}
		if v.Kind() != bt.KindNone {
			a.BB.Set(out, v)
		}
	}
	return a.Exec(n.Children[0])
}
