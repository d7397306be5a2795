package missions

import (
	"math"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Readers of generic values for the fields of a document: each reports a
// mistyped value at its path and returns the zero value.

func str(v any, path string, ps *problems) string {
	s, ok := v.(string)
	if !ok {
		ps.invalid(path, "want a string, got %s", describe(v))
	}
	return s
}

func boolean(v any, path string, ps *problems) bool {
	b, ok := v.(bool)
	if !ok {
		ps.invalid(path, "want a boolean, got %s", describe(v))
	}
	return b
}

func obj(v any, path string, ps *problems) (*object, bool) {
	o, ok := v.(*object)
	if !ok {
		ps.invalid(path, "want an object, got %s", describe(v))
	}
	return o, ok
}

func float(v any, path string, ps *problems) float64 {
	n, ok := v.(number)
	if !ok {
		ps.invalid(path, "want a number, got %s", describe(v))
		return 0
	}
	f, ok := n.float()
	if !ok {
		ps.invalid(path, "the number %s is out of range", string(n))
	}
	return f
}

// wholeInt reads a whole number exactly (a float64 would round large ones).
func wholeInt(v any, path string, ps *problems) int64 {
	n, ok := v.(number)
	if !ok {
		ps.invalid(path, "want a whole number, got %s", describe(v))
		return 0
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i
	}
	f, ok := n.float()
	if !ok || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		ps.invalid(path, "want a whole number, got %s", string(n))
		return 0
	}
	return int64(f)
}

func wholeUint(v any, path string, ps *problems) uint64 {
	n, ok := v.(number)
	if !ok {
		ps.invalid(path, "want a whole number from 0 to %d, got %s", uint64(math.MaxUint64), describe(v))
		return 0
	}
	if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
		return u
	}
	f, ok := n.float()
	if !ok || f != math.Trunc(f) || f < 0 || f >= math.MaxUint64 {
		ps.invalid(path, "want a whole number from 0 to %d, got %s", uint64(math.MaxUint64), string(n))
		return 0
	}
	return uint64(f)
}

// suggest returns " (did you mean "x"?)" for a near miss among known
// names, or the list of known names.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := levenshtein.ComputeDistance(strings.ToLower(name), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return " (did you mean \"" + best + "\"?)"
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}
