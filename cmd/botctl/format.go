package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Formatting shared by the commands and the watch view.

// age formats a duration for people: 850ms, 12.3s, 4m05s, 2h07m, 3d04h.
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// micros formats a figure in microseconds.
func micros(us int64) string {
	if us >= 10_000 {
		return fmt.Sprintf("%.1fms", float64(us)/1000)
	}
	return fmt.Sprintf("%dµs", us)
}

func hz(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d Hz", int64(v))
	}
	return fmt.Sprintf("%.1f Hz", v)
}

func modeText(s *protocol.State) string {
	if s.RequestedMode != "" && s.RequestedMode != s.Mode {
		return fmt.Sprintf("%s (requested %s)", s.Mode, s.RequestedMode)
	}
	return s.Mode
}

func missionText(m *protocol.MissionState) string {
	if m == nil {
		return "none"
	}
	name := m.Name
	if name == "" {
		name = shortID(m.ID)
	}
	return fmt.Sprintf("%s %s", name, m.Status)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func batteryText(b *protocol.BatteryState) string {
	if b == nil {
		return "-"
	}
	if b.Voltage <= 0 {
		return fmt.Sprintf("%.0f%%", b.Percent) // a battery that reports no voltage (a UAV's percentage)
	}
	return fmt.Sprintf("%.0f%% (%.1f V)", b.Percent, b.Voltage)
}

func linkText(l protocol.LinkState) string {
	broker := "broker down"
	if l.Broker {
		broker = "broker up"
		if l.URL != "" {
			broker += " (" + l.URL + ")"
		}
	}
	gcs := "no ground station"
	if l.GCSOnline {
		gcs = "ground station online"
	}
	return broker + ", " + gcs
}

func failsafeText(f protocol.FailsafeState) string {
	if !f.Active {
		return "none"
	}
	s := "ACTIVE"
	if f.Reason != "" {
		s += ": " + f.Reason
	}
	if f.Action != "" {
		s += " → " + f.Action
	}
	return s
}

func estopText(on bool) string {
	if on {
		return "ENGAGED"
	}
	return "off"
}

// failureText is a last_failure for people, on one line: "ERROR in
// patrol at to the waypoint (MoveTo) #17 /trees/leg/children/1 (03:01:25,
// 12.0s ago): MoveTo: pose.x is stale …".
func failureText(f *protocol.Failure, loc *time.Location, now time.Time) string {
	return failureHead(f, loc, now) + ": " + oneLine(f.Message)
}

// failureHead is failureText without the message.
func failureHead(f *protocol.Failure, loc *time.Location, now time.Time) string {
	var b strings.Builder
	if f.Status != "" {
		b.WriteString(f.Status)
	} else {
		b.WriteString("node error")
	}
	if f.MissionName != "" {
		fmt.Fprintf(&b, " in %s", f.MissionName)
	}
	if f.NodeName != "" {
		fmt.Fprintf(&b, " at %s", f.NodeName)
		if f.Node != nil {
			fmt.Fprintf(&b, " #%d", *f.Node)
		}
	}
	if f.Path != "" {
		fmt.Fprintf(&b, " %s", f.Path)
	}
	if !f.Time.IsZero() {
		fmt.Fprintf(&b, " (%s, %s ago)", f.Time.In(loc).Format("15:04:05"), age(now.Sub(f.Time)))
	}
	return b.String()
}

// nodeLabel is "name (Type)", or the type alone.
func nodeLabel(n protocol.TreeNode) string {
	if n.Name == "" || n.Name == n.Type {
		return n.Type
	}
	return fmt.Sprintf("%s (%s)", n.Name, n.Type)
}

// statusWord names a status letter.
func statusWord(s byte) string {
	switch s {
	case 'R':
		return "RUNNING"
	case 'S':
		return "SUCCESS"
	case 'F':
		return "FAILURE"
	case 'E':
		return "ERROR"
	case 'I':
		return "IDLE"
	}
	return "?"
}

// eventLine formats one event on one line.
func eventLine(e protocol.EventMsg, loc *time.Location) string {
	t := e.Event.Time
	if t.IsZero() {
		t, _ = protocol.ParseTS(e.TS)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-7s  %-20s  %s", t.In(loc).Format("15:04:05.000"), orDash(e.Level), e.Kind, oneLine(e.Message))
	if e.Node != nil {
		fmt.Fprintf(&b, " [node %d]", *e.Node)
	}
	if len(e.Data) > 0 {
		var kv []string
		for k, v := range e.Data {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
		slices.Sort(kv)
		fmt.Fprintf(&b, " {%s}", strings.Join(kv, " "))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fenceNote names, after the failsafe, the geofence zone breached and
// where botd's own return home goes (the refs of the daemon's
// GEOFENCE_BREACH and RETURNING_HOME state errors); "" for neither.
func fenceNote(errs []protocol.StateError) string {
	out := ""
	for _, e := range errs {
		switch {
		case e.Ref == "":
		case e.Code == "GEOFENCE_BREACH":
			out += ", zone " + e.Ref
		case e.Code == "RETURNING_HOME":
			out += ", returning to " + e.Ref
		}
	}
	return out
}
