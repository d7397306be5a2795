// Package telemetry is the robot side of botd's MQTT protocol
// (PROTOCOL.md): the Daemon publishes what the mission runner exposes
// (Source), turns commands into calls (CommandHandler), and keeps events in
// an on-disk outbox until the broker has them. Its neighbours:
//
//   - telemetry/protocol: topic names, wire payloads and error codes, which
//     the robot and the ground station share;
//   - telemetry/transport: the MQTT connection over paho (resubscribe,
//     no stale resends of retained state);
//   - telemetry/broker: the embedded mochi-mqtt broker;
//   - telemetry/ground: the ground-station client botctl uses.
//
// What it must never do:
//
//   - block the tick. The runner only calls the EventSink, which queues
//     without waiting, and signals Source.Changed; everything
//     else is polled from telemetry's own goroutines, and only while the
//     link is up.
//   - lose an event the outbox accepted. Events live on disk until the
//     broker acknowledges them on the connection they were sent on; a
//     subscriber may see one twice (each carries a unique id), never out
//     of order, and overflow drops the oldest and counts them.
//   - leave stale retained state behind: after every reconnect the daemon
//     republishes connection, factsheet, state, tree and a status keyframe,
//     and the client never resends an old copy of a retained message
//     (store.go).
//
// The runner never imports this package, nor this package the runner: the
// runner's methods satisfy Source and CommandHandler, and cmd/botd wires
// them to a Daemon.
//
// Files, one concern each: source.go (what telemetry needs from the
// runner), daemon.go (connection and lifecycle), daemon_cmd.go (command
// intake and the reply queue), replycache.go (the one idempotency layer of
// commands: repeats by sender and id, the one reply each command gets,
// late outcomes, its bounds; the runner remembers no ids), strictjson.go (the command parser that
// refuses duplicate members), daemon_estop.go (e-stops on cmd and on the
// estop topic, ahead of everything), daemon_events.go (event history:
// events.request and events.ack), daemon_publish.go (what goes out, and
// when), outbox.go (events on disk).
package telemetry
