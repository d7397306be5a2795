package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/botd-project/botd/telemetry/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func renderer(p termenv.Profile) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(p)
	return r
}

// fixedWatch is a watch model in a known state at t0+10s.
func fixedWatch(t *testing.T, p termenv.Profile) *watchModel {
	t.Helper()
	now := at(10 * time.Second)
	m := newWatchModel("rover-1", renderer(p), func() time.Time { return now })
	m.loc = time.UTC
	m.width = 100
	m.conn = protocol.ConnOnline
	m.state = &protocol.StateMsg{
		Header: protocol.Header{Robot: "rover-1", Seq: 40, TS: protocol.FormatTS(at(9800 * time.Millisecond))},
		State: protocol.State{
			Mode: "RUNNING", RequestedMode: "RUNNING",
			Mission: &protocol.MissionState{ID: "m1", Name: "patrol", Revision: 2, Status: "RUNNING", Started: at(0)},
			Tick:    protocol.TickSummary{Hz: 20, Count: 200, LastUs: 41, JitterP99Us: 180, Overruns: 1},
			Link:    protocol.LinkState{Broker: true, GCSOnline: true},
			Battery: &protocol.BatteryState{Voltage: 11.9, Percent: 78},
		},
	}
	m.stateAt = at(9800 * time.Millisecond)
	if err := m.tree.SetTree(testTree("m1"), at(0)); err != nil {
		t.Fatal(err)
	}
	mustApply(t, &m.tree, keyframe(1, "m1", "RRIII"), at(time.Second))
	mustApply(t, &m.tree, delta(2, "m1", ns(1, 'S'), ns(2, 'R'), ns(3, 'F'), ns(4, 'R')), at(4*time.Second))
	kf := keyframe(3, "m1", "RSRFR")
	kf.Reasons = []protocol.NodeReason{{Node: 3, Code: protocol.FailNodeError, Message: "Check: range.front is missing", Time: at(7 * time.Second)}}
	mustApply(t, &m.tree, kf, at(8*time.Second))
	node := int32(3)
	m.state.LastFailure = &protocol.Failure{Mission: "m1", MissionName: "patrol", Node: &node, Path: "/trees/main/children/2",
		NodeName: "c (Check)", Code: protocol.FailNodeError, Message: "Check: range.front is missing", Time: at(7 * time.Second)}
	m.events = []protocol.EventMsg{
		{ID: "e1", Event: protocol.Event{Time: at(0), Kind: "mission.started", Level: "info", Message: `mission "patrol" started`}},
		{ID: "e2", Event: protocol.Event{Time: at(5 * time.Second), Kind: "log", Level: "warning", Node: &node, Message: "obstacle at 0.3 m"}},
	}
	m.warn(at(9*time.Second), `could not parse the message on botd/v1/rover-1/metrics: telemetry: bad payload: not a JSON object`)
	m.say("pause: ok", false)
	return m
}

func TestWatchViewGolden(t *testing.T) {
	m := fixedWatch(t, termenv.Ascii)
	got := m.View()
	if strings.Contains(got, "\x1b[") {
		t.Fatalf("ANSI codes with colors disabled:\n%q", got)
	}
	golden(t, "watch.golden", got)
}

