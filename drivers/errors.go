package drivers

import (
	"errors"
	"strings"
)

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrEStopped: a command was refused because the e-stop is engaged.
	ErrEStopped = errors.New("drivers: e-stop engaged")
	// ErrNotStarted: the robot was used before Start (or after a failed Start).
	ErrNotStarted = errors.New("drivers: robot not started")
	// ErrClosed: the robot was used after Close.
	ErrClosed = errors.New("drivers: robot closed")
	// ErrUnsupported: Gobot's gpio and i2c drivers do not build on this operating system.
	ErrUnsupported = errors.New("drivers: Gobot's gpio and i2c drivers need Linux")
)

// ConfigError is one problem with a configuration, located by its path in the document
// ("devices[2].max_linear").
type ConfigError struct {
	Path    string
	Message string
}

func (e ConfigError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// ConfigErrors is every problem found in a configuration. It is an error.
type ConfigErrors []ConfigError

func (es ConfigErrors) Error() string {
	if len(es) == 1 {
		return es[0].Error()
	}
	var b strings.Builder
	b.WriteString("invalid robot config:")
	for _, e := range es {
		b.WriteString("\n  ")
		b.WriteString(e.Error())
	}
	return b.String()
}

func (es ConfigErrors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
