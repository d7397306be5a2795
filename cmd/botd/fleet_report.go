package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// fleetReport prints what the fleet sends and receives, and which robots
// fall behind, every report interval; and a summary at the end.
type fleetReport struct {
	f       *fleetFlags
	robots  []*fleetRobot
	acks    *latencyHist
	started atomic.Int64

	begin                              time.Time
	last                               time.Time
	pubOut, pubIn, bytesOut, bytesIn   uint64 // at the last report
	totalAcks                          []uint64
	behindEver                         map[string]bool
	maxOutbox                          int
	totalOverruns                      uint64
	peakOnline                         int
	firstPub, firstBytes, lastPubTotal uint64
}

func newFleetReport(f *fleetFlags, robots []*fleetRobot, acks *latencyHist) *fleetReport {
	now := time.Now()
	return &fleetReport{f: f, robots: robots, acks: acks, begin: now, last: now,
		totalAcks: make([]uint64, histBuckets), behindEver: map[string]bool{}}
}

func (r *fleetReport) loop(ctx context.Context, w io.Writer) {
	t := time.NewTicker(r.f.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			line := r.take()
			if !r.f.quiet {
				fmt.Fprintln(w, line)
			}
		}
	}
}

// behind is one robot that fell behind in an interval, and why.
type behind struct {
	id      string
	reasons []string
}

// take reads every robot's figures and returns the interval's report line.
func (r *fleetReport) take() string {
	now := time.Now()
	secs := now.Sub(r.last).Seconds()
	r.last = now
	started := int(r.started.Load())
	var pubOut, pubIn, bytesOut, bytesIn uint64
	online, outboxMax, overruns := 0, 0, uint64(0)
	var late []behind
	for i, rb := range r.robots {
		m := rb.meter
		pubOut += m.pubOut.Load()
		pubIn += m.pubIn.Load()
		bytesOut += m.bytesOut.Load()
		bytesIn += m.bytesIn.Load()
		ackMax := m.takeAckMax()
		if i >= started {
			continue
		}
		st := rb.s.runner.State()
		tm := rb.s.tele.Metrics()
		var why []string
		if tm.Link.Broker {
			online++
		} else {
			why = append(why, "not connected")
		}
		if d := st.Tick.Overruns - rb.overruns; d > 0 {
			why = append(why, fmt.Sprintf("tick overruns +%d", d))
			overruns += d
		}
		rb.overruns = st.Tick.Overruns
		if n := rb.s.tele.Backlog(); n > r.f.outboxBehind {
			why = append(why, fmt.Sprintf("outbox %d events unsent", n))
			outboxMax = max(outboxMax, n)
		} else {
			outboxMax = max(outboxMax, n)
		}
		if ackMax > r.f.slow {
			why = append(why, "broker ack "+ms(ackMax))
		}
		if len(why) > 0 {
			late = append(late, behind{rb.id, why})
			r.behindEver[rb.id] = true
		}
	}
	hist := r.acks.take()
	for i, c := range hist {
		r.totalAcks[i] += c
	}
	r.totalOverruns += overruns
	r.maxOutbox = max(r.maxOutbox, outboxMax)
	r.peakOnline = max(r.peakOnline, online)
	if r.lastPubTotal == 0 && online == len(r.robots) {
		// the whole fleet is up: rates for the summary count from here
		r.firstPub, r.firstBytes, r.lastPubTotal = pubOut, bytesOut, 1
		r.begin = now
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fleet %s: %d/%d online; out %s msg/s %s/s, in %s msg/s %s/s; broker ack p50 %s p99 %s; tick overruns +%d; outbox unsent max %d",
		now.Format("15:04:05"), online, len(r.robots),
		rate(pubOut-r.pubOut, secs), bytesRate(bytesOut-r.bytesOut, secs),
		rate(pubIn-r.pubIn, secs), bytesRate(bytesIn-r.bytesIn, secs),
		ms(histQuantile(hist, 0.5)), ms(histQuantile(hist, 0.99)), overruns, outboxMax)
	r.pubOut, r.pubIn, r.bytesOut, r.bytesIn = pubOut, pubIn, bytesOut, bytesIn
	if started < len(r.robots) {
		fmt.Fprintf(&b, "; %d started", started)
	}
	if len(late) == 0 {
		b.WriteString("; behind: none")
		return b.String()
	}
	fmt.Fprintf(&b, "; behind: %d", len(late))
	for i, l := range late {
		if i == 8 {
			fmt.Fprintf(&b, ", and %d more", len(late)-i)
			break
		}
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s (%s)", sep, l.id, strings.Join(l.reasons, ", "))
	}
	return b.String()
}

// summary prints the whole run's figures once every robot stopped.
func (r *fleetReport) summary(w io.Writer, started int, stopTook time.Duration) {
	for i, c := range r.acks.take() { // since the last report
		r.totalAcks[i] += c
	}
	var pubOut, bytesOut uint64
	for _, rb := range r.robots {
		pubOut += rb.meter.pubOut.Load()
		bytesOut += rb.meter.bytesOut.Load()
	}
	fmt.Fprintf(w, "botd fleet: %d robots started, all %d stopped in %s (each: mission halted, safe state, OFFLINE)\n", started, started, ms(stopTook))
	if r.lastPubTotal != 0 {
		secs := r.last.Sub(r.begin).Seconds()
		if secs > 0 {
			fmt.Fprintf(w, "botd fleet: with the whole fleet online (%.0f s): out %s msg/s %s/s, %s msg/s a robot\n",
				secs, rate(r.pubOut-r.firstPub, secs), bytesRate(r.bytesOut-r.firstBytes, secs),
				rate(r.pubOut-r.firstPub, secs*float64(len(r.robots))))
		}
	}
	fmt.Fprintf(w, "botd fleet: %d messages %s out in all; broker ack p50 %s p99 %s; tick overruns %d; outbox unsent max %d; robots that fell behind: %d\n",
		pubOut, bytesText(bytesOut), ms(histQuantile(r.totalAcks, 0.5)), ms(histQuantile(r.totalAcks, 0.99)),
		r.totalOverruns, r.maxOutbox, len(r.behindEver))
}

func rate(n uint64, secs float64) string {
	if secs <= 0 {
		return "0"
	}
	v := float64(n) / secs
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func bytesRate(n uint64, secs float64) string {
	if secs <= 0 {
		return "0 B"
	}
	return bytesText(uint64(float64(n) / secs))
}

func bytesText(n uint64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 10<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	}
	if d < 100*time.Millisecond {
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return d.Round(time.Millisecond).String()
}
