package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// The plan format registers itself with missions when this package is
// linked (missions/formats links it for botd and botctl): missions.Decode
// then reads .plan and QGC WPL 110 files, and `botd export -format plan`
// writes a UAV mission's flight.
func init() {
	missions.RegisterFormat(missions.Codec{Name: "plan", Doc: "a QGroundControl .plan of a UAV mission's flight",
		Annotate: annotate,
		Detect: func(s *missions.Source) bool {
			if IsPlan(s.Body) {
				return true
			}
			o := s.Object()
			return o != nil && IsPlanObject(o.Value("fileType"))
		},
		Import: func(s *missions.Source) *missions.Document {
			return decodeMission(s.Data, s.File, s.Defaults.PlanFly, s.Problems())
		},
		Export: func(d *missions.Document, o missions.ExportOptions) ([]byte, error) {
			return Export(d.Trees, d.Main, d.Blackboard, ExportOptions{Home: o.Home})
		}})
}

// decodeMission imports a QGroundControl plan or a Mission Planner waypoint
// file as a generated mission: one tree, "main", that flies
// the plan's items with botd's UAV leaves. The plan's problems are located
// in the plan file (JSON pointers, or "line N"). A .plan's optional "id"
// and "revision" members are the mission's. fly is who flies a plan that
// does not say itself (a .plan without "fly", a waypoint file): the
// daemon config's plan.fly, "" for botd.
func decodeMission(data []byte, file, fly string, ps *missions.Problems) *missions.Document {
	lim := Limits{Bytes: ps.Limits().DocumentBytes, Items: ps.Limits().Nodes}
	if fly != "" && fly != FlyBotd && fly != FlyAutopilot {
		ps.Invalid("", "the default of who flies a plan is %q: want %q or %q", fly, FlyBotd, FlyAutopilot)
		return nil
	}
	p, probs := Parse(data, lim)
	if probs != nil {
		ps.Append(probs...)
		return nil
	}
	if p.Fly == "" {
		p.Fly = fly
	}
	root, probs := p.Generate(lim)
	if probs != nil {
		ps.Append(probs...)
		return nil
	}
	d := &missions.Document{Format: missions.Format, ID: p.ID, Revision: p.Revision, Main: "main", Trees: map[string]*bt.NodeDef{"main": root}}
	// A plan has no name: the file's, else one from its content, so that
	// two plans sent without an id (botctl and the daemon derive one from
	// the name) are two missions, and the same bytes the same mission.
	if file != "" {
		d.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	} else {
		sum := sha256.Sum256(data)
		d.Name = "plan-" + hex.EncodeToString(sum[:4])
	}
	d.Blackboard = p.Blackboard() // home, geoFence and rally points
	return d
}
