package missions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/standard"
)

// TestExampleMissions loads every mission in configs/missions with the
// built-in registry, then runs it on a virtual clock at its tick rate:
// each must succeed within a few seconds of mission time.
func TestExampleMissions(t *testing.T) {
	paths := files(t, filepath.Join("..", "configs", "missions", "*"))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			hwFile := "sim.yaml" // the simulated rover
			if filepath.Base(path) == "survey.json" {
				hwFile = "uav-sim-hw.yaml" // a MAVLink vehicle
			}
			kinds := standard.Kinds()
			hw, err := kinds.LoadConfig(filepath.Join("..", "configs", hwFile))
			if err != nil {
				t.Fatal(err)
			}
			reg := catalog.NewRegistry()
			drivers.Register(reg, kinds, hw)
			if _, err := Load(data, Options{Registry: reg, Keys: hw.SensorKeys(), MinTickHz: 1, MaxTickHz: 100}); err != nil {
				t.Fatalf("%s does not load:\n%s", path, problemLines(err))
			}
			m, err := Load(data, Options{Registry: catalog.NewRegistry(), MinTickHz: 1, MaxTickHz: 100})
			if err != nil {
				t.Skipf("uses device leaves: run on the simulator by cmd/botd's tests")
			}
			hz := m.Doc.TickHz
			if hz == 0 {
				hz = 10
			}
			st, seconds, logs := runVirtual(m, hz, 30)
			if st != bt.Success || seconds > 10 {
				t.Errorf("ended %v after %.2f s of mission time; want SUCCESS within 10 s", st, seconds)
			}
			for _, l := range logs {
				if strings.Contains(l, "<unset>") {
					t.Errorf("log line with an unset key: %q", l)
				}
			}
			t.Logf("%v after %.2f s; log:\n  %s", st, seconds, strings.Join(logs, "\n  "))
		})
	}
}

// runVirtual ticks one agent at hz until the root completes or limit
// seconds pass; tick k happens at k/hz seconds.
func runVirtual(m *Mission, hz, limit float64) (bt.Status, float64, []string) {
	sink := &logSink{}
	a := bt.NewAgent(m.Tree, 0, 0)
	a.Sink = sink
	for k := 1; float64(k) <= limit*hz; k++ {
		now := int64(float64(k) * 1e9 / hz)
		if st := a.Tick(now); st != bt.Running {
			return st, float64(now) / 1e9, sink.lines
		}
	}
	return bt.Running, limit, sink.lines
}

type logSink struct{ lines []string }

func (s *logSink) Emit(_ *bt.Agent, _ int32, level, msg string) {
	s.lines = append(s.lines, level+": "+msg)
}
