package main

import (
	"time"

	"github.com/botd-project/botd/missions/runner"
)

// DebugConfig is the `debug:` section: the ground station's debugger
// (hook commands, `botctl debug`, the dashboard's breakpoints). Off by
// default. Unlike groot2.allow_debug it goes with
// security.require_signed_missions: the hook commands that hold, release
// or force a node are then signed like a mission.start.
type DebugConfig struct {
	// Allow takes the hook commands (PROTOCOL.md, "Debugging a mission").
	Allow bool `yaml:"allow"`
	// ClientSilence is how long the debugging client may send nothing
	// before its hooks are released (0: 5 s). It applies to Groot2's
	// hooks too.
	ClientSilence time.Duration `yaml:"client_silence"`
}

// maxClientSilence bounds debug.client_silence: a breakpoint left by a
// client that went away holds the mission no longer than this.
const maxClientSilence = time.Minute

func (d DebugConfig) validate(bad func(field, format string, args ...any)) {
	if d.ClientSilence < 0 || d.ClientSilence > maxClientSilence {
		bad("debug.client_silence", "%v: want 0 (5 s) up to %v", d.ClientSilence, maxClientSilence)
	}
}

// enableDebug allows the hook commands on the runner. Groot2's endpoint
// enables the same hooks when groot2.allow_debug is set; both share the
// client silence.
func (s *system) enableDebug(cfg *Config) {
	if cfg.Debug.Allow {
		s.runner.EnableHooks(runner.HookConfig{Silence: cfg.Debug.ClientSilence, Commands: true})
		s.log.Warn("debugging is allowed: hook commands may hold the mission at breakpoints and force node statuses")
	}
}
