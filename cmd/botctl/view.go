package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/botd-project/botd/telemetry/protocol"
)

// styles are the view's colors, made from one renderer so that tests can
// render without ANSI codes.
type styles struct {
	running, success, failure, errorS, idle lipgloss.Style
	bold, dim, good, bad, warn, title       lipgloss.Style
	estop, key, reason                      lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	s := r.NewStyle
	return styles{
		running: s().Foreground(lipgloss.Color("11")).Bold(true),
		success: s().Foreground(lipgloss.Color("10")),
		failure: s().Foreground(lipgloss.Color("9")),
		errorS:  s().Foreground(lipgloss.Color("13")),
		idle:    s().Faint(true),
		bold:    s().Bold(true),
		dim:     s().Faint(true),
		good:    s().Foreground(lipgloss.Color("10")),
		bad:     s().Foreground(lipgloss.Color("9")).Bold(true),
		warn:    s().Foreground(lipgloss.Color("11")),
		title:   s().Bold(true).Foreground(lipgloss.Color("14")),
		estop:   s().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("9")),
		key:     s().Bold(true),
		reason:  s().Foreground(lipgloss.Color("9")).Italic(true),
	}
}

func (st styles) status(s byte) lipgloss.Style {
	switch s {
	case 'R':
		return st.running
	case 'S':
		return st.success
	case 'F':
		return st.failure
	case 'E':
		return st.errorS
	}
	return st.idle
}

func (m *watchModel) View() string { return m.render(m.now()) }

const eventRows = 6

