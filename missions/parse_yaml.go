package missions

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML reads a single YAML document into the generic tree. Syntax
// errors carry the parser's line number; duplicate keys, unsupported tags,
// non-finite numbers and alias bombs are reported by path.
func parseYAML(data []byte, ps *problems) (any, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			ps.add("", CodeInvalidSyntax, "empty document")
		} else {
			ps.add("", CodeInvalidSyntax, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil, false
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			ps.add("", CodeInvalidSyntax, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		} else {
			ps.add("", CodeInvalidSyntax, "invalid YAML: line %d: a second document; a mission is one YAML document", line)
		}
		return nil, false
	}
	y := &yamlConv{ps: ps}
	v := y.value(&doc, "", 0)
	if y.stop {
		return nil, false
	}
	return v, true
}

type yamlConv struct {
	ps      *problems
	count   int
	aliased int  // values reached through an alias or a merge
	inAlias int  // > 0 while expanding one
	stop    bool // a limit was hit: the value is incomplete
}

func (y *yamlConv) value(n *yaml.Node, path string, depth int) any {
	if y.stop {
		return nil
	}
	if y.count++; y.count > y.ps.lim.Values {
		y.ps.add(path, CodeTooLarge, "the document expands to more than %d values (YAML aliases?)", y.ps.lim.Values)
		y.stop = true
		return nil
	}
	if y.inAlias > 0 {
		if y.aliased++; y.aliased > y.ps.lim.AliasValues {
			y.ps.add(path, CodeTooLarge, "YAML aliases expand to more than %d values", y.ps.lim.AliasValues)
			y.stop = true
			return nil
		}
	}
	if depth >= y.ps.lim.Depth {
		y.ps.add(path, CodeTooLarge, "nesting deeper than %d levels", y.ps.lim.Depth)
		y.stop = true
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return y.value(n.Content[0], path, depth)
	case yaml.AliasNode:
		y.inAlias++
		defer func() { y.inAlias-- }()
		return y.value(n.Alias, path, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			out = append(out, y.value(c, ptr(path, i), depth+1))
		}
		return out
	case yaml.MappingNode:
		o := newObject()
		y.mapping(o, n, path, depth)
		return o
	case yaml.ScalarNode:
		return y.scalar(n, path)
	}
	y.ps.invalid(path, "line %d: unsupported YAML node", n.Line)
	return nil
}

func (y *yamlConv) mapping(o *object, n *yaml.Node, path string, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			y.ps.invalid(path, "line %d: a mapping key must be a string", k.Line)
			continue
		}
		val := y.value(v, ptr(path, k.Value), depth+1)
		if !o.set(k.Value, val) {
			y.ps.invalid(ptr(path, k.Value), "line %d: duplicate key %q", k.Line, k.Value)
		}
	}
	for _, v := range merges {
		y.merge(o, v, path, depth)
	}
}

// merge applies a "<<" key: the merged mappings' members that the mapping
// does not define itself (the first merged mapping wins).
func (y *yamlConv) merge(o *object, v *yaml.Node, path string, depth int) {
	if y.stop || depth >= y.ps.lim.Depth {
		if !y.stop {
			y.ps.add(path, CodeTooLarge, "nesting deeper than %d levels", y.ps.lim.Depth)
			y.stop = true
		}
		return
	}
	y.inAlias++
	defer func() { y.inAlias-- }()
	for v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	srcs := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		srcs = v.Content
	}
	for _, s := range srcs {
		for s.Kind == yaml.AliasNode {
			s = s.Alias
		}
		if s.Kind != yaml.MappingNode {
			y.ps.invalid(path, "line %d: << must merge a mapping", s.Line)
			continue
		}
		m := newObject()
		y.mapping(m, s, path, depth+1)
		for _, k := range m.keys {
			o.set(k, m.m[k])
		}
	}
}

func (y *yamlConv) scalar(n *yaml.Node, path string) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!str", "!!timestamp", "!!binary":
		if y.ps.longString(path, n.Value) {
			return ""
		}
		return n.Value
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			y.ps.invalid(path, "line %d: %q is not a boolean", n.Line, n.Value)
		}
		return b
	case "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			y.ps.invalid(path, "line %d: %q is not a number", n.Line, n.Value)
			return nil
		}
		switch x := v.(type) {
		case int:
			return number(strconv.FormatInt(int64(x), 10))
		case int64:
			return number(strconv.FormatInt(x, 10))
		case uint64:
			return number(strconv.FormatUint(x, 10))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				y.ps.invalid(path, "line %d: want a finite number, got %s", n.Line, n.Value)
				return nil
			}
			return plainNumber(x)
		}
		y.ps.invalid(path, "line %d: %q is not a number", n.Line, n.Value)
		return nil
	}
	y.ps.invalid(path, "line %d: unsupported YAML tag %s", n.Line, n.Tag)
	return nil
}
