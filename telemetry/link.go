package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// A connection the broker closes again right after it came up is not a
// link: MQTT closes the older of two connections with one client id, so
// a client that keeps taking the robot's id (a second daemon with the
// same robot id, or someone on an open broker) makes the robot's
// connection flap, and each brief connection would otherwise reset the
// link-loss failsafe's timer. MQTT 3.1.1 (the transport's) says nothing
// about why a connection ended; the pattern is the evidence.
const (
	// DefaultLinkGrace is how long a connection must stay up to count
	// as a link again, once connections have been ending within it.
	DefaultLinkGrace = 2 * time.Second
	// takeoverBurst quick drops in a row are reported as a takeover.
	takeoverBurst = 3
	// takeoverQuiet: the report clears once a connection has stayed up
	// this long.
	takeoverQuiet = 30 * time.Second
)

// CodeClientIDTaken is the state error of a connection that keeps being
// closed right after it connects.
const CodeClientIDTaken = "CLIENT_ID_TAKEN"

// flapWatch follows one connection's ups and downs: it counts the
// connections that ended within grace of coming up (quick drops),
// reports a burst of them once (log and state error), and says whether a
// link that came up may be believed yet.
type flapWatch struct {
	name     string // "main" or "estop"
	clientID string
	grace    time.Duration
	log      *slog.Logger
	fault    func(key string, e *protocol.StateError)
	total    *atomic.Uint64 // quick drops of every connection, for Takeovers

	up        bool
	connects  uint64
	upAt      time.Time
	quick     int       // quick drops in a row
	lastQuick time.Time // zero: none yet
	burst     bool      // reported, not yet cleared
	burstN    int       // quick drops in the current burst
}

// observe takes the connection's state at now.
func (w *flapWatch) observe(now time.Time, up bool, connects uint64) {
	if w.up && (!up || connects != w.connects) { // the connection seen up has ended
		w.ended(now, now.Sub(w.upAt) < w.grace)
	}
	if connects != w.connects {
		newConns := int(connects - w.connects)
		if up {
			newConns--
			w.upAt = now
		}
		// Connections that came and went between two looks were short.
		for range newConns {
			w.ended(now, true)
		}
	}
	w.up, w.connects = up, connects
	w.settle(now)
}

func (w *flapWatch) ended(now time.Time, quick bool) {
	if !quick {
		w.quick = 0
		return
	}
	w.quick++
	w.burstN++
	w.total.Add(1)
	w.lastQuick = now
	if w.quick >= takeoverBurst && !w.burst {
		w.burst = true
		w.log.Warn("the broker keeps closing the connection right after it connects: another client is probably using its client id",
			"conn", w.name, "client", w.clientID, "quick_drops", w.burstN)
		w.fault("link.takeover."+w.name, &protocol.StateError{Code: CodeClientIDTaken, Level: "WARN", Ref: w.name,
			Message: fmt.Sprintf("the %s broker connection (client id %s) is closed right after each connect: another client is using the id; the link counts as down until a connection lasts %v", w.name, w.clientID, w.grace)})
	}
}

// settle ends a burst once a connection has lasted takeoverQuiet, and
// forgets the quick drops in a row once one has lasted grace.
func (w *flapWatch) settle(now time.Time) {
	if !w.up {
		return
	}
	if now.Sub(w.upAt) >= w.grace {
		w.quick = 0
	}
	if w.burst && now.Sub(w.upAt) >= takeoverQuiet {
		w.burst = false
		w.log.Info("the broker connection is stable again", "conn", w.name, "quick_drops", w.burstN)
		w.fault("link.takeover."+w.name, nil)
	}
	if !w.burst && now.Sub(w.upAt) >= takeoverQuiet {
		w.burstN = 0
	}
}

// flapping says whether a connection ended quickly in the last
// takeoverQuiet: then a link that came up waits grace before it counts.
func (w *flapWatch) flapping(now time.Time) bool {
	return !w.lastQuick.IsZero() && now.Sub(w.lastQuick) < takeoverQuiet
}

