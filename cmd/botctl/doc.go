// Command botctl is the ground station of botd: a command-line tool, a live
// terminal view (watch) and a web dashboard (ui, package web).
//
// It speaks only the MQTT protocol of docs/PROTOCOL.md, through the client
// side of telemetry (Ground); from missions it takes the payload types,
// Decode (to report a mission's problems before sending it) and the
// signature helpers. It must never reach into a daemon any other way, and
// never trust a payload: whatever cannot be decoded is reported, not fatal.
//
// The files:
//
//   - main.go: run(), the command table, flag parsing, exit statuses;
//   - cli.go: global flags, connecting (dial: without waiting, for watch
//     and ui), which robot (pickRobot: the named one, or the only one
//     online), "is the robot online", sending;
//   - cmd_*.go: one file per group of commands (cmd_events.go: the
//     robot's kept events, then the live ones, through ground.History);
//   - internal/quietterm: stops Bubble Tea's init from querying the
//     terminal (a terminal that does not answer would swallow keys);
//   - watch.go: the bubbletea program of `botctl watch` (messages, keys);
//   - view.go: its rendering, from the model only; the live tree is a
//     ground.Tree, the tracker the dashboard uses too.
package main
