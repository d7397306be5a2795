//go:build linux

package gps

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"gobot.io/x/gobot/v2"
	"golang.org/x/sys/unix"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/internal/mqtttest"
)

// bareBoard is a board with nothing on it: the GPS opens its port itself.
type bareBoard struct{ name string }

func (b *bareBoard) Name() string     { return b.name }
func (b *bareBoard) SetName(n string) { b.name = n }
func (b *bareBoard) Connect() error   { return nil }
func (b *bareBoard) Finalize() error  { return nil }

// openPTY opens a pseudo-terminal: what is written to master arrives on the serial device at
// the returned path, as a GPS receiver's bytes would.
func openPTY(t *testing.T) (master *os.File, path string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	return m, fmt.Sprintf("/dev/pts/%d", n)
}

// TestGPSOnASerialPort runs the gps kind end to end on a real serial device (a pseudo-terminal
// playing the receiver): the port is opened raw at its baud rate, a goroutine reads it, and
// the fixes reach the blackboard keys in the local frame; Close stops the reader.
func TestGPSOnASerialPort(t *testing.T) {
	master, port := openPTY(t)
	cfg := drivertest.Parse(t, kinds(), fmt.Sprintf(`
adaptors: {pi: {kind: raspi}}
devices:
  - {name: gps, kind: gps, port: %s, baud: 9600, origin: {lat: 52.5163, lon: 13.3777}, rate_hz: 10}
`, port))
	r, err := drivers.Build(cfg, drivers.Options{Name: "rover", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewBoard: func(name string, _ *drivers.AdaptorConfig) (gobot.Adaptor, error) { return &bareBoard{name: name}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	fix := rmc(52.5163, 13.3807, 3, 90) + gga(52.5163, 13.3807, 2, 9, 0.9) // 203.6 m east, heading east
	mqtttest.Eventually(t, "a fix on the blackboard", func() bool {
		if _, err := master.Write([]byte(fix)); err != nil {
			t.Fatal(err)
		}
		_, _, ok := r.Reading("gps.x")
		return ok
	})
	got := map[string]float64{}
	for _, k := range cfg.SensorKeys() {
		got[k], _, _ = r.Reading(k)
	}
	t.Logf("%v", got)
	if math.Abs(got["gps.x"]-203.6) > 0.5 || math.Abs(got["gps.y"]) > 0.1 || math.Abs(got["gps.heading"]) > 0.01 ||
		got["gps.fix"] != 2 || got["gps.quality"] != 0.6 || math.Abs(got["gps.sigma"]-0.9) > 1e-9 {
		t.Errorf("readings %v", got)
	}
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("close: %v", err)
		}
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("Close did not stop the reader")
	}
}
