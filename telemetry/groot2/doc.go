// Package groot2 is botd's Groot2 endpoint and .btlog writer.
//
// The endpoint speaks the monitor protocol of BehaviorTree.CPP 4's
// Groot2Publisher (protocol 2) on a ZeroMQ REP socket and the port after
// it (PUB): Groot2 connects to a botd robot as it connects to a BT.CPP
// program and sees the running mission's tree, its statuses and its
// blackboard. It follows the runner across missions: every mission the
// runner starts gets a new tree identity, so Groot2 fetches the new tree,
// and the endpoint stays up between missions.
//
// It is an observer of the runner like telemetry, with the same rule: it
// reads snapshots the runner publishes and never makes the tick wait. It
// must never command the robot; it has no authentication (docs/SECURITY.md),
// so it listens on loopback unless the config says otherwise. Groot2's
// hooks (breakpoints, node replacement) are the one exception, off unless
// the config allows debugging: they are handed to the runner, which
// applies them on its tick goroutine and lets them hold only the mission,
// never the tick loop, the failsafes or the e-stop (hooks.go).
//
// The .btlog writer writes FileLogger2's format, for Groot2's log replay.
package groot2
