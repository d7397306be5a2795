package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// eventsCmd is `botctl events` with its options.
type eventsCmd struct {
	*cli
	follow, noHistory bool
	forDur            time.Duration
}

func (c *eventsCmd) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.follow, "follow", false, "keep printing events until interrupted")
	fs.DurationVar(&c.forDur, "for", 5*time.Second, "without --follow: how long to listen for new events after the history")
	fs.BoolVar(&c.noHistory, "no-history", false, "print only new events, not the ones the robot keeps")
}

// Messages of the events loop besides the events themselves.
type (
	historyReply struct {
		rep protocol.Reply
		err error
	}
	eventGap struct{ from, to uint64 }
)

// events prints the robot's events: first the ones it keeps (it sends
// them again on events.request), then the new ones as they arrive, for
// --for or until interrupted with --follow. ground.History puts the two
// together in seq order and drops duplicates (QoS 1 redeliveries, outbox
// resends) by event id.
func (c *eventsCmd) run(args []string) error {
	if !c.follow && c.forDur <= 0 {
		return usageError("--for must be positive")
	}
	g, robot, err := c.connectRobot(args, c.follow)
	if err != nil {
		return err
	}
	defer g.Close()
	// Deferred in this order, done closes before wg.Wait: a goroutine
	// blocked in push lets go.
	var wg sync.WaitGroup
	defer wg.Wait()
	msgs := make(chan any, 256)
	done := make(chan struct{})
	defer close(done)
	push := func(m any) {
		select {
		case msgs <- m:
		case <-done:
		}
	}
	hist := &ground.History{
		Emit: func(m protocol.EventMsg) { push(m) },
		Gap:  func(from, to uint64) { push(eventGap{from, to}) },
	}
	defer hist.Close()
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	request := func() {
		wg.Go(func() {
			rctx, rcancel := context.WithTimeout(ctx, c.timeout)
			defer rcancel()
			rep, err := g.RequestEvents(rctx, robot, hist)
			push(historyReply{rep, err})
		})
	}
	seen := newSeenSet(4096) // --no-history: duplicates dropped by id
	stop, err := g.Watch(robot, ground.RobotHandlers{
		Event: func(m protocol.EventMsg) {
			if c.noHistory {
				if seen.add(m.ID) {
					push(m) // as they come: History would hold them for the history
				}
				return
			}
			if hist.Add(m) {
				request() // a gap: ask for what is missing
			}
		},
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
	listening := func() {
		if c.follow {
			fmt.Fprintf(c.stderr, "following the events of %s (Ctrl-C to stop)\n", robot)
		} else {
			fmt.Fprintf(c.stderr, "listening for new events of %s for %s (--follow to keep listening)\n", robot, c.forDur)
		}
	}
	var until <-chan time.Time
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	startTimer := func() {
		if !c.follow && timer == nil {
			timer = time.NewTimer(c.forDur)
			until = timer.C
		}
	}
	if c.noHistory {
		listening()
		startTimer()
	} else {
		fmt.Fprintf(c.stderr, "asking %s for the events it keeps (events.request)…\n", robot)
		request()
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	lastConn := ""
	first := true
	// The history comes around its reply, which says how much there is:
	// what comes before the reply is held until the note that introduces
	// it is printed, and "following" waits until the last kept event was
	// printed (or said lost, or the history given up on). What counts is
	// what this loop printed, never how far the History got: the History
	// runs on the client's goroutine, ahead of what waits in msgs, and
	// "following" after its Last moved on came before the events still
	// on their way here.
	var held []protocol.EventMsg
	var replayTo, printed uint64 // printed: the highest seq printed or said lost
	following := c.noHistory
	follow := func() {
		if !following && !first && printed >= replayTo {
			following = true
			listening()
			startTimer()
		}
	}
	print := func(m protocol.EventMsg) {
		if c.json {
			enc.Encode(m)
		} else {
			fmt.Fprintln(c.stdout, eventLine(m, time.Local))
		}
		printed = max(printed, m.Seq)
		follow()
	}
	var giveUp <-chan time.Time // the history did not all come: follow anyway
	for {
		select {
		case <-c.ctx.Done():
			return nil
		case <-until:
			return nil
		case <-giveUp:
			if !following {
				following = true
				listening()
				startTimer()
			}
		case m := <-msgs:
			switch m := m.(type) {
			case protocol.EventMsg:
				if first && !c.noHistory {
					held = append(held, m)
					continue
				}
				print(m)
			case historyReply:
				if first {
					first = false
					c.historyNote(robot, m.rep, m.err)
					replayTo = num(m.rep.Result["to_seq"])
					if m.err != nil || !m.rep.OK || num(m.rep.Result["count"]) == 0 {
						replayTo = 0
					}
					for _, e := range held {
						print(e)
					}
					held = nil
					follow()
					if !following {
						t := time.NewTimer(c.timeout)
						defer t.Stop()
						giveUp = t.C
					}
				}
			case eventGap:
				fmt.Fprintf(c.stderr, "(events %d–%d of %s are lost: the robot no longer keeps them)\n", m.from, m.to, robot)
				printed = max(printed, m.to)
				follow()
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

// historyNote says what the robot answered to events.request.
func (c *cli) historyNote(robot string, rep protocol.Reply, err error) {
	if err != nil || num(rep.Result["count"]) == 0 {
		fmt.Fprintln(c.stderr, historyText(rep, err))
		return
	}
	fmt.Fprintf(c.stderr, "%s keeps %s:\n", robot, historyText(rep, err))
}

// historyText is what events.request brought, for people.
func historyText(rep protocol.Reply, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("no history: %v", err)
	case num(rep.Result["count"]) == 0:
		return fmt.Sprintf("no kept events (last seq %d)", num(rep.Result["last_seq"]))
	}
	return fmt.Sprintf("%s (seq %d–%d, boot %d)",
		count(num(rep.Result["count"]), "event"), num(rep.Result["first_seq"]), num(rep.Result["to_seq"]), num(rep.Result["boot"]))
}

func num(v any) uint64 {
	if f, ok := v.(float64); ok && f > 0 {
		return uint64(f)
	}
	return 0
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
