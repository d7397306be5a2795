// Package protocol is botd's MQTT protocol (PROTOCOL.md) as Go values:
// topic names, the payload of every topic, the commands and their replies,
// error codes, modes and run statuses, and strict decoders for what a
// ground station receives.
//
// Both sides import it: the robot (telemetry, missions/runner) fills the
// values in, the ground station (telemetry/ground, botctl) reads them. It
// must stay small and free of behaviour: no MQTT client, no runner, no
// broker, so a ground station links none of them.
package protocol
