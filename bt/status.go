package bt

import "fmt"

// Status is the result of ticking a node.
type Status uint8

// The zero Status is Idle: a node that has not run, or was halted.
const (
	Idle Status = iota
	Success
	Failure
	Running
	Error
	// Skipped is BehaviorTree.CPP's SKIPPED: the node did not run (a
	// _skipIf or _while precondition, SkipUnlessUpdated, RunOnce
	// then_skip) and its parent treats it as not ticked. Only the node
	// types that handle it as BT.CPP does may have a child that returns it
	// (Tree.SkipProblems). Telemetry shows a skipped node as idle, as
	// BT.CPP leaves it IDLE.
	Skipped
)

var statusNames = [...]string{"IDLE", "SUCCESS", "FAILURE", "RUNNING", "ERROR", "SKIPPED"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Letter is the one-letter form used in telemetry keyframes: I, S, F, R, E
// (SKIPPED is I: a skipped node stays idle).
func (s Status) Letter() byte {
	if s == Skipped {
		return 'I'
	}
	if int(s) < len(statusNames) {
		return statusNames[s][0]
	}
	return '?'
}

// Done reports whether s is a completed status (SUCCESS, FAILURE or ERROR).
func (s Status) Done() bool { return s == Success || s == Failure || s == Error }

// ParseStatus reads a status name as written in missions (case-sensitive,
// upper case) or its one-letter form. SKIPPED is not among them: only the
// nodes that declare it may return it.
func ParseStatus(v string) (Status, error) {
	for i, n := range statusNames[:Skipped] {
		if v == n || (len(v) == 1 && v[0] == n[0]) {
			return Status(i), nil
		}
	}
	return Idle, fmt.Errorf("unknown status %q", v)
}

// MarshalText writes the status name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name (SKIPPED too: what MarshalText
// writes reads back).
func (s *Status) UnmarshalText(b []byte) error {
	if string(b) == "SKIPPED" {
		*s = Skipped
		return nil
	}
	v, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
