package missions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// Resolved is the mission's document in botd's own form with the nodes
// that stand in for others written in place (Origin.Compile's: an
// imported file's node that fails only when it runs becomes the Fault it
// runs as): it loads, strictly, to the same tree. A document sent to the
// daemon or kept in its journal is in this form, which no longer knows
// the file it was imported from; without stand-ins it is the document
// itself.
func (m *Mission) Resolved() (*Document, error) {
	if len(m.standIns) == 0 {
		return m.Doc, nil
	}
	js, err := m.Doc.JSON()
	if err != nil {
		return nil, err
	}
	d, err := Decode(js)
	if err != nil {
		return nil, fmt.Errorf("missions: the document's own form does not decode: %w", err)
	}
	for _, r := range m.standIns {
		def := defAtPointer(d.Trees, r.Pattern)
		if def == nil {
			return nil, fmt.Errorf("missions: no node at %s to stand in for", r.Pattern)
		}
		with := r.With
		with.Name = def.Name
		*def = with
	}
	return d, nil
}

// defAtPointer is the node at a JSON pointer /trees/NAME/children/i/...,
// nil when there is none.
func defAtPointer(trees map[string]*bt.NodeDef, path string) *bt.NodeDef {
	rest, ok := strings.CutPrefix(path, "/trees/")
	if !ok {
		return nil
	}
	tok := strings.Split(rest, "/")
	n := trees[strings.ReplaceAll(strings.ReplaceAll(tok[0], "~1", "/"), "~0", "~")]
	for i := 1; n != nil && i < len(tok); i += 2 {
		if tok[i] != "children" || i+1 >= len(tok) {
			return nil
		}
		k, err := strconv.Atoi(tok[i+1])
		if err != nil || k < 0 || k >= len(n.Children) {
			return nil
		}
		n = n.Children[k]
	}
	return n
}

// DefAt follows a compiled node's JSON pointer (/trees/{name}/children/
// {i}/...) in d; nil when the path goes elsewhere (a node synthesized from
// its parent's parameters).
func DefAt(d *Document, path string) *bt.NodeDef {
	if d == nil || !strings.HasPrefix(path, "/trees/") {
		return nil
	}
	parts := strings.Split(path[len("/trees/"):], "/")
	name := strings.ReplaceAll(strings.ReplaceAll(parts[0], "~1", "/"), "~0", "~")
	def := d.Trees[name]
	for i := 1; def != nil && i < len(parts); i += 2 {
		if parts[i] != "children" || i+1 >= len(parts) {
			return nil
		}
		k, err := strconv.Atoi(parts[i+1])
		if err != nil || k < 0 || k >= len(def.Children) {
			return nil
		}
		def = def.Children[k]
	}
	return def
}
