package main

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// robotsOptions are the flags of `botctl robots`.
type robotsOptions struct {
	modes      string
	labels     labelFlags
	online     bool
	sort       string
	showLabels bool
}

// labelFlags collects repeated --label KEY=VALUE.
type labelFlags []string

func (l *labelFlags) String() string { return strings.Join(*l, ",") }

func (l *labelFlags) Set(v string) error {
	k, _, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("label %q: want KEY=VALUE (site=north)", v)
	}
	*l = append(*l, v)
	return nil
}

// robotsCmd is `botctl robots` with its options.
type robotsCmd struct {
	*cli
	robotsOpt robotsOptions
}

func (c *robotsCmd) flags(fs *flag.FlagSet) {
	o := &c.robotsOpt
	fs.StringVar(&o.modes, "mode", "", "only robots in these modes (comma-separated: RUNNING,PAUSED)")
	fs.Var(&o.labels, "label", "only robots with this label, KEY=VALUE from their factsheet (repeat: all must match)")
	fs.BoolVar(&o.online, "online", false, "only robots whose connection is ONLINE")
	fs.StringVar(&o.sort, "sort", "id", "sort by id, mode, mission, battery, connection, seen or label:KEY; a leading - reverses")
	fs.BoolVar(&o.showLabels, "labels", false, "show each robot's labels (read from the factsheets)")
}

var robotModes = []string{protocol.ModeStarting, protocol.ModeIdle, protocol.ModeRunning, protocol.ModePaused,
	protocol.ModeFailsafe, protocol.ModeEStop}

// robotSelection is robotsOptions checked and ready to apply.
type robotSelection struct {
	modes      map[string]bool
	labels     [][2]string
	online     bool
	key        func(a, b robotJSON) int
	desc       bool
	needLabels bool
}

func (o robotsOptions) compile() (robotSelection, error) {
	sel := robotSelection{online: o.online, needLabels: len(o.labels) > 0 || o.showLabels}
	if o.modes != "" {
		sel.modes = map[string]bool{}
		for _, m := range strings.Split(o.modes, ",") {
			m = strings.ToUpper(strings.TrimSpace(m))
			if !slices.Contains(robotModes, m) {
				return sel, usageError("--mode %q: want one or more of %s", m, strings.Join(robotModes, ", "))
			}
			sel.modes[m] = true
		}
	}
	for _, l := range o.labels {
		k, v, _ := strings.Cut(l, "=")
		sel.labels = append(sel.labels, [2]string{strings.TrimSpace(k), v})
	}
	key := strings.TrimPrefix(o.sort, "-")
	sel.desc = strings.HasPrefix(o.sort, "-")
	state := func(r robotJSON) *protocol.StateMsg {
		if r.State == nil {
			return &protocol.StateMsg{}
		}
		return r.State
	}
	switch key {
	case "", "id":
		sel.key = func(a, b robotJSON) int { return 0 }
	case "mode":
		sel.key = func(a, b robotJSON) int { return cmp.Compare(state(a).Mode, state(b).Mode) }
	case "mission":
		name := func(r robotJSON) string {
			if m := state(r).Mission; m != nil {
				return m.Name
			}
			return ""
		}
		sel.key = func(a, b robotJSON) int { return cmp.Compare(name(a), name(b)) }
	case "battery":
		pct := func(r robotJSON) float64 {
			if b := state(r).Battery; b != nil {
				return b.Percent
			}
			return -1
		}
		sel.key = func(a, b robotJSON) int { return cmp.Compare(pct(a), pct(b)) }
	case "connection":
		sel.key = func(a, b robotJSON) int { return cmp.Compare(a.Connection, b.Connection) }
	case "seen":
		seen := func(r robotJSON) time.Time {
			t, _ := protocol.ParseTS(state(r).TS)
			return t
		}
		sel.key = func(a, b robotJSON) int { return seen(a).Compare(seen(b)) }
	default:
		label, ok := strings.CutPrefix(key, "label:")
		if !ok || label == "" {
			return sel, usageError("--sort %q: want id, mode, mission, battery, connection, seen or label:KEY (a leading - reverses)", o.sort)
		}
		sel.needLabels = true
		sel.key = func(a, b robotJSON) int { return cmp.Compare(a.Labels[label], b.Labels[label]) }
	}
	return sel, nil
}

func (s robotSelection) match(r robotJSON) bool {
	if s.online && r.Connection != protocol.ConnOnline {
		return false
	}
	if s.modes != nil && (r.State == nil || !s.modes[r.State.Mode]) {
		return false
	}
	for _, l := range s.labels {
		if v, ok := r.Labels[l[0]]; !ok || v != l[1] {
			return false
		}
	}
	return true
}

// sortRows sorts by the key, then by id; desc reverses the key only.
func (s robotSelection) sortRows(rows []robotJSON) {
	slices.SortStableFunc(rows, func(a, b robotJSON) int {
		c := s.key(a, b)
		if s.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func labelsText(l map[string]string) string {
	if len(l) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(l))
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}

// factsCollector keeps the labels of the factsheets heard.
type factsCollector struct {
	mu     sync.Mutex
	labels map[string]map[string]string
}

func (f *factsCollector) add(robot string, facts ground.FleetFacts) {
	l := facts.Labels
	if l == nil {
		l = map[string]string{}
	}
	f.mu.Lock()
	f.labels[robot] = l
	f.mu.Unlock()
}

func (f *factsCollector) get(robot string) map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.labels[robot]
}

func (f *factsCollector) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.labels)
}

// settleFacts waits for the retained factsheets of the robots heard: until
// every one has come, or none came for a second, or the waiting is over.
// Every botd robot keeps a factsheet, so the usual end is the first; the
// quiet second is for robots that have none, long enough that a busy
// ground station pausing in the middle of a fleet's factsheets (300 ms was
// not: 470 of 1,000 robots matched a label once) does not end it early.
func (c *cli) settleFacts(f *factsCollector, robots []ground.RobotInfo) {
	const quiet, most = time.Second, 5 * time.Second
	start := time.Now()
	last, changed := -1, start
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		n := f.count()
		if n >= len(robots) {
			return
		}
		if n != last {
			last, changed = n, time.Now()
		}
		if time.Since(changed) >= quiet || time.Since(start) >= min(most, c.timeout) {
			return
		}
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
	}
}
