package mavlink

import (
	"io"
	"log/slog"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
)

// quiet drops the robots' logs in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// kinds is a registry of this family's kind alone.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	Register(r)
	return r
}

func parse(t testing.TB, y string) *drivers.Config {
	t.Helper()
	return drivertest.Parse(t, kinds(), y)
}

func registry(cfg *drivers.Config) *bt.Registry { return drivertest.Registry(cfg) }

func compileTree(t testing.TB, cfg *drivers.Config, root *bt.NodeDef) *bt.Tree {
	t.Helper()
	return drivertest.CompileTree(t, cfg, root)
}

var nd = drivertest.Node

type kv = map[string]any

type sink = drivertest.Sink

func skipOffLinux(t testing.TB) { t.Helper(); drivertest.SkipOffLinux(t) }
