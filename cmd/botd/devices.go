package main

import (
	"fmt"
	"log/slog"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// What the drivers get from botd beyond their config: an MQTT connection for the devices fed
// over MQTT (mqtt_pose), and a way to report events.

// mqttDialer connects an mqtt_pose device with the daemon's broker settings (credentials, TLS);
// a device that names no broker gets the daemon's own (url, asked when the device starts: the
// embedded broker's address is known only then).
func mqttDialer(cfg *Config, url func() string, log *slog.Logger) func(broker, clientID string) (drivers.Subscriber, error) {
	return func(broker, clientID string) (drivers.Subscriber, error) {
		if broker == "" {
			broker = url()
		}
		o := transport.Options{Brokers: []string{broker}, ClientID: "botd-" + clientID,
			CAFile: cfg.Broker.CAFile, CertFile: cfg.Broker.CertFile, KeyFile: cfg.Broker.KeyFile,
			Logger: log.With("part", "device-mqtt", "client", clientID)}
		if broker == url() {
			o = cfg.ownConn(o)
		} else { // another broker: the configured credentials, never the secret
			o.Username, o.PasswordFile, o.PasswordEnv = cfg.Broker.Username, cfg.Broker.PasswordFile, "BOTD_MQTT_PASSWORD"
		}
		c, err := transport.Dial(o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", broker, err)
		}
		return transportSub{c}, nil
	}
}

// transportSub is a transport connection as drivers.Subscriber. Poses are a stream where the
// newest wins: QoS 0, nothing redelivered.
type transportSub struct{ transport.Conn }

func (s transportSub) Subscribe(topic string, h func([]byte)) error {
	return s.Conn.Subscribe(topic, 0, func(_ string, p []byte) { h(p) })
}

// device publishes a device's event on the robot's events topic.
func (f *eventForwarder) device(e drivers.Event) {
	f.emit(protocol.Event{Time: e.Time, Kind: e.Kind, Level: e.Level, Message: e.Message, Data: map[string]any{"device": e.Device}})
}
