package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/botd-project/botd/drivers/standard"
)

// TestSimLightIsTheDefaultRoverSlower: the light robot of the fleet tables is
// configs/sim.yaml with slower sensors and nothing else, and a hardware
// config the daemon takes.
func TestSimLightIsTheDefaultRoverSlower(t *testing.T) {
	def := significant(t, "../../configs/sim.yaml")
	light := significant(t, "sim-light.yaml")
	if len(def) != len(light) {
		t.Fatalf("sim-light.yaml has %d lines that are not comments, configs/sim.yaml %d: keep them the same file but rate_hz", len(light), len(def))
	}
	slower := 0
	for i := range def {
		if def[i] == light[i] {
			continue
		}
		d, okd := strings.CutPrefix(def[i], "rate_hz: ")
		l, okl := strings.CutPrefix(light[i], "rate_hz: ")
		if !okd || !okl {
			t.Errorf("line %d differs beyond rate_hz:\n configs/sim.yaml: %s\n sim-light.yaml:  %s", i+1, def[i], light[i])
			continue
		}
		dv, errd := strconv.ParseFloat(d, 64)
		lv, errl := strconv.ParseFloat(l, 64)
		if errd != nil || errl != nil || lv >= dv {
			t.Errorf("rate_hz %s in sim-light.yaml is not slower than configs/sim.yaml's %s", l, d)
		}
		slower++
	}
	if slower == 0 {
		t.Error("sim-light.yaml reads no sensor slower than configs/sim.yaml")
	}
	data, err := os.ReadFile("sim-light.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := standard.Kinds().ParseConfig(data); err != nil {
		t.Fatalf("sim-light.yaml: %v", err)
	}
}

// significant returns the file's lines without comments, indentation and
// blank lines.
func significant(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line[:i], `"`) {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
