package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// publishFleet publishes, retained, what n robots keep on the broker:
// connection (every tenth OFFLINE), state (modes in turn, battery by
// index) and a factsheet with labels and about pad bytes of devices.
func publishFleet(t *testing.T, url string, n, pad int) {
	t.Helper()
	pub := mqtttest.NewPublisher(t, url)
	modes := []string{protocol.ModeRunning, protocol.ModeIdle, protocol.ModePaused, protocol.ModeRunning}
	devices := []protocol.Device{}
	for i := 0; i*100 < pad; i++ {
		devices = append(devices, protocol.Device{Name: fmt.Sprintf("device-%03d", i), Kind: "range", Driver: "hcsr04",
			Params: map[string]any{"trigger": i, "echo": i + 1, "max_range": 4.0}})
	}
	ts := protocol.FormatTS(time.Now())
	put := func(topic string, v any) {
		b, _ := json.Marshal(v)
		if err := pub.Publish(topic, protocol.QoSRetained, true, b); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		id := fmt.Sprintf("bot-%04d", i)
		tp, _ := protocol.NewTopics("", id)
		h := protocol.Header{Robot: id, Seq: 1, TS: ts}
		conn := protocol.ConnOnline
		if i%10 == 9 {
			conn = protocol.ConnOffline
		}
		put(tp.Connection(), protocol.ConnectionMsg{Header: h, State: conn})
		put(tp.State(), protocol.StateMsg{Header: h, State: protocol.State{Mode: modes[i%4], RequestedMode: modes[i%4],
			Errors: []protocol.StateError{}, Battery: &protocol.BatteryState{Percent: float64(i % 97), Voltage: 12}}})
		site := "north"
		if i%2 == 1 {
			site = "south"
		}
		put(tp.Factsheet(), protocol.FactsheetMsg{Header: h, Version: "test", Devices: devices,
			Labels: map[string]string{"site": site, "kind": "rover"}})
	}
}

