package missions

import (
	"math"

	"github.com/botd-project/botd/bt"
	"github.com/google/uuid"
)

var (
	docFields  = []string{"format", "id", "name", "revision", "tick_hz", "evaluation", "seed", "blackboard", "main", "trees", "resume_after_restart", "on_link_loss"}
	nodeFields = []string{"type", "id", "name", "params", "children"}
)

// decodeBotd builds a Document from the generic tree of a botd JSON or
// YAML document. A null member counts as absent. The document is returned
// even when there are problems, so Load can report compile problems too.
func decodeBotd(v any, ps *problems) *Document {
	o, ok := v.(*object)
	if !ok {
		ps.invalid("", "a mission document is an object, got %s", describe(v))
		return nil
	}
	d := &Document{}
	for _, k := range o.keys {
		val, path := o.m[k], ptr("", k)
		if val == nil {
			continue
		}
		switch k {
		case "format":
			d.Format = str(val, path, ps)
		case "id":
			d.ID = str(val, path, ps)
			if u, err := uuid.Parse(d.ID); err == nil {
				d.ID = u.String()
			}
		case "name":
			d.Name = str(val, path, ps)
		case "revision":
			d.Revision = wholeInt(val, path, ps)
		case "tick_hz":
			d.TickHz = float(val, path, ps)
		case "evaluation":
			d.Evaluation = str(val, path, ps)
		case "seed":
			d.Seed = wholeUint(val, path, ps)
		case "blackboard":
			if m, ok := obj(val, path, ps); ok {
				d.Blackboard = normalizeMap(m, path, ps)
			}
		case "main":
			d.Main = str(val, path, ps)
		case "trees":
			d.Trees = decodeTrees(val, path, ps)
		case "resume_after_restart":
			d.ResumeAfterRestart = boolean(val, path, ps)
		case "on_link_loss":
			d.OnLinkLoss = str(val, path, ps)
		default:
			ps.invalid(path, "unknown field %q%s", k, suggest(k, docFields))
		}
	}
	checkFields(d, ps)
	return d
}

func decodeTrees(v any, path string, ps *problems) map[string]*bt.NodeDef {
	o, ok := obj(v, path, ps)
	if !ok || len(o.keys) == 0 {
		return nil
	}
	trees := make(map[string]*bt.NodeDef, len(o.keys))
	for _, name := range o.keys {
		trees[name] = decodeNode(o.m[name], ptr(path, name), ps)
	}
	return trees
}

// decodeNode reads {"type", "id"?, "name"?, "params"?, "children"?}.
func decodeNode(v any, path string, ps *problems) *bt.NodeDef {
	o, ok := v.(*object)
	if !ok {
		ps.invalid(path, "want a node object, got %s", describe(v))
		return nil
	}
	n := &bt.NodeDef{}
	for _, k := range o.keys {
		val, p := o.m[k], ptr(path, k)
		if val == nil {
			continue
		}
		switch k {
		case "type":
			n.Type = str(val, p, ps)
		case "id":
			n.ID = str(val, p, ps)
		case "name":
			n.Name = str(val, p, ps)
		case "params":
			if m, ok := obj(val, p, ps); ok {
				n.Params = normalizeMap(m, p, ps)
			}
		case "children":
			l, ok := val.([]any)
			if !ok {
				ps.invalid(p, "want a list of nodes, got %s", describe(val))
				continue
			}
			for i, c := range l {
				n.Children = append(n.Children, decodeNode(c, ptr(p, i), ps))
			}
		default:
			ps.invalid(p, "unknown field %q%s", k, suggest(k, nodeFields))
		}
	}
	return n
}

// checkFields checks the values of the document-level fields. Paths that
// already have a (type) problem are skipped.
func checkFields(d *Document, ps *problems) {
	switch {
	case ps.has("/format"):
	case d.Format == "":
		ps.invalid("/format", "missing format (want %q)", Format)
	case d.Format != Format:
		ps.invalid("/format", "unsupported format %q (want %q)", d.Format, Format)
	}
	if d.ID != "" && !ps.has("/id") {
		if _, err := uuid.Parse(d.ID); err != nil {
			ps.invalid("/id", "%q is not a UUID (want the form 2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10)", d.ID)
		}
	}
	if d.Revision < 0 {
		ps.invalid("/revision", "%d is negative (revisions count from 0)", d.Revision)
	}
	if d.TickHz < 0 || math.IsNaN(d.TickHz) || math.IsInf(d.TickHz, 0) {
		ps.invalid("/tick_hz", "%v is not a tick rate (want a positive number of ticks per second)", d.TickHz)
	}
	if _, err := bt.ParseEvaluation(d.Evaluation); err != nil && !ps.has("/evaluation") {
		ps.invalid("/evaluation", "%q is not an evaluation mode (want reactive or stored-state)", d.Evaluation)
	}
	if !ps.has("/on_link_loss") {
		checkLinkLoss(d, ps)
	}
}

// Link-loss policies (PROTOCOL.md); any other value names a failsafe tree.
// land and return_home command a UAV.
var linkLossPolicies = []string{"continue", "hold", "abort", "land", "return_home"}

func checkLinkLoss(d *Document, ps *problems) {
	v := d.OnLinkLoss
	if v == "" {
		return
	}
	for _, p := range linkLossPolicies {
		if v == p {
			return
		}
	}
	if _, ok := d.Trees[v]; ok {
		return
	}
	ps.invalid("/on_link_loss", "%q is not continue, hold, abort, land, return_home or a tree of this mission", v)
}
