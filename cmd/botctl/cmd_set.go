package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
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

// operatorValue reads a value as people write it on a command line, as
// botd sim -set reads it (bt.TextValue).
func operatorValue(s string) any { return bt.TextValue(s).Interface() }

func showValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
