package main

import (
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// heavyBoard matches the packages only a firmata board needs: gobot's firmata adaptor and the
// BLE stack it pulls in (gobot's BLE client, tinygo's bluetooth, dbus).
var heavyBoard = regexp.MustCompile(`(?i)firmata|bluetooth|dbus|gobot/v2/drivers/ble$|bleclient`)

// TestDefaultBuildLeavesFirmataOut: the default botd links the simulator and the Raspberry Pi
// only; -tags firmata adds firmata (docs/DEPLOYMENT.md, "Binary size and board support").
func TestDefaultBuildLeavesFirmataOut(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	deps := func(tags string) []string {
		t.Helper()
		// -tags on the command line overrides any -tags in GOFLAGS.
		out, err := exec.Command(goTool, "list", "-deps", "-tags="+tags, ".").Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("go list -deps -tags=%s: %v\n%s", tags, err, ee.Stderr)
			}
			t.Fatalf("go list -deps -tags=%s: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	def := deps("")
	if runtime.GOOS == "linux" && !slices.Contains(def, "gobot.io/x/gobot/v2/platforms/raspi") {
		t.Error("the default build has no raspi adaptor") // (Build needs Linux, so only there)
	}
	for _, p := range def {
		if heavyBoard.MatchString(p) {
			t.Errorf("the default build links %s", p)
		}
	}
	if !slices.Contains(deps("firmata"), "gobot.io/x/gobot/v2/platforms/firmata") {
		t.Error("-tags firmata does not link gobot's firmata adaptor")
	}
}
