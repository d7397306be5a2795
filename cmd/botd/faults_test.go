package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/faultnet"
	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/google/uuid"
)

// eventSeqs returns the distinct event seqs a ground station has, sorted,
// and the boots it saw them under.
func (r *groundRec) eventSeqs() (seqs []uint64, boots map[uint64]bool) {
	seen := map[uint64]bool{}
	boots = map[uint64]bool{}
	for _, e := range r.events {
		if !seen[e.Seq] {
			seen[e.Seq] = true
			seqs = append(seqs, e.Seq)
		}
		boots[e.Boot] = true
	}
	slices.Sort(seqs)
	return seqs, boots
}

// firstGap is the first missing seq in 1..last, or 0.
func firstGap(seqs []uint64) uint64 {
	for i, s := range seqs {
		if s != uint64(i)+1 {
			return uint64(i) + 1
		}
	}
	return 0
}

// The robot on a slow network that keeps failing, its broker restarted,
// the daemon killed with SIGKILL mid-mission and started again: no event
// is lost (a ground station that asks for the history has every seq from
// 1, continuing across the restart under a new boot), every command is
// answered, and the restarted robot does not move on its own (the
// interrupted mission waits for an operator).
func TestFaultsNothingLost(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	b := mqtttest.StartBroker(t, "")
	brokerAddr := b.Addr()
	proxy, err := faultnet.Start(brokerAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	proxy.SetDelay(20 * time.Millisecond)
	dir := t.TempDir()
	const robot = "rover-f"
	p := startDaemonProc(t, "-broker", proxy.URL(), "-state-dir", dir, "-robot", robot)
	r := newGround(t, b.URL(), robot)
	r.waitFor(t, "the patrol running", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeRunning })

	// Faults, in turn: network cuts while commands flow, a broker restart,
	// a SIGKILL of the daemon. Commands go from their own goroutine, each
	// resent by the ground station (same id) until its one reply comes.
	stopSending := make(chan struct{})
	sendErr := make(chan error, 1)
	var sent atomic.Int64
	go func() {
		defer close(sendErr)
		for i := 0; ; i++ {
			select {
			case <-stopSending:
				return
			default:
			}
			op := protocol.OpMissionPause
			if i%2 == 1 {
				op = protocol.OpMissionResume
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			rep, err := r.g.Send(ctx, robot, protocol.Command{ID: uuid.NewString(), Op: op})
			cancel()
			if err == nil && !rep.OK {
				err = fmt.Errorf("%s refused: %+v", op, rep.Error)
			}
			if err != nil {
				sendErr <- err
				return
			}
			sent.Add(1)
		}
	}()
	onlines := func(r *groundRec) int {
		n := 0
		for _, c := range r.conn {
			if c == protocol.ConnOnline {
				n++
			}
		}
		return n
	}
	for range 3 {
		r.mu.Lock()
		before := onlines(r)
		r.mu.Unlock()
		proxy.Cut()
		r.waitFor(t, "the robot back online after a network cut", func(r *groundRec) bool { return onlines(r) > before })
	}
	close(stopSending)
	if err := <-sendErr; err != nil {
		t.Fatalf("a command through the failing network: %v", err)
	}

	b.Close()
	mqtttest.StartBroker(t, brokerAddr) // closed when the test ends
	r.waitFor(t, "ONLINE after the broker restart", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnOnline && r.g.Conn().IsUp() })
	if rep := r.send(t, robot, protocol.Command{Op: protocol.OpMissionPause}); !rep.OK {
		t.Fatalf("pause after the broker restart: %+v", rep.Error)
	}
	r.waitFor(t, "the pause event", func(r *groundRec) bool { return r.hasEvent("mission.paused") })
	// SIGKILL at a random moment of the next half second, whatever the
	// daemon is writing then.
	time.Sleep(time.Duration(rand.Int64N(int64(500 * time.Millisecond))))
	p.cmd.Process.Kill()
	p.cmd.Wait()
	r.waitFor(t, "the last will", func(r *groundRec) bool { return r.conn[len(r.conn)-1] == protocol.ConnBroken })

	p2 := startDaemonProc(t, "-broker", proxy.URL(), "-state-dir", dir, "-robot", robot)
	r.waitFor(t, "the interrupted mission reported", func(r *groundRec) bool { return r.hasEvent("mission.interrupted") })
	if s := r.lastState(); s.Mode == protocol.ModeRunning {
		t.Fatalf("the robot runs again on its own after a crash: %+v", s.State)
	}

	// History: the ground station asks for everything, as one that lost
	// its session would.
	rep := r.send(t, robot, protocol.Command{Op: protocol.OpEventsRequest})
	if !rep.OK {
		t.Fatalf("events.request: %+v", rep.Error)
	}
	last := uint64(rep.Result["last_seq"].(float64))
	r.waitFor(t, fmt.Sprintf("every event up to %d", last), func(r *groundRec) bool {
		seqs, _ := r.eventSeqs()
		return len(seqs) > 0 && seqs[len(seqs)-1] >= last && firstGap(seqs) == 0
	})
	r.mu.Lock()
	seqs, boots := r.eventSeqs()
	r.mu.Unlock()
	if len(boots) != 2 {
		t.Errorf("events came under boots %v, want two", boots)
	}
	t.Logf("%d commands answered, %d events, seq 1..%d without a gap, %d network cuts, boots %v", sent.Load(), len(seqs), seqs[len(seqs)-1], proxy.Cuts(), boots)
	p2.stop(t)
}
