package bt

import (
	"sort"
	"strconv"
)

// Synth is one child a node type synthesizes from its parameters (see
// NodeType.Synthesize).
type Synth struct {
	Def *NodeDef
	// Path is the JSON pointer the definition comes from (inside the
	// node's parameters); problems inside it are reported under it.
	Path string
	// ParamPath, when set, locates Def's parameters for problems: for a
	// definition written in shorthand, like a state's {"tree": name}
	// (param -> Path/tree) or a condition written as an expression string
	// (param -> Path). By default a parameter is at Path/params/name.
	ParamPath func(param string) string
}

// NodeDefOf converts a node definition written inside a parameter (a
// decoded JSON or YAML object: type, id, name, params, children) into a
// NodeDef, reporting what is malformed with its path. It returns nil when
// v is not a node definition at all.
func (b *Builder) NodeDefOf(v any, path string) *NodeDef {
	switch x := v.(type) {
	case *NodeDef:
		return x
	case NodeDef:
		return &x
	case map[string]any:
		return b.nodeDefOfMap(x, path)
	}
	b.ErrorAt(path, "want a node definition (an object with a type), got %s", Describe(v))
	return nil
}

func (b *Builder) nodeDefOfMap(m map[string]any, path string) *NodeDef {
	d := &NodeDef{}
	ok := true
	str := func(key string, dst *string) {
		v, given := m[key]
		if !given {
			return
		}
		s, isStr := v.(string)
		if !isStr {
			b.ErrorAt(path+"/"+key, "want a string, got %s", Describe(v))
			ok = false
			return
		}
		*dst = s
	}
	str("type", &d.Type)
	str("id", &d.ID)
	str("name", &d.Name)
	if _, given := m["type"]; !given {
		b.ErrorAt(path+"/type", "missing node type")
		ok = false
	}
	if v, given := m["params"]; given && v != nil {
		p, isMap := v.(map[string]any)
		if !isMap {
			b.ErrorAt(path+"/params", "want an object, got %s", Describe(v))
			ok = false
		}
		d.Params = p
	}
	if v, given := m["children"]; given && v != nil {
		l, isList := v.([]any)
		if !isList {
			b.ErrorAt(path+"/children", "want a list of nodes, got %s", Describe(v))
			ok = false
		}
		for i, e := range l {
			cp := path + "/children/" + strconv.Itoa(i)
			if c := b.NodeDefOf(e, cp); c != nil {
				d.Children = append(d.Children, c)
			} else {
				ok = false
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "type", "id", "name", "params", "children":
		default:
			b.ErrorAt(path+"/"+pathEscape(k), "unknown field %q in a node definition (known: type, id, name, params, children)", k)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return d
}