// `botctl robots` with 1,000 robots: all listed, filtered by mode, online
// and labels, sorted; bad flags are usage errors. The times are logged.
func TestRobotsThousand(t *testing.T) {
	const n = 1000
	b := mqtttest.StartBroker(t, "")
	publishFleet(t, b.URL(), n, 8<<10)
	broker := "--broker=" + b.URL()

	start := time.Now()
	r := botctl(t, "robots", broker)
	plain := time.Since(start)
	if r.code != 0 {
		t.Fatalf("robots: %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != n+1 || !strings.HasPrefix(lines[1], "bot-0000 ") || !strings.HasPrefix(lines[n], "bot-0999 ") {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), n+1, strings.Join(lines[:min(5, len(lines))], "\n"))
	}

	// Paused and online: i%4 == 2 and i%10 != 9.
	want := 0
	for i := range n {
		if i%4 == 2 && i%10 != 9 {
			want++
		}
	}
	r = botctl(t, "robots", broker, "--mode", "paused", "--online")
	if got := strings.Count(r.stdout, "\n") - 1; r.code != 0 || got != want || strings.Contains(r.stdout, "RUNNING") {
		t.Errorf("--mode paused --online: %d rows, want %d\n%s", got, want, r)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("%d of %d robots match", want, n)) {
		t.Errorf("no count on stderr: %s", r.stderr)
	}

	start = time.Now()
	r = botctl(t, "robots", broker, "--label", "site=south", "--mode", "RUNNING,IDLE", "--sort", "-battery", "--labels")
	labelled := time.Since(start)
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")[1:]
	want = 0
	for i := range n {
		if i%2 == 1 && (i%4 == 1 || i%4 == 3) {
			want++
		}
	}
	if r.code != 0 || len(rows) != want {
		t.Fatalf("--label site=south: %d rows, want %d\n%s", len(rows), want, r.stderr)
	}
	last := 101.0
	for _, row := range rows {
		var pct float64
		f := strings.Fields(row)
		if !strings.Contains(row, "site=south") || !strings.Contains(row, "kind=rover") {
			t.Fatalf("row without its labels: %s", row)
		}
		for i, x := range f {
			if strings.HasSuffix(x, "%") && i+1 < len(f) && strings.HasPrefix(f[i+1], "(") {
				fmt.Sscanf(x, "%f%%", &pct)
			}
		}
		if pct > last {
			t.Fatalf("not sorted by battery, descending: %s after %.0f%%", row, last)
		}
		last = pct
	}

	r = botctl(t, "robots", broker, "--json", "--label", "site=north", "--label", "kind=rover", "--sort", "label:site")
	var out []robotJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != n/2 || out[0].Labels["site"] != "north" {
		t.Errorf("--json with labels: %d robots, %v\n%.300s", len(out), err, r.stdout)
	}

	for _, args := range [][]string{{"--mode", "flying"}, {"--sort", "weight"}, {"--label", "nokey"}, {"--label", "=x"}} {
		if r := botctl(t, append([]string{"robots", broker}, args...)...); r.code != exitUsage {
			t.Errorf("robots %v: exit %d, want %d (usage)\n%s", args, r.code, exitUsage, r)
		}
	}
	t.Logf("botctl robots, %d robots: %v; with --label (and their ~8 KiB factsheets): %v", n, plain.Round(time.Millisecond), labelled.Round(time.Millisecond))
}

// The selection of `botctl robots`: filters by mode, connection and
// labels, sorts by a key with the id after it, refuses bad flags.
func TestRobotSelection(t *testing.T) {
	st := func(mode string, batt float64) *protocol.StateMsg {
		return &protocol.StateMsg{State: protocol.State{Mode: mode, Battery: &protocol.BatteryState{Percent: batt}}}
	}
	rows := []robotJSON{
		{ID: "c", Connection: protocol.ConnOnline, State: st("RUNNING", 50), Labels: map[string]string{"site": "north"}},
		{ID: "a", Connection: protocol.ConnOffline, State: st("PAUSED", 80), Labels: map[string]string{"site": "north"}},
		{ID: "b", Connection: protocol.ConnOnline, State: st("RUNNING", 50), Labels: map[string]string{"site": "south"}},
		{ID: "d", Connection: protocol.ConnOnline},
	}
	pick := func(o robotsOptions) string {
		t.Helper()
		sel, err := o.compile()
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		var out []robotJSON
		for _, r := range rows {
			if sel.match(r) {
				out = append(out, r)
			}
		}
		sel.sortRows(out)
		ids := ""
		for _, r := range out {
			ids += r.ID
		}
		return ids
	}
	for _, tc := range []struct {
		o    robotsOptions
		want string
	}{
		{robotsOptions{}, "abcd"},
		{robotsOptions{modes: "running"}, "bc"},
		{robotsOptions{modes: "running, paused", online: true}, "bc"},
		{robotsOptions{labels: labelFlags{"site=north"}}, "ac"},
		{robotsOptions{labels: labelFlags{"site=north"}, modes: "RUNNING"}, "c"},
		{robotsOptions{labels: labelFlags{"site="}}, ""},
		{robotsOptions{sort: "-battery"}, "abcd"},
		{robotsOptions{sort: "battery"}, "dbca"},
		{robotsOptions{sort: "label:site"}, "dacb"},
		{robotsOptions{sort: "-label:site"}, "bacd"},
		{robotsOptions{sort: "connection"}, "abcd"},
	} {
		if got := pick(tc.o); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
	if sel, _ := (robotsOptions{sort: "label:site"}).compile(); !sel.needLabels {
		t.Error("a label sort does not read the factsheets")
	}
	for _, o := range []robotsOptions{{modes: "FLYING"}, {sort: "weight"}, {sort: "label:"}} {
		if _, err := o.compile(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	var l labelFlags
	if l.Set("site") == nil || l.Set("=x") == nil || l.Set("site=north") != nil {
		t.Errorf("label flag checks: %v", l)
	}
}
