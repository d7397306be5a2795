package nav2

import (
	"time"

	"github.com/botd-project/botd/bt"
)

var speedControllerType = bt.NodeType{
	Name: "SpeedController", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2, with the robot's speed read from the blackboard (`speed_key`): like RateController, at a rate that follows " +
		"the speed, from `min_rate` at or below `min_speed` to `max_rate` at or above `max_speed` (a missing speed counts as 0). " +
		"It starts afresh, ticking the child at once, when the goal (`goal`, `goals`: keys whose writes it watches) changes.",
	Params: []bt.Param{
		{Name: "min_rate", Type: bt.TNumber, Default: 0.1, Min: bt.Float(0.000001), Unit: "Hz", Doc: "rate at low speed"},
		{Name: "max_rate", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0.000001), Unit: "Hz", Doc: "rate at high speed"},
		{Name: "min_speed", Type: bt.TNumber, Default: 0.0, Unit: "m/s", Doc: "speed of the lowest rate"},
		{Name: "max_speed", Type: bt.TNumber, Default: 0.5, Unit: "m/s", Doc: "speed of the highest rate"},
		{Name: "goal", Type: bt.TString, Default: "{goal}", Doc: "the goal's key"},
		{Name: "goals", Type: bt.TString, Default: "{goals}", Doc: "the goals' key"},
		{Name: "speed_key", Type: bt.TKey, Default: "odom.speed", Doc: "the robot's speed (m/s)"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		s := &speedController{goals: newGoalWatch(b), speed: b.KeyParam("speed_key"), mem: bt.Reserve[speedMem](b)}
		for i, name := range []string{"min_rate", "max_rate", "min_speed", "max_speed"} {
			v, _ := b.Raw(name)
			s.limits[i], _ = bt.AsNumber(v)
		}
		return s
	},
}

type speedController struct {
	limits [4]float64 // min_rate, max_rate, min_speed, max_speed
	goals  goalWatch
	speed  bt.Slot
	mem    bt.Mem[speedMem]
}

type speedMem struct {
	rate  rateMem
	goals goalSeen
}

// period is the tick period at the robot's current speed.
func (s *speedController) period(a *bt.Agent) int64 {
	minRate, maxRate, minSpeed, maxSpeed := s.limits[0], s.limits[1], s.limits[2], s.limits[3]
	speed, _ := a.BB.Number(s.speed)
	rate := maxRate
	switch {
	case speed < minSpeed || maxSpeed <= minSpeed:
		rate = minRate
	case speed <= maxSpeed:
		rate = minRate + (maxRate-minRate)*(speed-minSpeed)/(maxSpeed-minSpeed)
	}
	return int64(float64(time.Second) / rate)
}

func (s *speedController) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := s.mem.Of(a, n)
	r := &m.rate
	cur := s.goals.read(a)
	if !a.HeldStatus(n, &r.held) || cur != m.goals {
		r.period = int64(float64(time.Second) / s.limits[1])
		r.start, r.first, m.goals = a.Now(), true, cur
	}
	child := n.Children[0]
	elapsed := a.Now() - r.start
	if !r.first && !a.IsOpen(child) && elapsed < r.period {
		return bt.Running
	}
	r.first = false
	if elapsed >= r.period {
		r.period, r.start = s.period(a), a.Now()
	}
	return a.Exec(child)
}
