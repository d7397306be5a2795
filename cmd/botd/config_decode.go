package main

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions/hint"
)

// Decoding the daemon config as the hardware section is decoded
// (drivers/config_decode.go): every unknown field and every mistyped value
// is reported at once, each with its field path, an unknown field with the
// field it is most likely a typo of. The YAML decoder's own errors name Go
// types (`field require_gsc not found in type main.FailsafeSection`),
// which say nothing to the person who wrote the file.

// decodeConfig decodes data into c and returns every problem of its shape:
// unknown fields and values of the wrong type. What it could decode is
// decoded even when some of it is wrong, so the values can be checked too;
// ok is false when nothing could be (not YAML, not a mapping).
func decodeConfig(data []byte, c *Config) (_ []error, ok bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return []error{err}, false
	}
	if len(root.Content) == 0 {
		return nil, true // an empty file is an empty config
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return []error{fmt.Errorf("line %d: a daemon config is a mapping of sections (robot, hardware, failsafe, ...)", doc.Line)}, false
	}
	var errs []error
	lines := map[int][]lineField{}
	checkConfigFields(&errs, "", doc, reflect.TypeOf(c).Elem(), lines)
	err := doc.Decode(c)
	var te *yaml.TypeError
	switch {
	case err == nil:
	case errors.As(err, &te):
		for _, msg := range te.Errors {
			errs = append(errs, typeError(msg, lines))
		}
	default:
		errs = append(errs, err)
	}
	return errs, true
}

// lineField is a field path and its scalar value, by the line it is on:
// yaml's type errors name only the line.
type lineField struct{ path, value string }

var typeErrorRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+)(?: `(.*)`)? into (.*)$")
})

// typeError turns one of yaml's type errors into a problem at its field's
// path: "failsafe.battery_low: want a number, not "high" (line 3)".
func typeError(msg string, lines map[int][]lineField) error {
	m := typeErrorRE().FindStringSubmatch(msg)
	if m == nil {
		return errors.New(msg)
	}
	line, _ := strconv.Atoi(m[1])
	path, got := "line "+m[1], m[2]
	if m[3] != "" {
		got = strconv.Quote(m[3])
	}
	fields := lines[line]
	if len(fields) > 0 {
		path = fields[0].path
	}
	short := strings.TrimSuffix(m[3], "...") // yaml cuts values past 10 bytes
	for _, f := range fields {               // a flow mapping puts several on one line
		if m[3] != "" && (f.value == m[3] || short != m[3] && strings.HasPrefix(f.value, short)) {
			path, got = f.path, strconv.Quote(f.value)
			break
		}
	}
	return fmt.Errorf("%s: want %s, not %s (line %d)", path, goTypeWord(m[4]), got, line)
}

// goTypeWord says what a Go type wants in YAML words.
func goTypeWord(t string) string {
	switch {
	case t == "time.Duration":
		return "a duration (10s, 500ms)"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return "a mapping" // a struct
}

// checkConfigFields reports the keys of n that t (a struct type) has no
// field for, with the nearest known field, recursing into the sections,
// and records each value's path by its line.
func checkConfigFields(errs *[]error, path string, n *yaml.Node, t reflect.Type, lines map[int][]lineField) {
	fields := drivers.YAMLFields(t)
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	slices.Sort(known)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := k.Value
		if path != "" {
			p = path + "." + k.Value
		}
		lines[val.Line] = append(lines[val.Line], lineField{path: p, value: val.Value})
		ft, ok := fields[k.Value]
		if !ok {
			if s := hint.Closest(k.Value, known); s != "" {
				*errs = append(*errs, fmt.Errorf("%s: unknown field (did you mean %s?)", p, s))
			} else {
				*errs = append(*errs, fmt.Errorf("%s: unknown field (known: %s)", p, strings.Join(known, ", ")))
			}
			continue
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeOf(yaml.Node{}):
			// hardware: a file name or the hardware file inline, decoded
			// by the drivers.
		case ft.Kind() == reflect.Struct && val.Kind == yaml.MappingNode:
			checkConfigFields(errs, p, val, ft, lines)
		case (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && val.Kind == yaml.SequenceNode:
			for j, e := range val.Content {
				lines[e.Line] = append(lines[e.Line], lineField{path: fmt.Sprintf("%s[%d]", p, j), value: e.Value})
			}
		case ft.Kind() == reflect.Map && val.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(val.Content); j += 2 {
				e := val.Content[j+1]
				lines[e.Line] = append(lines[e.Line], lineField{path: p + "." + val.Content[j].Value, value: e.Value})
			}
		}
	}
}