// With colors, each status has its own: running yellow, success green,
// failure red, idle dim.
func TestWatchViewColors(t *testing.T) {
	m := fixedWatch(t, termenv.ANSI)
	find := func(text string) string {
		view := m.View()
		for _, l := range strings.Split(view, "\n") {
			if strings.Contains(l, text) {
				return l
			}
		}
		t.Fatalf("no line with %q in\n%s", text, view)
		return ""
	}
	for _, c := range []struct{ text, code string }{
		{"root (Sequence)", "93"}, // bright yellow
		{"a (Wait)", "92"},        // bright green
		{"c (Check)", "91"},       // bright red
	} {
		if l := find(c.text); !strings.Contains(l, "\x1b[") || !strings.Contains(l, c.code) {
			t.Errorf("%s: want color %s, got %q", c.text, c.code, l)
		}
	}
	m.tree.Status[1] = 'I'
	if l := find("a (Wait)"); !strings.Contains(l, "\x1b[2m") {
		t.Errorf("idle node not dim: %q", find("a (Wait)"))
	}
	m.tree.Status[1] = 'E'
	if l := find("a (Wait)"); !strings.Contains(l, "95") {
		t.Errorf("error node not magenta: %q", l)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestWindowKeepsTheFocusInView(t *testing.T) {
	st := newStyles(renderer(termenv.Ascii))
	var rows []string
	for i := range 20 {
		rows = append(rows, string(rune('a'+i)))
	}
	for _, c := range []struct {
		n, focus int
		want     string
	}{
		{30, 0, "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t"},
		{6, 0, "a|b|c|d|e|… 15 more below"},
		{6, 10, "… 8 more above|i|j|k|l|… 8 more below"},
		{6, 19, "… 15 more above|p|q|r|s|t"},
		{6, 17, "… 15 more above|p|q|r|s|t"},
		{6, 3, "a|b|c|d|e|… 15 more below"},
		{7, 4, "a|b|c|d|e|f|… 14 more below"},
		{7, 12, "… 9 more above|j|k|l|m|n|… 6 more below"},
		{7, 3, "a|b|c|d|e|f|… 14 more below"},
		{6, 2, "a|b|c|d|e|… 15 more below"},
	} {
		got := strings.Join(window(rows, c.n, c.focus, st), "|")
		got = strings.ReplaceAll(got, "  … ", "… ")
		if got != c.want {
			t.Errorf("window(%d, focus %d) = %q, want %q", c.n, c.focus, got, c.want)
		}
	}
}

// The model's keys: p and r send at once, a and E ask first, e and space
// e-stop at once even while a question is pending, q quits.
func TestWatchKeys(t *testing.T) {
	m := newWatchModel("rover-1", renderer(termenv.Ascii), func() time.Time { return at(0) })
	var sent []string
	m.send = func(op string) (protocol.Reply, error) {
		sent = append(sent, op)
		if op == protocol.OpMissionResume {
			return protocol.Reply{Error: &protocol.ReplyError{Code: "NOT_ALLOWED_IN_MODE", Message: "resume is not possible in mode ESTOP"}}, nil
		}
		return protocol.Reply{OK: true}, nil
	}
	press := func(k string) tea.Cmd {
		var msg tea.KeyMsg
		switch k {
		case " ":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		case "ctrl+c":
			msg = tea.KeyMsg{Type: tea.KeyCtrlC}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, cmd := m.Update(msg)
		return cmd
	}
	run := func(cmd tea.Cmd) {
		for _, msg := range drain(cmd) {
			m.Update(msg)
		}
	}
	run(press("p"))
	run(press("a"))
	if m.confirm != protocol.OpMissionAbort || !strings.Contains(m.View(), "Abort? y/n") {
		t.Fatalf("a does not ask: confirm %q", m.confirm)
	}
	run(press("n"))
	run(press("a"))
	run(press("y"))
	run(press("E"))
	run(press(" ")) // e-stop wins over the pending question
	if m.confirm != "" {
		t.Error("the question stays after an e-stop")
	}
	run(press("E"))
	run(press("y"))
	run(press("e"))
	run(press("k"))
	run(press("r"))
	want := []string{"mission.pause", "mission.abort", "estop", "estop.reset", "estop", "state.request", "mission.resume"}
	if strings.Join(sent, " ") != strings.Join(want, " ") {
		t.Errorf("sent %v, want %v", sent, want)
	}
	if !m.noticeBad || !strings.Contains(m.notice, "NOT_ALLOWED_IN_MODE") {
		t.Errorf("a refusal is not shown: %q", m.notice)
	}
	for _, k := range []string{"q", "ctrl+c"} {
		if cmd := press(k); cmd == nil || !isQuit(cmd) {
			t.Errorf("%s does not quit", k)
		}
	}
}

// A payload that cannot be parsed is a one-line warning; a reconnect and
// a status gap ask for a keyframe.
func TestWatchRecovers(t *testing.T) {
	now := at(0)
	m := newWatchModel("rover-1", renderer(termenv.Ascii), func() time.Time { return now })
	var sent []string
	m.send = func(op string) (protocol.Reply, error) { sent = append(sent, op); return protocol.Reply{OK: true}, nil }
	m.connects = 1
	feed := func(msg tea.Msg) {
		_, cmd := m.Update(msg)
		for _, x := range drain(cmd) {
			m.Update(x)
		}
	}
	for _, x := range drain(m.Init()) {
		m.Update(x)
	}
	m.Update(testTree("m1"))
	feed(keyframe(1, "m1", "RRIII"))
	feed(parseError{"botd/v1/rover-1/status", protocol.ErrBadPayload})
	if !strings.Contains(m.View(), "⚠ ") || !strings.Contains(m.View(), "could not parse the message on botd/v1/rover-1/status") {
		t.Errorf("no warning in the view:\n%s", m.View())
	}
	sent = nil
	now = at(5 * time.Second)
	feed(delta(3, "m1", ns(1, 'S'))) // 2 is lost
	if len(sent) != 1 || sent[0] != protocol.OpStateRequest {
		t.Fatalf("after a gap sent %v, want a state.request", sent)
	}
	feed(keyframe(4, "m1", "RSIII"))
	if !m.tree.Synced {
		t.Fatal("not rebuilt from the keyframe")
	}
	sent = nil
	now = at(10 * time.Second)
	feed(linkMsg{up: false, connects: 1})
	if !strings.Contains(m.View(), "broker link down") {
		t.Error("a lost link is not shown")
	}
	feed(linkMsg{up: true, connects: 2})
	if len(sent) != 1 || sent[0] != protocol.OpStateRequest || m.tree.Synced {
		t.Fatalf("after a reconnect sent %v, synced %v", sent, m.tree.Synced)
	}
}

// drain runs a command and the batches it returns, like bubbletea does,
// except for ticks (which would wait).
func drain(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, drain(c)...)
		}
		return out
	case tickMsg, nil:
		return nil
	}
	return []tea.Msg{msg}
}

func isQuit(cmd tea.Cmd) bool {
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// A geofence failsafe names the zone breached and where botd's own return home goes.
func TestWatchViewNamesTheBreachedZone(t *testing.T) {
	m := fixedWatch(t, termenv.Ascii)
	m.width = 250 // the line is cut at the terminal's width
	m.state.Mode = "FAILSAFE"
	m.state.Failsafe = protocol.FailsafeState{Active: true, Reason: "geofence", Action: "hold"}
	m.state.Errors = []protocol.StateError{
		{Code: "GEOFENCE_BREACH", Level: "ERROR", Ref: "geoFence circle 0 (exclusion)", Message: "about to breach zone geoFence circle 0 (exclusion)"},
		{Code: "RETURNING_HOME", Level: "WARNING", Ref: "rally point 1 (47.3976892, 8.5456066), 1.3 m away"},
	}
	want := "FAILSAFE ACTIVE: geofence → hold, zone geoFence circle 0 (exclusion), returning to rally point 1 (47.3976892, 8.5456066), 1.3 m away"
	if view := m.View(); !strings.Contains(view, want) {
		t.Fatalf("no %q in\n%s", want, view)
	}
}
