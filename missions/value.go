package missions

import (
	"math"
	"strconv"
)

// Decoders first build a generic tree of values (JSON and YAML alike): nil,
// bool, string, number, []any and *object. Numbers keep their text so that
// whole-number fields (revision, seed) are read exactly; parameters and
// blackboard values are normalized to float64 afterwards.

// number is a numeric literal in JSON syntax.
type number string

// object is a mapping that remembers the order its keys were written in.
type object struct {
	keys []string
	m    map[string]any
}

func newObject() *object { return &object{m: map[string]any{}} }

// set adds a key; it reports false when the key is already there.
func (o *object) set(k string, v any) bool {
	if _, dup := o.m[k]; dup {
		return false
	}
	o.keys = append(o.keys, k)
	o.m[k] = v
	return true
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.m[k]
	return v, ok
}

// str returns the string at k, or "" when absent or not a string.
func (o *object) str(k string) string {
	s, _ := o.m[k].(string)
	return s
}

// float parses a number's text.
func (n number) float() (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// normalize converts a generic value into the plain Go values a mission
// holds (float64, bool, string, []any, map[string]any, nil), reporting
// numbers that do not fit a float64.
func normalize(v any, path string, ps *problems) any {
	switch x := v.(type) {
	case number:
		f, ok := x.float()
		if !ok {
			ps.invalid(path, "the number %s is out of range", string(x))
			return nil
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e, ptr(path, i), ps)
		}
		return out
	case *object:
		out := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			out[k] = normalize(x.m[k], ptr(path, k), ps)
		}
		return out
	}
	return v
}

// normalizeMap normalizes an object's members; an empty object gives nil
// so that documents compare equal however they were written.
func normalizeMap(o *object, path string, ps *problems) map[string]any {
	if len(o.keys) == 0 {
		return nil
	}
	return normalize(o, path, ps).(map[string]any)
}

// plainNumber converts a Go number produced by another decoder (YAML, a
// parsed attribute) into a number literal.
func plainNumber(f float64) number {
	return number(strconv.FormatFloat(f, 'g', -1, 64))
}
