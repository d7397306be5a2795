package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"

	"github.com/botd-project/botd/telemetry/protocol"
)

// notifier speaks systemd's notify protocol (Type=notify, WatchdogSec):
// READY once the tick loop has ticked and the broker connection is up,
// then WATCHDOG pings at half the watchdog interval, but only while the
// tick count moves: a hung tick loop stops the pings, and systemd
// restarts the daemon, which comes up with the robot in its safe state.
// Outside systemd (no NOTIFY_SOCKET) it does nothing.
type notifier struct {
	state func() protocol.State
	log   *slog.Logger
	// notify sends one message; daemon.SdNotify outside tests.
	notify func(state string) (bool, error)
	// interval is the watchdog interval (0: no watchdog).
	interval time.Duration
	poll     time.Duration
}

// newNotifier returns nil outside systemd (no NOTIFY_SOCKET): nothing
// would listen, so nothing polls the runner's state.
func newNotifier(state func() protocol.State, log *slog.Logger) (*notifier, error) {
	if os.Getenv("NOTIFY_SOCKET") == "" {
		return nil, nil
	}
	n := &notifier{state: state, log: log, poll: 50 * time.Millisecond,
		notify: func(s string) (bool, error) { return daemon.SdNotify(false, s) }}
	iv, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		return nil, fmt.Errorf("systemd watchdog: %w", err)
	}
	n.interval = iv
	return n, nil
}

// run sends READY when the daemon is ready and feeds the watchdog until
// ctx is done; then it says STOPPING.
func (n *notifier) run(ctx context.Context) {
	t := time.NewTicker(n.poll)
	defer t.Stop()
	ready, stalled := false, false
	var lastCount uint64
	var lastPing time.Time
	for {
		select {
		case <-ctx.Done():
			_, _ = n.notify(daemon.SdNotifyStopping)
			return
		case now := <-t.C:
			s := n.state()
			if !ready {
				if s.Tick.Count == 0 || !s.Link.Broker {
					continue
				}
				ready = true
				lastCount = s.Tick.Count
				if _, err := n.notify(daemon.SdNotifyReady + "\nSTATUS=ticking, broker connected"); err != nil {
					n.log.Warn("systemd notify", "err", err)
				}
				if n.interval <= 0 {
					// No watchdog: nothing more to say until the end.
					t.Stop()
				} else {
					// Ready: a poll every quarter interval keeps the
					// pings at half of it.
					t.Reset(max(n.poll, n.interval/4))
				}
				continue
			}
			if n.interval <= 0 || now.Sub(lastPing) < n.interval/2 {
				continue
			}
			if s.Tick.Count == lastCount {
				// No tick since the last ping: no ping, so the watchdog fires.
				if !stalled {
					stalled = true
					n.log.Error("the tick loop has not ticked since the last watchdog ping; systemd will restart botd", "ticks", s.Tick.Count)
				}
				continue
			}
			stalled = false
			lastCount, lastPing = s.Tick.Count, now
			_, _ = n.notify(daemon.SdNotifyWatchdog)
		}
	}
}
