package sim

import (
	"testing"
	"time"
)

func connectedAdaptor(t *testing.T) (*Adaptor, *simPin) {
	t.Helper()
	a := NewAdaptor(DefaultWorld().AddRobot("r", RobotConfig{}))
	if err := a.Connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Finalize(); err != nil {
			t.Error(err)
		}
	})
	p, err := a.DigitalPin(a.robot.cfg.Pins.SonarEcho)
	if err != nil {
		t.Fatal(err)
	}
	return a, p.(*simPin)
}

func TestEchoTimestamps(t *testing.T) {
	a, p := connectedAdaptor(t)
	a.robot.w.Step(3 * time.Second)
	type edge struct {
		ts   time.Duration
		name string
	}
	got := make(chan edge, 2)
	p.SetEventHandlerForEdge(func(_ int, ts time.Duration, name string, _, _ uint32) { got <- edge{ts, name} }, edgeRising|edgeFalling)
	if err := a.DigitalWrite("18", 1); err != nil {
		t.Fatal(err)
	}
	if err := a.DigitalWrite("18", 0); err != nil {
		t.Fatal(err)
	}
	rise, fall := <-got, <-got
	if rise.name != edgeRisingName || fall.name != edgeFallingName {
		t.Fatalf("edges %q, %q", rise.name, fall.name)
	}
	if rise.ts != 3*time.Second+echoDelay {
		t.Errorf("rising edge at %v, want on the world clock %v", rise.ts, 3*time.Second+echoDelay)
	}
	dist := 2.85
	want := time.Duration(dist * 2 / SpeedOfSound * float64(time.Second))
	if d := fall.ts - rise.ts; d != want {
		t.Errorf("pulse %v, want 2.85 m * 2 / 343 = %v", d, want)
	}
}

func TestEchoDroppedWhenDriverGaveUp(t *testing.T) {
	a, p := connectedAdaptor(t)
	var calls int // guarded by a.mu, like a.now itself
	a.mu.Lock()
	a.now = func() time.Time { // each reading is a second after the last: every echo is late
		calls++
		return time.Unix(int64(calls), 0)
	}
	a.mu.Unlock()
	called := make(chan struct{}, 2)
	p.SetEventHandlerForEdge(func(int, time.Duration, string, uint32, uint32) { called <- struct{}{} }, edgeRising|edgeFalling)
	a.ping2(t)
	select {
	case <-called:
		t.Fatal("a stale echo reached the handler")
	case <-time.After(50 * time.Millisecond):
	}
}

// ping2 fires one trigger pulse while a.now is read by the echo goroutine.
func (a *Adaptor) ping2(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ping()
}

func TestEchoSurvivesHaltedDriver(t *testing.T) {
	a, p := connectedAdaptor(t)
	closed := make(chan int64)
	close(closed) // what HCSR04Driver.Halt does to the channel its handler sends on
	p.SetEventHandlerForEdge(func(_ int, _ time.Duration, name string, _, _ uint32) {
		if name == edgeFallingName {
			closed <- 1
		}
	}, edgeRising|edgeFalling)
	a.ping2(t)
	time.Sleep(20 * time.Millisecond)
	// The echo goroutine must still be alive and answering.
	got := make(chan struct{}, 2)
	p.SetEventHandlerForEdge(func(int, time.Duration, string, uint32, uint32) { got <- struct{}{} }, edgeRising)
	a.ping2(t)
	select {
	case <-got:
	case <-time.After(time.Second):
		t.Fatal("echo goroutine died after a send on a closed channel")
	}
}

func TestFinalizeReportsStuckHandler(t *testing.T) {
	e := newEchoer()
	release := make(chan struct{})
	go func() {
		defer close(e.done)
		<-release // stands in for a driver handler that never returns
	}()
	if err := e.stopAndWait(20 * time.Millisecond); err == nil {
		t.Fatal("stopAndWait did not report the stuck goroutine")
	}
	close(release)
	if err := e.stopAndWait(time.Second); err != nil {
		t.Fatalf("after the handler returned: %v", err)
	}
}
