// Package hint adds "did you mean" to mission problems: a node type, a
// parameter or a blackboard key that is one or two letters off a known
// one is most likely a typo of it.
//
// It reads the problems that bt and missions report (their codes and the
// names they quote) and knows nothing else about missions; it is used
// where the known names are at hand: `botd check` (the daemon's
// registry and the robot's sensor keys) and botctl (the robot's
// factsheet).
package hint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"

	"github.com/botd-project/botd/bt"
)

// Closest is the known name nearest to name, when it is near enough to be
// a typo: at most 2 edits, and fewer than a third of the name's length
// for short names (ignoring letter case); "" otherwise, and for a name
// that is known.
func Closest(name string, known []string) string {
	if name == "" || slices.Contains(known, name) {
		return ""
	}
	limit := min(2, max(1, len(name)/3))
	best, bestD := "", limit+1
	ln := strings.ToLower(name)
	for _, k := range known {
		d := levenshtein.ComputeDistance(ln, strings.ToLower(k))
		if d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

var (
	// A message may start with its place in a file ("line 4: <Elem>: ").
	unknownType  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:.*?: )?unknown node type "((?:[^"\\]|\\.)*)"$`) })
	unknownParam = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^((?:.*?: )?unknown parameter "((?:[^"\\]|\\.)*)" for [^ ]+) \(known: ([^)]*)\)$`)
	})
)

// Problems returns ps with a "did you mean" added to every unknown node
// type close to one of types, and to every unknown parameter close to one
// of the parameters its message lists (the list then goes: the guess is
// what helps). A problem that already has a guess is left alone.
func Problems(ps bt.Problems, types []string) bt.Problems {
	out := slices.Clone(ps)
	for i, p := range out {
		if strings.Contains(p.Message, "did you mean") {
			continue
		}
		if m := unknownType().FindStringSubmatch(p.Message); m != nil {
			if s := Closest(unquote(m[1]), types); s != "" {
				out[i].Message = fmt.Sprintf("%s (did you mean %q?)", p.Message, s)
			}
			continue
		}
		if m := unknownParam().FindStringSubmatch(p.Message); m != nil {
			known := strings.Split(m[3], ", ")
			if s := Closest(unquote(m[2]), known); s != "" {
				out[i].Message = fmt.Sprintf("%s (did you mean %q?)", m[1], s)
			}
		}
	}
	return out
}

// Message is Problems for one message (a refusal's text).
func Message(msg string, types []string) string {
	return Problems(bt.Problems{{Message: msg}}, types)[0].Message
}

func unquote(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, `\"`, `"`), `\\`, `\`) }

// Key is one blackboard key of a mission that looks like a typo of a
// sensor key.
type Key struct {
	Key, Sensor string
}

func (k Key) String() string {
	return fmt.Sprintf("key %q is not a sensor key of this robot (did you mean %q?)", k.Key, k.Sensor)
}

// Keys returns the keys a mission uses that are not sensor keys but are
// close to one: most likely typos, which would read nothing at run time.
// Keys the mission gives an initial value are its own.
func Keys(used, sensors, own []string) []Key {
	var out []Key
	for _, k := range used {
		if slices.Contains(sensors, k) || slices.Contains(own, k) {
			continue
		}
		if s := Closest(k, sensors); s != "" {
			out = append(out, Key{Key: k, Sensor: s})
		}
	}
	return out
}
