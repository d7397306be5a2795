package bt

import (
	"fmt"
	"math"
	"strings"
)

// ParamType is the declared type of a node parameter.
type ParamType uint8

const (
	// TNumber is a number, or "{key}" read from the blackboard when the node opens.
	TNumber ParamType = iota
	// TInt is a whole number, constant.
	TInt
	// TBool is a boolean, or "{key}".
	TBool
	// TString is a string; "{key}" reads the blackboard when the node opens.
	TString
	// TKey names a blackboard key (optionally scoped: "tree:x", "node:x").
	TKey
	// TEnum is one of the declared Enum strings.
	TEnum
	// TExpr is an expression compiled when the mission loads.
	TExpr
	// TTree names another tree of the mission.
	TTree
	// TAny is any JSON value.
	TAny
	// TNumberList is a list of numbers.
	TNumberList
)

var paramTypeNames = [...]string{"number", "integer", "boolean", "string", "key", "enum", "expression", "tree", "any", "number list"}

func (t ParamType) String() string {
	if int(t) < len(paramTypeNames) {
		return paramTypeNames[t]
	}
	return fmt.Sprintf("ParamType(%d)", uint8(t))
}

// MarshalText writes the type name (for the factsheet).
func (t ParamType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a type name written by MarshalText, so that a ground
// station can decode the factsheet.
func (t *ParamType) UnmarshalText(b []byte) error {
	for i, name := range paramTypeNames {
		if string(b) == name {
			*t = ParamType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown parameter type %q", b)
}

// Param declares one parameter of a node type.
type Param struct {
	Name     string    `json:"name"`
	Aliases  []string  `json:"aliases,omitempty"`
	Type     ParamType `json:"type"`
	Required bool      `json:"required,omitempty"`
	Default  any       `json:"default,omitempty"`
	Min      *float64  `json:"min,omitempty"`
	Max      *float64  `json:"max,omitempty"`
	Unit     string    `json:"unit,omitempty"`
	Enum     []string  `json:"enum,omitempty"`
	Doc      string    `json:"doc,omitempty"`
}

// Float returns a pointer to v, for Param.Min and Param.Max literals.
func Float(v float64) *float64 { return &v }

// RefKey reports whether s is a blackboard reference "{key}" and returns the key.
func RefKey(s string) (string, bool) {
	if len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{} ") {
		return s[1 : len(s)-1], true
	}
	return "", false
}

// AsNumber converts the numeric forms a decoder may produce to float64.
func AsNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// check validates a raw value against the declaration; it returns a
// problem message or "".
func (p *Param) check(v any) string {
	if s, ok := v.(string); ok {
		if _, ref := RefKey(s); ref && (p.Type == TNumber || p.Type == TBool || p.Type == TString) {
			return ""
		}
	}
	switch p.Type {
	case TNumber, TInt:
		f, ok := AsNumber(v)
		if !ok {
			if p.Type == TNumber {
				return fmt.Sprintf("want a number or \"{key}\", got %s", Describe(v))
			}
			return fmt.Sprintf("want a whole number, got %s", Describe(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "want a finite number"
		}
		if p.Type == TInt && f != math.Trunc(f) {
			return fmt.Sprintf("want a whole number, got %v", f)
		}
		if p.Min != nil && f < *p.Min {
			return fmt.Sprintf("%v is below the limit %v", f, *p.Min)
		}
		if p.Max != nil && f > *p.Max {
			return fmt.Sprintf("%v is above the limit %v", f, *p.Max)
		}
		if unit, ok := durationUnits[p.Unit]; ok && f*unit > float64(MaxDuration) {
			return fmt.Sprintf("%v %s is longer than the longest duration, %s (%v %s)", f, p.Unit, maxDurationText, float64(MaxDuration)/unit, p.Unit)
		}
	case TBool:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("want a boolean, got %s", Describe(v))
		}
	case TString, TExpr, TTree:
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("want a string, got %s", Describe(v))
		}
	case TKey:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("want a blackboard key, got %s", Describe(v))
		}
		if err := checkKey(s); err != "" {
			return err
		}
	case TEnum:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("want one of %s, got %s", strings.Join(p.Enum, ", "), Describe(v))
		}
		for _, e := range p.Enum {
			if e == s {
				return ""
			}
		}
		return fmt.Sprintf("%q is not one of %s", s, strings.Join(p.Enum, ", "))
	case TNumberList:
		l, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("want a list of numbers, got %s", Describe(v))
		}
		for i, e := range l {
			f, ok := AsNumber(e)
			if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Sprintf("element %d: want a number, got %s", i, Describe(e))
			}
			if p.Min != nil && f < *p.Min {
				return fmt.Sprintf("element %d: %v is below the limit %v", i, f, *p.Min)
			}
		}
	}
	return ""
}

// Describe writes a parameter's raw value for a message (null, a number,
// a quoted string, a list or an object in short).
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	if f, ok := AsNumber(v); ok {
		return fmt.Sprintf("the number %v", f)
	}
	return fmt.Sprintf("a %T", v)
}

// Num is a numeric parameter: a constant, or a blackboard slot read when
// the node needs it.
type Num struct {
	V    float64
	Slot Slot // NoSlot for a constant
}

// Get returns the value; ok is false when the referenced key is missing or
// not a number.
func (p Num) Get(a *Agent) (float64, bool) {
	if p.Slot == NoSlot {
		return p.V, true
	}
	return a.BB.Number(p.Slot)
}

// Str is a string parameter, constant or "{key}".
type Str struct {
	V    string
	Slot Slot
}

// Get returns the value; ok is false when the referenced key is missing.
func (p Str) Get(a *Agent) (string, bool) {
	if p.Slot == NoSlot {
		return p.V, true
	}
	v := a.BB.Get(p.Slot)
	if v.Kind() == KindNone {
		return "", false
	}
	return v.String(), true
}

// Flag is a boolean parameter, constant or "{key}".
type Flag struct {
	V    bool
	Slot Slot
}

// Get returns the value; ok is false when the referenced key is missing or
// not a boolean.
func (p Flag) Get(a *Agent) (bool, bool) {
	if p.Slot == NoSlot {
		return p.V, true
	}
	v := a.BB.Get(p.Slot)
	b, ok := v.Bool()
	return b, ok
}
