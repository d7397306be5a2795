package plan

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// annotate (the format's Codec.Annotate) puts the plan item in front of
// each problem found in a tree generated from a plan ("item 1: NAV_TAKEOFF (22): 50 is above the
// limit 30"), so a problem the compilation finds (a vehicle limit, the
// geofence, a leaf the hardware lacks) names the item too, as the
// import's own do. It goes by the names the import gives its nodes, so it
// works on the generated mission sent on as botd JSON too (botctl does).
func annotate(d *missions.Document, list bt.Problems) {
	for i, p := range list {
		if name := planNodeName(d, p.Path); name != "" {
			list[i].Message = name + ": " + p.Message
		}
	}
}

// planItemName matches the name of a node the plan import generated.
var planItemName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^item [0-9]+: [A-Z_0-9]+ \([0-9]+\)|^takeoff \(implicit, before item [0-9]+: [A-Z_0-9]+ \([0-9]+\)\)`)
})

// planNodeName is the name of the deepest node on path that is named
// after a plan item.
func planNodeName(d *missions.Document, path string) string {
	tok := strings.Split(path, "/")
	if len(tok) < 3 || tok[0] != "" || tok[1] != "trees" {
		return ""
	}
	n, found := d.Trees[tok[2]], ""
	for i := 3; n != nil; i += 2 {
		if m := planItemName().FindString(n.Name); m != "" {
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
