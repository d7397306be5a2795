package drivers

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// decodeConfig reads the YAML document into a Config without defaults or validation. Every
// device's section is decoded by its kind into that kind's own struct; unknown fields and
// mistyped values are reported with their paths.
func decodeConfig(kinds *Registry, data []byte) (*Config, ConfigErrors) {
	var root yaml.Node
	v := &Validator{}
	if err := yaml.Unmarshal(data, &root); err != nil {
		v.Errorf("", "%v", err)
		return nil, v.errs
	}
	if len(root.Content) == 0 {
		v.Errorf("", "empty robot config")
		return nil, v.errs
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		v.Errorf("", "line %d: a robot config is a mapping with adaptors and devices", doc.Line)
		return nil, v.errs
	}
	cfg := &Config{Adaptors: map[string]*AdaptorConfig{}, Kinds: kinds}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, val := doc.Content[i].Value, doc.Content[i+1]
		switch key {
		case "adaptors":
			decodeAdaptors(v, val, cfg)
		case "devices":
			decodeDevices(v, val, cfg)
		default:
			v.Errorf(key, "unknown field (known: adaptors, devices)")
		}
	}
	return cfg, v.errs
}

func decodeAdaptors(v *Validator, n *yaml.Node, cfg *Config) {
	if n.Kind != yaml.MappingNode {
		v.Errorf("adaptors", "want a mapping of board names to boards, e.g. {board: {kind: sim}}")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		a := &AdaptorConfig{}
		if decodeSection(v, "adaptors."+name, n.Content[i+1], a, nil) {
			cfg.Adaptors[name] = a
		}
	}
}

func decodeDevices(v *Validator, n *yaml.Node, cfg *Config) {
	if n.Kind != yaml.SequenceNode {
		v.Errorf("devices", "want a list of devices")
		return
	}
	for i, dn := range n.Content {
		path := fmt.Sprintf("devices[%d]", i)
		cfg.Devices = append(cfg.Devices, decodeDevice(v, cfg.Kinds, path, dn))
	}
}

// common are the fields every device has; the rest of its mapping is the kind's section.
var common = map[string]bool{"name": true, "kind": true, "adaptor": true}

func decodeDevice(v *Validator, kinds *Registry, path string, n *yaml.Node) *DeviceConfig {
	d := &DeviceConfig{}
	if n.Kind != yaml.MappingNode {
		v.Errorf(path, "line %d: want a mapping with name, kind and the kind's fields", n.Line)
		return d
	}
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !common[k.Value] {
			rest.Content = append(rest.Content, k, val)
			continue
		}
		if val.Kind != yaml.ScalarNode {
			v.Errorf(path+"."+k.Value, "want a string")
			continue
		}
		switch k.Value {
		case "name":
			d.Name = val.Value
		case "kind":
			d.Kind = val.Value
		case "adaptor":
			d.Adaptor = val.Value
		}
	}
	kind, ok := kinds.Kind(d.Kind)
	if !ok {
		return d // Validate reports the kind
	}
	spec := kind.New()
	if decodeSection(v, path, rest, spec, common) {
		d.Spec = spec
	}
	return d
}

var lineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (.*)$`) })

// decodeSection decodes a mapping into out (a pointer to a struct with yaml tags), reporting
// unknown fields and type errors with their paths. extra are field names the caller handles.
func decodeSection(v *Validator, path string, n *yaml.Node, out any, extra map[string]bool) bool {
	if n.Kind != yaml.MappingNode {
		v.Errorf(path, "line %d: want a mapping", n.Line)
		return false
	}
	lines := map[int]string{}
	before := len(v.errs)
	checkFields(v, path, n, reflect.TypeOf(out).Elem(), extra, lines)
	if len(v.errs) > before {
		return false
	}
	err := n.Decode(out)
	var te *yaml.TypeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &te):
		for _, msg := range te.Errors {
			p := path
			if m := lineRE().FindStringSubmatch(msg); m != nil {
				line, _ := strconv.Atoi(m[1])
				if lp, ok := lines[line]; ok {
					p = lp
				}
				msg = fmt.Sprintf("%s (line %d)", m[2], line)
			}
			v.Errorf(p, "%s", msg)
		}
	default:
		v.Errorf(path, "%v", err)
	}
	return false
}

// checkFields reports keys of n that t (a struct type) has no field for, recursing into nested
// structs, and records the path of every value's line.
func checkFields(v *Validator, path string, n *yaml.Node, t reflect.Type, extra map[string]bool, lines map[int]string) {
	fields := YAMLFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := path + "." + k.Value
		lines[val.Line] = p
		ft, ok := fields[k.Value]
		if !ok {
			if !extra[k.Value] {
				v.Errorf(p, "unknown field (known: %s)", strings.Join(fieldNames(fields, extra), ", "))
			}
			continue
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && val.Kind == yaml.MappingNode {
			checkFields(v, p, val, ft, nil, lines)
		}
	}
}

// YAMLFields maps the yaml names of a struct's fields (inline structs flattened) to their
// types: what a section of a config may hold. The daemon's own config is checked with it too.
func YAMLFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, ft := range YAMLFields(f.Type) {
				out[k] = ft
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func fieldNames(fields map[string]reflect.Type, extra map[string]bool) []string {
	out := make([]string, 0, len(fields)+len(extra))
	for k := range fields {
		out = append(out, k)
	}
	for k := range extra {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
