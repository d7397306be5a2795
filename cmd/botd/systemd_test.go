package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The notifier says READY only once the tick loop ticks and the broker is
// connected, then pings the watchdog while ticks advance, and stops
// pinging when the tick loop hangs (so systemd restarts the daemon).
func TestNotifierFeedsTheWatchdogOnlyWhileTicking(t *testing.T) {
	var ticks atomic.Uint64
	var broker atomic.Bool
	var mu sync.Mutex
	var sent []string
	n := &notifier{
		state: func() protocol.State {
			return protocol.State{Tick: protocol.TickSummary{Count: ticks.Load()}, Link: protocol.LinkState{Broker: broker.Load()}}
		},
		log:      slog.New(slog.DiscardHandler),
		notify:   func(s string) (bool, error) { mu.Lock(); sent = append(sent, s); mu.Unlock(); return true, nil },
		interval: 40 * time.Millisecond,
		poll:     time.Millisecond,
	}
	count := func(prefix string) int {
		mu.Lock()
		defer mu.Unlock()
		c := 0
		for _, s := range sent {
			if strings.HasPrefix(s, prefix) {
				c++
			}
		}
		return c
	}
	sentSoFar := func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("sent %v", sent)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { n.run(ctx); close(done) }()

	ticks.Store(5) // ticking, but no broker yet: not ready
	for range 100 {
		time.Sleep(time.Millisecond) // give it polls to get it wrong; never an assertion of speed
	}
	if count("READY=1") != 0 {
		t.Fatal("READY before the broker connection")
	}
	broker.Store(true)
	waitUntil(t, "READY", func() bool { return count("READY=1") == 1 }, sentSoFar)
	// The tick loop advances: a ping follows each advance.
	for range 3 {
		pings := count("WATCHDOG=1")
		ticks.Add(1)
		waitUntil(t, "a watchdog ping after a tick", func() bool { return count("WATCHDOG=1") > pings }, sentSoFar)
	}
	// Then it hangs: no tick since the last ping, so no ping at all for
	// several watchdog intervals (systemd would kill and restart botd).
	hungAt := count("WATCHDOG=1")
	for range 5 {
		time.Sleep(n.interval)
	}
	if c := count("WATCHDOG=1"); c != hungAt {
		t.Fatalf("%d pings while the tick loop was hung", c-hungAt)
	}
	ticks.Add(1)
	waitUntil(t, "pings again once it ticks", func() bool { return count("WATCHDOG=1") > hungAt }, sentSoFar)
	cancel()
	<-done
	if count("STOPPING=1") != 1 {
		t.Fatal("no STOPPING at the end")
	}
}

// A real daemon under a notify socket (as systemd runs it) says READY.
func TestDaemonNotifiesSystemd(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("no unix datagram sockets: %v", err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "2000000")
	t.Setenv("WATCHDOG_PID", "")
	p := startDaemonProc(t, "-listen", freeAddr(t), "-state-dir", t.TempDir())
	got := map[string]bool{}
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	for !got["READY=1"] || !got["WATCHDOG=1"] {
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("notify socket: %v (got %v)", err, got)
		}
		for _, line := range strings.Split(string(buf[:n]), "\n") {
			got[line] = true
		}
	}
	p.stop(t)
	_ = os.Getpid
}

// Outside systemd (no NOTIFY_SOCKET) there is no notifier: nothing polls
// the runner's state for nobody.
func TestNoNotifierOutsideSystemd(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	n, err := newNotifier(func() protocol.State { t.Fatal("state read"); return protocol.State{} }, slog.New(slog.DiscardHandler))
	if err != nil || n != nil {
		t.Fatalf("newNotifier without NOTIFY_SOCKET = %v, %v; want nil, nil", n, err)
	}
}
