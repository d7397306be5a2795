package telemetry

import "time"

// keepAliveFor is the MQTT keepalive that lets a silent broker (one that
// hangs with the socket open) be noticed within half of the link-loss
// timeout. paho counts the keepalive in whole seconds, pings once nothing
// came for a keepalive (it looks every quarter of one), and gives up when
// no answer came within the ping timeout, which transport sets to half a
// keepalive: about two keepalives from the last message received to the
// connection counting as lost. A keepalive of a quarter of the timeout
// keeps that within half of it (at least a second: paho has no less).
// The 15 s default took 28 s to notice a frozen broker, and the link-loss
// failsafe's 10 s only started then.
func keepAliveFor(linkLoss time.Duration) time.Duration {
	return max(time.Second, (linkLoss / 4).Truncate(time.Second))
}
