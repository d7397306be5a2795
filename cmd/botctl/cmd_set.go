package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/botd-project/botd/telemetry/protocol"
)

// set writes operator values on a robot's blackboard (blackboard.set), one
// command per KEY=VALUE, in order; the robot refuses keys its config does
// not mark writable and values of the wrong type for how the running
// mission uses the key, and botctl shows the refusal.
func (c *cli) set(args []string) error {
	var robotArgs []string
	type pair struct {
		key   string
		value any
	}
	var pairs []pair
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			robotArgs = append(robotArgs, a)
			continue
		}
		if k == "" {
			return usageError("set: %q has no key before '='", a)
		}
		pairs = append(pairs, pair{k, operatorValue(v)})
	}
	if len(pairs) == 0 {
		return usageError("set needs KEY=VALUE (for example: botctl set rover-1 cruise=0.3)")
	}
	g, info, err := c.connectOnline(robotArgs)
	if err != nil {
		return err
	}
	defer g.Close()
	var firstErr error
	for _, p := range pairs {
		rep, err := c.send(g, info.ID, protocol.Command{Op: protocol.OpBlackboardSet, Key: p.key, Value: p.value})
		if err != nil {
			return err
		}
		text := ""
		if rep.OK {
			text = fmt.Sprintf("%s = %s", p.key, showValue(p.value))
		}
		if err := c.reportText(info.ID, protocol.OpBlackboardSet, rep, text); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// operatorValue reads a value as people write it on a command line: true
// and false are booleans, a finite number is a number, a JSON string in
// double quotes is that string ("12" stays a string), anything else is
// the text as given.
func operatorValue(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if json.Unmarshal([]byte(s), &str) == nil {
			return str
		}
	}
	return s
}

func showValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
