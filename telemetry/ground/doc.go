// Package ground is the ground-station side of botd's protocol, used by
// botctl's CLI, live view and dashboard: it lists the robots it hears,
// follows one robot's topics with decoded messages, and sends commands
// with a fresh id, resending until the one reply arrives.
//
// It links no broker and no runner: only telemetry/protocol and
// telemetry/transport.
package ground
