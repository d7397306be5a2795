package sim

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"
)

const (
	// SpeedOfSound is the speed (m/s) the simulated HC-SR04 echo travels at: the value the Gobot
	// driver assumes, so a reading is off only by the driver's µs and mm truncation.
	SpeedOfSound = 343.0
	// echoDelay is the time from the trigger's falling edge to the echo's rising edge (the
	// sensor's 8-cycle 40 kHz burst). It also keeps the rising edge's timestamp non-zero, which
	// the driver requires.
	echoDelay = 500 * time.Microsecond
	// noEchoPulse is the echo pulse a real HC-SR04 gives when nothing is within range
	// (the driver reads it as ≈6.5 m).
	noEchoPulse = 38 * time.Millisecond
	// echoDeadline: an echo not delivered this long after its trigger is dropped, because the
	// driver stops listening after 160 ms and then nobody receives the falling edge.
	echoDeadline = 100 * time.Millisecond
	finalizeWait = time.Second
)

// sonarFault is the injected failure of the sonar, if any.
func (r *Robot) sonarFault() error {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.faults[SensorSonar].err
}

// sonarPing computes the echo of a trigger fired now: the edge timestamps on the world's
// virtual clock, pulse width = distance*2/SpeedOfSound. ok is false when the sonar is silenced.
func (r *Robot) sonarPing() (rise, fall time.Duration, ok bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if r.faults[SensorSonar].silent {
		return 0, 0, false
	}
	pulse := noEchoPulse
	if d, inRange := r.sonarRangeLocked(); inRange {
		pulse = time.Duration(d * 2 / SpeedOfSound * float64(time.Second))
	}
	rise = r.w.elapsed + echoDelay
	return rise, rise + pulse, true
}

type echoReq struct {
	rise, fall time.Duration
	issued     time.Time
}

// echoer is the adaptor's one goroutine. The HC-SR04 driver's edge handler blocks on an
// unbuffered channel until its measuring goroutine receives, and that goroutine is the one that
// wrote the trigger; so edges must come from here, never from inside Write.
//
// If a driver stopped waiting for an echo the goroutine already started to deliver, the
// handler blocks for good; the 100 ms deadline makes that need a 60 ms stall between the check
// and the send. Finalize then gives up after a second and reports it.
type echoer struct {
	reqs chan echoReq // one ping in flight at a time, as on the real sensor
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func newEchoer() *echoer {
	return &echoer{reqs: make(chan echoReq, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

func (e *echoer) stopAndWait(limit time.Duration) error {
	e.once.Do(func() { close(e.stop) })
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-e.done:
		return nil
	case <-t.C:
		return errors.New("sim: echo goroutine still blocked in the HC-SR04 edge handler after Finalize")
	}
}

func (a *Adaptor) runEcho(e *echoer) {
	defer close(e.done)
	for {
		select {
		case <-e.stop:
			return
		case req := <-e.reqs:
			a.deliverEcho(req)
		}
	}
}

// ping queues the echo of a trigger pulse; the caller holds a.mu. A trigger while a ping is in
// flight is ignored, as the sensor ignores triggers while it listens.
func (a *Adaptor) ping() {
	rise, fall, ok := a.robot.sonarPing()
	if !ok {
		return
	}
	select {
	case a.echo.reqs <- echoReq{rise: rise, fall: fall, issued: a.now()}:
	default:
	}
}

func (a *Adaptor) deliverEcho(req echoReq) {
	a.mu.Lock()
	late := a.now().Sub(req.issued) > echoDeadline
	p := a.pins[a.robot.cfg.Pins.SonarEcho]
	a.mu.Unlock()
	if late || p == nil {
		return
	}
	h, edges, line := p.edgeHandler()
	if h == nil {
		return
	}
	defer func() {
		// The driver's Halt closes the channel its handler sends on; an echo racing a Halt must
		// not crash the daemon. Any other panic is the driver's and goes on.
		if v := recover(); v != nil {
			if err, ok := v.(runtime.Error); !ok || !strings.Contains(err.Error(), "closed channel") {
				panic(v)
			}
		}
	}()
	seq := p.nextSeq(edges)
	if edges&edgeRising != 0 {
		h(line, req.rise, edgeRisingName, seq, seq)
		seq++
	}
	if edges&edgeFalling != 0 {
		h(line, req.fall, edgeFallingName, seq, seq)
	}
}