// render draws the whole screen at time now.
func (m *watchModel) render(now time.Time) string {
	st := m.st
	head := m.header(now)
	var foot []string
	if lines := m.failureLines(now); lines != nil {
		foot = append(append(foot, m.rule(" last failure ")), lines...)
	}
	label := " events "
	if m.history != "" {
		label = " events · history: " + m.history + " "
	}
	foot = append(foot, m.rule(label))
	evs := m.events
	if len(evs) > eventRows {
		evs = evs[len(evs)-eventRows:]
	}
	for _, e := range evs {
		line := eventLine(e, m.loc)
		switch strings.ToLower(e.Level) {
		case "error", "critical":
			line = st.bad.Render(line)
		case "warning", "warn":
			line = st.warn.Render(line)
		}
		foot = append(foot, line)
	}
	if len(evs) == 0 {
		foot = append(foot, st.dim.Render("(none yet)"))
	}
	if m.warning != "" && now.Sub(m.warningAt) < warningShown {
		w := "⚠ " + m.warningAt.In(m.loc).Format("15:04:05") + " " + m.warning
		if m.warnings > 1 {
			w += fmt.Sprintf(" (%d warnings)", m.warnings)
		}
		foot = append(foot, st.warn.Render(w))
	}
	foot = append(foot, m.rule(""))
	switch {
	case m.confirm != "":
		foot = append(foot, st.bad.Render(fmt.Sprintf("%s? y/n", strings.ToUpper(opName(m.confirm)[:1])+opName(m.confirm)[1:])))
	case m.notice != "":
		if m.noticeBad {
			foot = append(foot, st.bad.Render(m.notice))
		} else {
			foot = append(foot, m.notice)
		}
	}
	foot = append(foot, m.keys())

	rows := m.treeRows(now)
	if m.height > 0 {
		rows = window(rows, m.height-len(head)-len(foot), m.focusRow(), st)
	}
	lines := append(append(head, rows...), foot...)
	if m.width > 0 {
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *watchModel) header(now time.Time) []string {
	st := m.st
	var lines []string
	conn := m.conn
	switch conn {
	case protocol.ConnOnline:
		conn = st.good.Render(conn)
	case "":
		conn = st.dim.Render("connection unknown")
	default:
		conn = st.bad.Render(conn)
	}
	if m.robot == "" {
		conn = st.dim.Render("no robot chosen yet")
	}
	title := st.title.Render(strings.TrimSpace("botctl watch "+m.robot)) + "  " + conn
	if m.broker != "" {
		title += "  " + st.dim.Render("via "+m.broker)
	}
	switch {
	case !m.linkUp && m.broker0:
		title += "  " + st.warn.Render("connecting to the broker…")
	case !m.linkUp:
		title += "  " + st.bad.Render("botctl: broker link down, reconnecting")
	}
	lines = append(lines, title)
	s := m.state
	switch {
	case m.robot == "":
		w := m.waiting
		if w == "" {
			w = "looking for the robot online…"
		}
		lines = append(lines, st.warn.Render("waiting: "+w))
	case s == nil && m.watchErr != "":
		lines = append(lines, st.bad.Render("cannot watch "+m.robot+": "+m.watchErr))
	case s == nil && !m.linkUp:
		lines = append(lines, st.dim.Render("no state received yet (no broker yet)"))
	case s == nil:
		lines = append(lines, st.dim.Render("no state received yet: is "+m.robot+" running? (botctl robots lists what the broker knows)"))
	default:
		mode := st.bold.Render(s.Mode)
		if s.Mode == "FAILSAFE" || s.Mode == "ESTOP" {
			mode = st.bad.Render(s.Mode)
		}
		line := "mode " + mode + "  requested " + orDash(s.RequestedMode)
		estop := "e-stop off"
		if s.EStop {
			estop = st.estop.Render(" E-STOP ENGAGED ")
		}
		fs := "failsafe none"
		if s.Failsafe.Active {
			fs = st.bad.Render("FAILSAFE " + failsafeText(s.Failsafe) + fenceNote(s.Errors))
		}
		line += "   " + estop + "   " + fs
		if since := now.Sub(m.stateAt); since > staleState {
			line += "   " + st.warn.Render("no state for "+age(since))
		}
		lines = append(lines, line)
		mission := "mission none"
		if ms := s.Mission; ms != nil {
			mission = fmt.Sprintf("mission %s (rev %d) %s", st.bold.Render(orDash(ms.Name)), ms.Revision, st.status(runLetter(ms.Status)).Render(ms.Status))
			if !ms.Started.IsZero() && ms.Finished.IsZero() {
				mission += ", started " + age(now.Sub(ms.Started)) + " ago"
			}
		}
		lines = append(lines, mission)
		t := s.Tick
		lines = append(lines, fmt.Sprintf("tick %s  last %s  jitter p99 %s  overruns %d   battery %s",
			hz(t.Hz), micros(t.LastUs), micros(t.JitterP99Us), t.Overruns, batteryText(s.Battery)))
		lines = append(lines, "link "+linkText(s.Link))
		lines = append(lines, m.vehicles.lines(st, m.vehicleModes)...)
	}
	lines = append(lines, m.syncLine(now))
	lines = append(lines, m.rule(""))
	return lines
}

// failureLines are the state's last_failure: how the mission ended, at
// which node and when, then why (nil when nothing failed).
func (m *watchModel) failureLines(now time.Time) []string {
	if m.state == nil || m.state.LastFailure == nil {
		return nil
	}
	f := m.state.LastFailure
	head, why := failureHead(f, m.loc, now), "  "+oneLine(f.Message)
	if ms := m.state.Mission; ms == nil || ms.ID != f.Mission {
		return []string{m.st.dim.Render(head + " (an earlier mission)"), m.st.dim.Render(why)}
	}
	return []string{m.st.bad.Render(head), m.st.reason.Render(why)}
}

// runLetter maps a mission run status to the letter whose color it takes.
func runLetter(status string) byte {
	switch status {
	case "RUNNING":
		return 'R'
	case "SUCCESS":
		return 'S'
	case "FAILURE", "ABORTED", "INTERRUPTED":
		return 'F'
	case "ERROR":
		return 'E'
	}
	return 'I'
}

func (m *watchModel) syncLine(now time.Time) string {
	t := &m.tree
	st := m.st
	switch {
	case !t.HaveTree:
		return st.dim.Render("tree: waiting for the tree")
	case len(t.Nodes) == 0:
		return st.dim.Render("tree: no active mission")
	}
	line := fmt.Sprintf("tree %s  status tick %d", count(len(t.Nodes), "node"), t.Tick)
	if t.Synced {
		line += "  synced"
		if !t.KeyframeAt.IsZero() {
			line += ", keyframe " + age(now.Sub(t.KeyframeAt)) + " ago"
		}
	} else if t.LastGap != "" {
		line += "  " + st.warn.Render("resyncing after a status gap ("+t.LastGap+")")
	} else {
		line += "  " + st.warn.Render("waiting for a keyframe")
	}
	if t.Gaps > 0 {
		line += fmt.Sprintf("  gaps %d", t.Gaps)
	}
	return line
}

// treeRows draws one line per node, indented, colored by status, the
// running path marked with ▶ and the time each running node has run.
func (m *watchModel) treeRows(now time.Time) []string {
	t := &m.tree
	rows := make([]string, 0, len(t.Order))
	for _, i := range t.Order {
		s := t.Status[i]
		marker := "  "
		if s == 'R' {
			marker = "▶ "
		}
		text := fmt.Sprintf("%s%s%s  %s", marker, strings.Repeat("  ", t.Depth[i]), nodeLabel(t.Nodes[i]), statusWord(s))
		if d := t.RunningFor(i, now); s == 'R' && d > 0 {
			prefix := ""
			if t.Approx[i] {
				prefix = "≥"
			}
			text += " " + prefix + age(d)
		}
		row := m.st.status(s).Render(text)
		if r, ok := t.Reasons[i]; ok {
			row += m.st.reason.Render("  ← " + oneLine(r.Message))
		}
		rows = append(rows, row)
	}
	return rows
}

// focusRow is the row to keep in view: the deepest running node.
func (m *watchModel) focusRow() int {
	focus := 0
	for row, i := range m.tree.Order {
		if m.tree.Status[i] == 'R' {
			focus = row
		}
	}
	return focus
}

// window keeps at most n rows, with focus in view; a line says how many
// rows are cut off above and below.
func window(rows []string, n, focus int, st styles) []string {
	n = max(n, 3)
	if len(rows) <= n {
		return rows
	}
	// The focus two thirds down: its ancestors matter more than what
	// comes after it.
	size := n - 2
	start := max(0, min(focus-size*2/3, len(rows)-size))
	above, below := true, true
	switch {
	case start == 0:
		above, size = false, n-1
	case start+size == len(rows):
		below, size = false, n-1
		start = len(rows) - size
	}
	// A marker for one row takes the row's place: show the row.
	if above && start == 1 {
		above, start, size = false, 0, size+1
	}
	if below && len(rows)-start-size == 1 {
		below, size = false, size+1
	}
	var out []string
	if above {
		out = append(out, st.dim.Render(fmt.Sprintf("  … %d more above", start)))
	}
	out = append(out, rows[start:start+size]...)
	if below {
		out = append(out, st.dim.Render(fmt.Sprintf("  … %d more below", len(rows)-start-size)))
	}
	return out
}

func (m *watchModel) rule(label string) string {
	w := m.width
	if w <= 0 {
		w = 80
	}
	if label == "" {
		return m.st.dim.Render(strings.Repeat("─", w))
	}
	return m.st.dim.Render("──" + label + strings.Repeat("─", max(0, w-2-ansi.StringWidth(label))))
}

func (m *watchModel) keys() string {
	k := m.st.key.Render
	return strings.Join([]string{k("p") + " pause", k("r") + " resume", k("a") + " abort", k("e") + "/" + k("space") + " E-STOP",
		k("E") + " reset e-stop", k("k") + " keyframe", k("q") + " quit"}, "  ")
}
