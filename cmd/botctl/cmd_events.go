package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func eventsFlags(c *cli, fs *flag.FlagSet) {
	fs.BoolVar(&c.follow, "follow", false, "keep printing events until interrupted")
	fs.DurationVar(&c.forDur, "for", 5*time.Second, "without --follow: how long to listen")
}

// events prints the robot's events as they arrive. The broker keeps no
// history of them (they are not retained), so this listens: for --for,
// or until interrupted with --follow. Duplicates (QoS 1 redeliveries,
// outbox resends) are dropped by event id.
func (c *cli) events(args []string) error {
	robot, err := oneRobot(args)
	if err != nil {
		return err
	}
	if !c.follow && c.forDur <= 0 {
		return usageError("--for must be positive")
	}
	g, err := c.connect(false)
	if err != nil {
		return err
	}
	defer g.Close()
	if _, err := c.online(g, robot); err != nil {
		if !c.follow {
			return err
		}
		// Following: the robot may come (back) online.
		fmt.Fprintf(c.stderr, "warning: %v; waiting for it\n", err)
	}
	msgs := make(chan any, 256)
	done := make(chan struct{})
	defer close(done)
	push := func(m any) {
		select {
		case msgs <- m:
		case <-done:
		}
	}
	stop, err := g.Watch(robot, ground.RobotHandlers{
		Event:      func(m protocol.EventMsg) { push(m) },
		Connection: func(m protocol.ConnectionMsg) { push(m) },
		Error: func(topic string, err error) {
			if _, leaf, _ := protocol.SplitTopic(c.prefix, topic); leaf == protocol.LeafEvents || leaf == protocol.LeafConnection {
				push(parseError{topic, err})
			}
		},
	})
	if err != nil {
		return fail(exitUnreachable, "subscribing to %s: %v", robot, err)
	}
	defer stop()
	var until <-chan time.Time
	if !c.follow {
		t := time.NewTimer(c.forDur)
		defer t.Stop()
		until = t.C
	} else {
		fmt.Fprintf(c.stderr, "following the events of %s (Ctrl-C to stop)\n", robot)
	}
	seen := newSeenSet(4096)
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	lastConn := ""
	for {
		select {
		case <-c.ctx.Done():
			return nil
		case <-until:
			return nil
		case m := <-msgs:
			switch m := m.(type) {
			case protocol.EventMsg:
				if !seen.add(m.ID) {
					continue
				}
				if c.json {
					enc.Encode(m)
				} else {
					fmt.Fprintln(c.stdout, eventLine(m, time.Local))
				}
			case protocol.ConnectionMsg:
				// The retained state arrives first; report changes only.
				if lastConn != "" && m.State != lastConn && !c.json {
					fmt.Fprintf(c.stderr, "%s is now %s\n", robot, m.State)
				}
				lastConn = m.State
			case parseError:
				fmt.Fprintf(c.stderr, "warning: %v\n", m)
			}
		}
	}
}

// seenSet remembers the last n ids.
type seenSet struct {
	ids   map[string]bool
	order []string
	n     int
}

func newSeenSet(n int) *seenSet { return &seenSet{ids: map[string]bool{}, n: n} }

// add reports whether id is new.
func (s *seenSet) add(id string) bool {
	if s.ids[id] {
		return false
	}
	s.ids[id] = true
	s.order = append(s.order, id)
	if len(s.order) > s.n {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	return true
}
