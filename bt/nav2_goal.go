package bt

// Nav2's goal nodes compare the goal (a pose message) with the one they
// saw last. botd's goal is whatever the blackboard keys `goal` and `goals`
// hold; a goal counts as changed when its key was written (or removed)
// since, by the write's time stamp.

// goalParams are the ports every goal node has.
var goalParams = []Param{
	{Name: "goal", Type: TString, Default: "{goal}", Doc: "the goal's key"},
	{Name: "goals", Type: TString, Default: "{goals}", Doc: "the goals' key"},
}

// goalWatch reads the write stamps of the goal keys.
type goalWatch struct{ goal, goals Slot }

// goalSeen is what a goal node remembers of the goal keys.
type goalSeen struct {
	goal, goals       int64 // write stamps
	hasGoal, hasGoals bool
}

func newGoalWatch(b *Builder) goalWatch {
	return goalWatch{goal: b.portKey("goal"), goals: b.portKey("goals")}
}

func (g goalWatch) read(a *Agent) goalSeen {
	var s goalSeen
	if g.goal != NoSlot {
		s.goal, s.hasGoal = a.BB.Stamp(g.goal)
	}
	if g.goals != NoSlot {
		s.goals, s.hasGoals = a.BB.Stamp(g.goals)
	}
	return s
}

var goalUpdatedType = NodeType{
	Name: "GoalUpdated", Kind: Leaf, Category: "condition",
	Doc: "As in Nav2: when it starts afresh notes the goal and returns FAILURE; afterwards SUCCESS on each tick that finds the goal " +
		"changed since it last looked, else FAILURE.",
	Params: goalParams,
	New:    func(b *Builder) Behavior { return &goalUpdated{goals: newGoalWatch(b), mem: Reserve[goalMem](b)} },
}

var globalUpdatedGoalType = NodeType{
	Name: "GlobalUpdatedGoal", Kind: Leaf, Category: "condition",
	Doc: "As in Nav2: SUCCESS the first time it runs in the mission; afterwards SUCCESS on each tick that finds the goal changed " +
		"since it last looked, else FAILURE.",
	Params: goalParams,
	New: func(b *Builder) Behavior {
		return &goalUpdated{goals: newGoalWatch(b), mem: Reserve[goalMem](b), global: true}
	},
}

type goalUpdated struct {
	goals  goalWatch
	global bool // GlobalUpdatedGoal: first run is SUCCESS, kept for the mission
	mem    Mem[goalMem]
}

type goalMem struct {
	held    HeldMem
	seen    goalSeen
	started bool
	updated bool
}

func (g *goalUpdated) Tick(a *Agent, n *Node) Status {
	m := g.mem.Of(a, n)
	cur := g.goals.read(a)
	fresh := !a.HeldStatus(n, &m.held)
	if g.global {
		fresh = !m.started
	}
	if fresh {
		m.seen, m.started = cur, true
		if g.global {
			return Success
		}
		return Failure
	}
	if cur != m.seen {
		m.seen = cur
		return Success
	}
	return Failure
}

var goalUpdatedControllerType = NodeType{
	Name: "GoalUpdatedController", Kind: Decorator, ChildReset: ChildResetNever,
	Doc: "As in Nav2: ticks the child when it starts afresh, while the child runs, and whenever the goal has changed; otherwise " +
		"returns RUNNING without ticking it.",
	Params: goalParams,
	New: func(b *Builder) Behavior {
		return &goalUpdatedController{goals: newGoalWatch(b), mem: Reserve[goalMem](b)}
	},
}

type goalUpdatedController struct {
	goals goalWatch
	mem   Mem[goalMem]
}

func (g *goalUpdatedController) Tick(a *Agent, n *Node) Status {
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
		return Running
	}
	m.updated = false
	return a.Exec(child)
}

var goalUpdaterType = NodeType{
	Name: "GoalUpdater", Kind: Decorator, ChildReset: ChildResetNever,
	Doc: "As in Nav2, with the goal updates read from the blackboard instead of a topic: writes to `output_goal` the value of " +
		"`update_key` when it was written no earlier than `input_goal`, else `input_goal` (likewise `output_goals` from " +
		"`updates_key` and `input_goals`), then ticks the child and returns its status.",
	Params: []Param{
		{Name: "input_goal", Type: TString, Doc: "the original goal (\"{key}\")"},
		{Name: "output_goal", Type: TString, Doc: "where the goal to use is written (\"{key}\")"},
		{Name: "input_goals", Type: TString, Doc: "the original goals (\"{key}\")"},
		{Name: "output_goals", Type: TString, Doc: "where the goals to use are written (\"{key}\")"},
		{Name: "update_key", Type: TKey, Default: "goal_update", Doc: "where goal updates arrive (Nav2's goal_update topic)"},
		{Name: "updates_key", Type: TKey, Default: "goals_update", Doc: "where goals updates arrive (Nav2's goals_update topic)"},
	},
	New: func(b *Builder) Behavior {
		return &goalUpdater{pairs: [2][3]Slot{
			{b.portKey("input_goal"), b.portKey("output_goal"), b.KeyParam("update_key")},
			{b.portKey("input_goals"), b.portKey("output_goals"), b.KeyParam("updates_key")},
		}}
	},
}

// goalUpdater's pairs are input, output and update keys (NoSlot: absent).
type goalUpdater struct{ pairs [2][3]Slot }

func (g *goalUpdater) Tick(a *Agent, n *Node) Status {
	for _, p := range g.pairs {
		in, out, upd := p[0], p[1], p[2]
		if out == NoSlot {
			continue
		}
		v := Value{}
		var inStamp int64
		if in != NoSlot {
			v = a.BB.Get(in)
			inStamp, _ = a.BB.Stamp(in)
		}
		if upd != NoSlot {
			if stamp, ok := a.BB.Stamp(upd); ok && (v.Kind() == KindNone || stamp >= inStamp) {
				v = a.BB.Get(upd)
			}
		}
		if v.Kind() != KindNone {
			a.BB.Set(out, v)
		}
	}
	return a.Exec(n.Children[0])
}
