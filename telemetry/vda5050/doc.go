// Package vda5050 is botd's VDA 5050 2.0 adapter: a fleet manager (a
// "master control": openTCS, a vda-5050-lib MasterController, ...) sends
// orders and instant actions on
// {interface}/v2/{manufacturer}/{serial_number}/{order,instantActions},
// and reads state, visualization, connection and factsheet there.
//
// An order's released nodes and edges compile into a generated botd
// mission (compile.go) that goes through the runner's ordinary
// mission.load, so every limit, check and failsafe of botd applies to it,
// and botctl sees it like any other mission. The state is built from the
// runner's state, the generated mission's progress keys and the pose
// readings (state.go).
//
// It runs beside botd's own protocol (package telemetry), never instead
// of it, on a connection of its own. It must never block the tick loop:
// it reads the runner through its exported, goroutine-safe methods and
// commands it through runner.Do, like a ground station. A bad message
// never disturbs the running order: it becomes an error in the state.
package vda5050
