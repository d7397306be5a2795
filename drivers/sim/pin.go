package sim

import (
	"strconv"
	"sync"
	"time"

	"gobot.io/x/gobot/v2"
)

// Edge masks and names as gobot's system package defines them (its digitalPinEventOn* values
// are unexported; the names are system.DigitalPinEventRisingEdge/FallingEdge).
const (
	edgeFalling     = 1
	edgeRising      = 2
	edgeRisingName  = "rising edge"
	edgeFallingName = "falling edge"
)

type edgeHandler = func(lineOffset int, timestamp time.Duration, detectedEdge string, seqno, lseqno uint32)

// simPin is what DigitalPin returns: a gobot.DigitalPinner and gobot.DigitalPinOptioner whose
// reads and writes go through the adaptor, so DigitalWrite(pin) and DigitalPin(pin).Write are
// the same thing. Options are stored; only active-low, output initial level and the edge
// handler change behaviour.
type simPin struct {
	a    *Adaptor
	id   string
	line int

	mu        sync.Mutex
	label     string
	output    bool
	initial   int
	activeLow bool
	bias      int
	drive     int
	debounce  time.Duration
	edges     int
	handler   edgeHandler
	poll      time.Duration
	seq       uint32
}

// DigitalPin implements gobot.DigitalPinnerProvider (the HC-SR04 driver needs it). The same id
// gives the same pin until Finalize.
func (a *Adaptor) DigitalPin(id string) (gobot.DigitalPinner, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("get digital", id); err != nil {
		return nil, err
	}
	p, ok := a.pins[id]
	if !ok {
		line, _ := strconv.Atoi(id)
		p = &simPin{a: a, id: id, line: line, label: "gobotio" + id}
		a.pins[id] = p
	}
	return p, nil
}

// Export implements gobot.DigitalPinner; there is nothing to export in a simulation.
func (p *simPin) Export() error { return nil }

// Unexport implements gobot.DigitalPinner: the edge handler is dropped.
func (p *simPin) Unexport() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handler, p.edges = nil, 0
	return nil
}

// Read implements gobot.DigitalPinner.
func (p *simPin) Read() (int, error) {
	v, err := p.a.DigitalRead(p.id)
	if err != nil {
		return 0, err
	}
	if p.isActiveLow() {
		v ^= 1
	}
	return v, nil
}

// Write implements gobot.DigitalPinner.
func (p *simPin) Write(val int) error {
	level := byte(0)
	if val != 0 {
		level = 1
	}
	if p.isActiveLow() {
		level ^= 1
	}
	return p.a.DigitalWrite(p.id, level)
}

// ApplyOptions implements gobot.DigitalPinOptionApplier. Switching to output drives the initial
// level, as the kernel does on reconfiguration.
func (p *simPin) ApplyOptions(options ...func(gobot.DigitalPinOptioner) bool) error {
	for _, o := range options {
		o(p)
	}
	p.mu.Lock()
	output, initial, activeLow := p.output, p.initial, p.activeLow
	p.mu.Unlock()
	if !output {
		return nil
	}
	level := byte(initial & 1)
	if activeLow {
		level ^= 1
	}
	a := p.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("configure", p.id); err != nil {
		return err
	}
	return a.writeDigitalLocked(p.id, level, false)
}

func (p *simPin) isActiveLow() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.activeLow
}

func (p *simPin) edgeHandler() (h edgeHandler, edges, line int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.handler, p.edges, p.line
}

// nextSeq reserves sequence numbers for the edges of one echo.
func (p *simPin) nextSeq(edges int) uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.seq + 1
	if edges&edgeRising != 0 {
		p.seq++
	}
	if edges&edgeFalling != 0 {
		p.seq++
	}
	return s
}

// set runs change, which reports whether it changed anything, under the pin's lock.
func (p *simPin) set(change func() bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return change()
}

// SetLabel implements gobot.DigitalPinOptioner.
func (p *simPin) SetLabel(label string) bool {
	return p.set(func() bool {
		changed := p.label != label
		p.label = label
		return changed
	})
}

// SetDirectionOutput implements gobot.DigitalPinOptioner.
func (p *simPin) SetDirectionOutput(initial int) bool {
	return p.set(func() bool {
		changed := !p.output || p.initial != initial
		p.output, p.initial = true, initial
		return changed
	})
}

// SetDirectionInput implements gobot.DigitalPinOptioner.
func (p *simPin) SetDirectionInput() bool {
	return p.set(func() bool {
		changed := p.output
		p.output = false
		return changed
	})
}

// SetActiveLow implements gobot.DigitalPinOptioner.
func (p *simPin) SetActiveLow() bool {
	return p.set(func() bool {
		changed := !p.activeLow
		p.activeLow = true
		return changed
	})
}

// SetBias implements gobot.DigitalPinOptioner (stored only).
func (p *simPin) SetBias(bias int) bool {
	return p.set(func() bool {
		changed := p.bias != bias
		p.bias = bias
		return changed
	})
}

// SetDrive implements gobot.DigitalPinOptioner (stored only).
func (p *simPin) SetDrive(drive int) bool {
	return p.set(func() bool {
		changed := p.drive != drive
		p.drive = drive
		return changed
	})
}

// SetDebounce implements gobot.DigitalPinOptioner (stored only).
func (p *simPin) SetDebounce(period time.Duration) bool {
	return p.set(func() bool {
		changed := p.debounce != period
		p.debounce = period
		return changed
	})
}

// SetEventHandlerForEdge implements gobot.DigitalPinOptioner. The echo goroutine calls the
// handler for the echo pin's edges.
func (p *simPin) SetEventHandlerForEdge(handler edgeHandler, edge int) bool {
	return p.set(func() bool {
		changed := true
		p.handler, p.edges = handler, edge
		return changed
	})
}

// SetPollForEdgeDetection implements gobot.DigitalPinOptioner. The simulated pin has native
// edge events, so polling (gpio.WithHCSR04UseEdgePolling) is accepted and not needed.
func (p *simPin) SetPollForEdgeDetection(interval time.Duration, _ chan struct{}) bool {
	return p.set(func() bool {
		changed := p.poll != interval
		p.poll = interval
		return changed
	})
}