// wake is when settle has something to do next (zero: nothing).
func (w *flapWatch) wake() time.Time {
	if !w.up {
		return time.Time{}
	}
	if w.quick > 0 {
		return w.upAt.Add(w.grace)
	}
	if w.burst || w.burstN > 0 {
		return w.upAt.Add(takeoverQuiet)
	}
	return time.Time{}
}

func (d *Daemon) newFlapWatch(name, clientID string) *flapWatch {
	return &flapWatch{name: name, clientID: clientID, grace: d.cfg.LinkGrace, log: d.log, fault: d.cfg.Fault, total: &d.quickDrops}
}

// Takeovers counts the robot's connections (main and e-stop) that the
// broker closed within the link grace of their connect.
func (d *Daemon) Takeovers() uint64 { return d.quickDrops.Load() }

// linkLoop reports link changes: the broker connection and ground station
// presence. A link going down is reported at once; one coming back while
// the connection flaps only once it has held for the grace, so the
// link-loss failsafe measures from the last time the link was really up.
func (d *Daemon) linkLoop(ctx context.Context, conn transport.Conn) {
	clock := d.cfg.Clock
	w := d.newFlapWatch("main", d.cfg.Conn.ClientID)
	var reported, raw protocol.LinkState
	var rawSince time.Time
	first := true
	onURL := "" // the broker last reported up
	for {
		changed := conn.LinkChanged()
		now := clock.Now()
		w.observe(now, conn.IsUp(), conn.Connects())
		ls := d.linkState(conn)
		if first || ls != raw {
			raw, rawSince = ls, now
		}
		// Losses at once; gains when not flapping, or once they held.
		next := protocol.LinkState{Broker: reported.Broker && raw.Broker, GCSOnline: reported.GCSOnline && raw.GCSOnline, DownSince: raw.DownSince}
		var hold time.Time
		switch {
		case first || !w.flapping(now) || now.Sub(rawSince) >= d.cfg.LinkGrace:
			next = raw
		case next != raw:
			hold = rawSince.Add(d.cfg.LinkGrace)
		}
		if first || next != reported {
			first, reported = false, next
			d.log.Info("link", "broker", next.Broker, "gcs_online", next.GCSOnline, "url", next.URL)
			d.cfg.Link(next)
			if next.URL != "" && next.URL != onURL {
				if onURL != "" {
					d.brokerChanged(onURL, next.URL)
				}
				onURL = next.URL
			}
		}
		var timer <-chan time.Time
		if at := earliest(hold, w.wake()); !at.IsZero() {
			timer = clock.After(max(at.Sub(now), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-d.presenceCh:
		case <-timer:
		}
	}
}

// EventBrokerChanged is the event of a robot that connected to another
// broker of its list than the one it was on (the first connection of a
// run is in state.link.url only).
const EventBrokerChanged = "link.broker"

// brokerChanged reports the broker the robot is on now, and the one it
// was on before, as an event: it goes to the outbox like any other, so a
// ground station sees every move, in order.
func (d *Daemon) brokerChanged(from, to string) {
	d.log.Info("moved to another broker", "from", from, "to", to)
	d.EventSink()(protocol.Event{Kind: EventBrokerChanged, Level: "info", Message: "moved from broker " + from + " to " + to,
		Data: map[string]any{"from": from, "to": to}})
}

// watchConn follows a connection that does not make the link (the e-stop
// one) for takeovers only.
func (d *Daemon) watchConn(ctx context.Context, conn transport.Conn, name, clientID string) {
	clock := d.cfg.Clock
	w := d.newFlapWatch(name, clientID)
	for {
		changed := conn.LinkChanged()
		now := clock.Now()
		w.observe(now, conn.IsUp(), conn.Connects())
		var timer <-chan time.Time
		if at := w.wake(); !at.IsZero() {
			timer = clock.After(max(at.Sub(now), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-timer:
		}
	}
}

// earliest is the earlier of two times, a zero time meaning none.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}
