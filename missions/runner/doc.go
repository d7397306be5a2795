// Package runner owns the tick loop of the robot (ARCHITECTURE.md): it
// runs one mission at a time, applies commands between ticks, steps the
// mode machine (bt/fsm), supervises failsafes, journals accepted missions
// to disk, and exposes its state, tree, node statuses and events for
// telemetry.
//
// What it must never do:
//
//   - import MQTT or telemetry: telemetry reads it through the Source and
//     CommandHandler interfaces that the runner's methods satisfy, and its
//     wire types come from telemetry/protocol;
//   - block or allocate on the tick goroutine in steady state;
//   - reach the hardware except through the Hardware interface, which
//     cmd/botd implements over drivers.
//
// Files: runner.go (the loop), commands.go (command intake: Do, the
// e-stop path, the queue to the tick goroutine, the guard that turns a
// panic in an op into the command's reply; command ids are remembered by
// telemetry's reply cache, not here), ops.go (the op table:
// each op's prepare on the caller's goroutine and apply between ticks;
// ops_inject.go, ops_blackboard.go), hookcmds.go (the debugger's hook
// ops, which go through Hook instead), mode.go (the mode machine), failsafe.go, journal.go, source.go
// (what telemetry reads), statusboard.go (node-status deltas),
// tickstats.go (jitter and overruns).
package runner
