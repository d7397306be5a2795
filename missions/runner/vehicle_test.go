package runner

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fakeUAV is a robot with a vehicle: it records the failsafe actions.
type fakeUAV struct {
	*fakeHW
	mu      sync.Mutex
	actions []string
}

func (h *fakeUAV) Failsafe(action string) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.actions = append(h.actions, action)
	return true, nil
}

func (h *fakeUAV) got() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.actions)
}

func startUAV(t *testing.T, mod func(*Config)) (*testRunner, *fakeUAV) {
	var uav *fakeUAV
	tr := startRunner(t, "", func(c *Config) {
		uav = &fakeUAV{fakeHW: c.Hardware.(*fakeHW)}
		c.Hardware = uav
		mod(c)
	})
	return tr, uav
}

func (tr *testRunner) waitActions(uav *fakeUAV, want ...string) {
	tr.t.Helper()
	testutil.Eventually(tr.t, waitEvent, fmt.Sprintf("vehicle actions %v", want), func() bool { return slices.Equal(uav.got(), want) }, func() string {
		return fmt.Sprintf("actions %v (events %v)", uav.got(), tr.events.kinds())
	})
}

func TestRunnerUAVBatteryLowReturnsHomeCriticalLands(t *testing.T) {
	tr, uav := startUAV(t, func(c *Config) {
		c.Failsafe.BatteryLowAction, c.Failsafe.BatteryAction = ActionReturnHome, ActionLand
	})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 22)
	s := tr.waitMode(protocol.ModeFailsafe)
	if s.Failsafe.Reason != "battery_low" || s.Failsafe.Action != ActionReturnHome {
		t.Fatalf("failsafe %+v", s.Failsafe)
	}
	tr.waitActions(uav, ActionReturnHome)
	tr.hw.set("battery.percent", 8)
	tr.waitActions(uav, ActionReturnHome, ActionLand)
	s = tr.waitFor("battery_critical", func(s protocol.State) bool { return s.Failsafe.Reason == "battery_critical" })
	if s.Mode != protocol.ModeFailsafe || s.Failsafe.Action != ActionLand {
		t.Fatalf("mode %s failsafe %+v", s.Mode, s.Failsafe)
	}
}

func TestRunnerUAVBatteryLowWarnsOnlyByDefault(t *testing.T) {
	tr, uav := startUAV(t, func(c *Config) { c.Failsafe.BatteryAction = ActionLand })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 22)
	tr.waitFor("battery warning", func(s protocol.State) bool { return len(s.Errors) > 0 })
	tr.hw.set("battery.percent", 9)
	tr.waitActions(uav, ActionLand)
}

func TestRunnerUAVLinkLossAction(t *testing.T) {
	for _, c := range []struct{ onLinkLoss, config, want string }{
		{"", ActionReturnHome, ActionReturnHome},
		{`"on_link_loss":"land"`, ActionReturnHome, ActionLand},
	} {
		t.Run(c.want, func(t *testing.T) {
			tr, uav := startUAV(t, func(cfg *Config) {
				cfg.Failsafe.LinkLossTimeout = time.Millisecond
				cfg.Failsafe.LinkLossAction = c.config
			})
			var extra []string
			if c.onLinkLoss != "" {
				extra = append(extra, c.onLinkLoss)
			}
			tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong, extra...), Start: true})
			tr.waitMode(protocol.ModeRunning)
			tr.SetLink(protocol.LinkState{Broker: false})
			tr.waitActions(uav, c.want)
			s := tr.waitMode(protocol.ModeFailsafe)
			if s.Failsafe.Reason != "link_lost" {
				t.Fatalf("failsafe %+v", s.Failsafe)
			}
		})
	}
}

func TestRunnerVehicleActionWithoutAVehicleHolds(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Failsafe.BatteryAction = ActionLand })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 5)
	tr.waitMode(protocol.ModeFailsafe)
	deadline := time.Now().Add(waitEvent)
	for {
		for _, e := range tr.events.snapshot() {
			if e.Kind == "failsafe.error" && strings.Contains(e.Message, "no vehicle") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failsafe.error event: %v", tr.events.kinds())
		}
		time.Sleep(time.Millisecond)
	}
}
