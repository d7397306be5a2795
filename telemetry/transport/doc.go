// Package transport is botd's MQTT connection, over paho: one Conn type
// for the robot and the ground station, with subscriptions restored after
// every reconnect, SUBACK codes checked, a birth message on each connect,
// and none of paho's resends of stale retained messages (store.go).
//
// It knows topics only as strings; what they mean is telemetry/protocol's.
package transport
