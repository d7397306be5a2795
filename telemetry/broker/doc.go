// Package broker is the embedded MQTT broker (mochi-mqtt) that botd runs
// when no fleet broker is configured, and that tests start on a free
// loopback port. It keeps nothing on disk, refuses anonymous clients when
// it listens beyond loopback, and never lets a connection that does not
// speak MQTT hold up Close.
//
// Only the daemon links it: the ground station never does.
package broker
