package bt

import (
	"encoding/json"
	"math"
	"strconv"
)

// TextValue reads a value as people write it on a command line (botctl
// set, botd sim -set): true and false are booleans, a finite number is a
// number, a JSON string in double quotes is that string ("12" stays a
// string), anything else is the text as given. One function, so that a
// value typed for a simulation means what it means sent to a robot.
func TextValue(s string) Value {
	switch s {
	case "true":
		return BoolValue(true)
	case "false":
		return BoolValue(false)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return NumberValue(f)
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if json.Unmarshal([]byte(s), &str) == nil {
			return StringValue(str)
		}
	}
	return StringValue(s)
}
