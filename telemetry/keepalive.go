package telemetry

import "time"

// keepAliveFor returns the MQTT keepalive and ping timeout that let a
// silent broker (one that hangs with the socket open) be noticed within
// about 5/8 of the link-loss timeout. paho counts the keepalive in
// whole seconds, pings once nothing came for a keepalive (it looks every
// quarter of one), and gives up when no answer came within the ping
// timeout: at most 1.5 keepalives and a ping timeout from the last message
// received to the connection counting as lost. A quarter of the timeout
// each (at least a second: paho has no less) keeps that near 5/8 of it
// (measured: 4.5 s for the default 10 s, 2.5 s for 4 s), with a ping
// timeout long enough for a slow mobile link (2.5 s for 10 s). The 15 s default keepalive took 28 s to notice a frozen
// broker, and the link-loss failsafe's 10 s only started then.
func keepAliveFor(linkLoss time.Duration) (keepAlive, pingTimeout time.Duration) {
	return max(time.Second, (linkLoss / 4).Truncate(time.Second)), max(time.Second, linkLoss/4)
}
