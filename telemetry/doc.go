// Package telemetry is botd's MQTT side (PROTOCOL.md): topic names and
// wire payloads, the embedded broker, the robot side (Daemon) that
// publishes what the mission runner exposes and turns commands into
// calls, and the ground-station side (Ground) that botctl uses.
//
// What it must never do:
//
//   - block the tick. The runner only calls the EventSink, which queues
//     without waiting, and signals missions.Source.Changed; everything
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
// missions never imports this package: the runner exposes
// missions.Source, missions.EventSink and missions.CommandHandler, and
// cmd/botd wires them to a Daemon.
//
// Files, one concern each: protocol.go (topics), messages.go and decode.go
// (payloads), broker.go (embedded mochi-mqtt broker), client.go,
// connopts.go and store.go (the Conn interface over paho), outbox.go,
// daemon*.go (robot side), ground.go (ground side).
package telemetry
