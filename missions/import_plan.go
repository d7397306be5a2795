package missions

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/plan"
)

// decodePlan imports a QGroundControl plan or a Mission Planner waypoint
// file (package plan) as a generated mission: one tree, "main", that flies
// the plan's items with botd's UAV leaves. The plan's problems are located
// in the plan file (JSON pointers, or "line N"). A .plan's optional "id"
// and "revision" members are the mission's.
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
	d := &Document{Format: Format, ID: p.ID, Revision: p.Revision, Main: "main", Trees: map[string]*bt.NodeDef{"main": root}}
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

// annotatePlan puts the plan item in front of each problem found in a
// tree generated from a plan ("item 1: NAV_TAKEOFF (22): 50 is above the
// limit 30"), so a problem the compilation finds (a vehicle limit, the
// geofence, a leaf the hardware lacks) names the item too, as the
// import's own do. It goes by the names the import gives its nodes, so it
// works on the generated mission sent on as botd JSON too (botctl does).
func annotatePlan(d *Document, list bt.Problems) {
	for i, p := range list {
		if name := planNodeName(d, p.Path); name != "" {
			list[i].Message = name + ": " + p.Message
		}
	}
}

// planItemName matches the name of a node the plan import generated.
var planItemName = regexp.MustCompile(`^item [0-9]+: [A-Z_0-9]+ \([0-9]+\)|^takeoff \(implicit, before item [0-9]+: [A-Z_0-9]+ \([0-9]+\)\)`)

// planNodeName is the name of the deepest node on path that is named
// after a plan item.
func planNodeName(d *Document, path string) string {
	tok := strings.Split(path, "/")
	if len(tok) < 3 || tok[0] != "" || tok[1] != "trees" {
		return ""
	}
	n, found := d.Trees[tok[2]], ""
	for i := 3; n != nil; i += 2 {
		if m := planItemName.FindString(n.Name); m != "" {
			found = m
		}
		if i+1 >= len(tok) || tok[i] != "children" {
			break
		}
		k, err := strconv.Atoi(tok[i+1])
		if err != nil || k < 0 || k >= len(n.Children) {
			break
		}
		n = n.Children[k]
	}
	return found
}
