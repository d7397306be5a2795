package missions

import (
	"path/filepath"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/plan"
)

// decodePlan imports a QGroundControl plan or a Mission Planner waypoint
// file (package plan) as a generated mission: one tree, "main", that flies
// the plan's items with botd's UAV leaves. The plan's problems are located
// in the plan file (JSON pointers, or "line N").
func decodePlan(data []byte, file string, ps *problems) *Document {
	lim := plan.Limits{Bytes: ps.lim.DocumentBytes, Items: ps.lim.Nodes}
	p, probs := plan.Parse(data, lim)
	if probs != nil {
		ps.list = append(ps.list, probs...)
		return nil
	}
	root, probs := p.Tree(lim)
	if probs != nil {
		ps.list = append(ps.list, probs...)
		return nil
	}
	d := &Document{Format: Format, Name: "plan", Main: "main", Trees: map[string]*bt.NodeDef{"main": root}}
	if file != "" {
		d.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if p.Home != nil {
		d.Blackboard = map[string]any{plan.HomeKey: []any{p.Home[0], p.Home[1], p.Home[2]}}
	}
	return d
}
