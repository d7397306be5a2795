package main

import (
	"time"

	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/transport"
)

// brokerIdentity reserves the robot's client ids on the embedded broker
// for the connections that present cfg.brokerSecret: the main and e-stop
// connections (ClientID, ClientID-estop) and the devices' ("botd-<robot>-<device>").
func (c *Config) brokerIdentity() *broker.Identity {
	return &broker.Identity{IDs: []string{c.Broker.ClientID, "botd-" + c.Robot}, Secret: c.brokerSecret}
}

// rabbitmqReconnectDelay is the robots' ReconnectDelay on RabbitMQ.
const rabbitmqReconnectDelay = 3 * time.Second

// ownConn gives o the credentials of the robot's own connections: the
// per-boot secret on the broker botd runs itself (whatever its
// credentials file holds), else the configured user and password; and
// what its broker kind needs of them.
func (c *Config) ownConn(o transport.Options) transport.Options {
	// RabbitMQ strands a QoS 1 subscription on a dead node
	// (transport.Options.SubscribeAtMostOnce).
	o.SubscribeAtMostOnce = c.Broker.Kind == "rabbitmq"
	if c.Broker.Kind == "rabbitmq" {
		// and may hand a robot back its dead node's queue too soon
		// (transport.Options.ReconnectDelay).
		o.ReconnectDelay = rabbitmqReconnectDelay
	}
	if c.brokerSecret != "" {
		o.Username, o.Password, o.PasswordFile, o.PasswordEnv = c.Broker.ClientID, c.brokerSecret, "", ""
		return o
	}
	o.Username, o.PasswordFile, o.PasswordEnv = c.Broker.Username, c.Broker.PasswordFile, "BOTD_MQTT_PASSWORD"
	return o
}

// estopUsername is the e-stop connection's user: the main one's on the
// embedded broker (the secret goes with any user name).
func (c *Config) estopUsername() string {
	if c.brokerSecret != "" {
		return ""
	}
	return c.Broker.EStopUsername
}
