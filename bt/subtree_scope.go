package bt

import (
	"fmt"
	"sort"
	"strings"
)

// A SubTree occurrence sees the blackboard as BehaviorTree.CPP's SubTree
// does. With `autoremap` (botd's default) every key is the caller's key of
// the same name. Without it (BT.CPP's default, which the XML importer
// writes) the occurrence has a blackboard of its own: its keys are private
// to it (tree-scoped slots owned by the SubTree node), except the ports
// the SubTree node remaps: a parameter `goal: "{target}"` makes the
// subtree's key goal the caller's key target ("{=}": the same name), and
// `goal: 1.5` gives the subtree's private key goal that initial value. A
// key written "@key" is always the mission's global key (BT.CPP's root
// blackboard).

// keyScope is how the keys of one SubTree occurrence resolve.
type keyScope struct {
	parent    *keyScope // nil: the main tree's
	owner     int32     // the SubTree node
	autoremap bool
	remap     map[string]string // port -> caller's key
	literal   map[string]bool   // ports given a value: private keys
}

// resolve returns the slot of a plain (global-scoped) key name seen from
// inside the occurrence.
func (s *keyScope) resolve(c *compiler, name string) Slot {
	if strings.HasPrefix(name, "@") {
		return c.slot(ScopeGlobal, name[1:], -1)
	}
	if s == nil {
		return c.slot(ScopeGlobal, name, -1)
	}
	if to, ok := s.remap[name]; ok {
		return s.parent.resolve(c, to)
	}
	if s.autoremap && !s.literal[name] && !strings.HasPrefix(name, "_") {
		return s.parent.resolve(c, name)
	}
	return c.slot(ScopeTree, name, s.owner)
}

// subTreeOwn are the SubTree parameters that are not ports.
var subTreeOwn = map[string]bool{"tree": true, "ID": true, "autoremap": true}

// ownParams returns a SubTree's own parameters (for validation).
func subTreeOwnParams(params map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		if subTreeOwn[k] {
			out[k] = v
		}
	}
	return out
}

// subTreeScope builds the key scope of a SubTree occurrence from its
// parameters, reporting malformed ports, and gives literal ports their
// initial values.
func (c *compiler) subTreeScope(def *NodeDef, path string, idx int32) *keyScope {
	s := &keyScope{parent: c.scope, owner: idx, autoremap: true}
	if v, ok := def.Params["autoremap"].(bool); ok {
		s.autoremap = v
	}
	ports := make([]string, 0, len(def.Params))
	for k := range def.Params {
		if !subTreeOwn[k] {
			ports = append(ports, k)
		}
	}
	sort.Strings(ports)
	for _, port := range ports {
		pp := c.paramPath(path, port)
		if msg := checkKey(port); msg != "" || strings.Contains(port, ":") || strings.HasPrefix(port, "@") {
			if msg == "" {
				msg = fmt.Sprintf("port %q: a SubTree port is a plain key name", port)
			}
			c.problem(pp, CodeValidation, msg)
			continue
		}
		v := def.Params[port]
		if str, ok := v.(string); ok {
			if k, ref := RefKey(str); ref {
				if k == "=" {
					k = port
				}
				if s.remap == nil {
					s.remap = map[string]string{}
				}
				s.remap[port] = k
				continue
			}
			if strings.ContainsAny(str, "{}") {
				c.problem(pp, CodeValidation, fmt.Sprintf("want \"{key}\" or a value, got %q", str))
				continue
			}
		}
		if s.literal == nil {
			s.literal = map[string]bool{}
		}
		s.literal[port] = true
		c.t.init = append(c.t.init, initValue{slot: c.slot(ScopeTree, port, idx), v: ValueOf(v)})
	}
	return s
}
