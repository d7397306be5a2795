package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// Two daemons with one robot id on one broker take each other's client id
// in turns, each kicking the other off, forever. A daemon about to connect
// as a robot first looks at the robot's retained connection message: when
// it says ONLINE, it listens for the robot's state, which a live daemon
// publishes at least every second; hearing one means another instance is
// running, and this one must say so and stop rather than fight. A retained
// ONLINE with no live state behind it (a broker that lost the last will)
// lets the start go on.

// ErrRobotOnline: another daemon is online under this robot id.
type ErrRobotOnline struct {
	Robot, Broker string
	// Heard is when its state arrived.
	Heard time.Time
}

func (e *ErrRobotOnline) Error() string {
	return fmt.Sprintf("robot %q is already online on %s: another botd publishes its state (heard at %s); stop that one, or give this daemon its own id with -robot NAME",
		e.Robot, e.Broker, e.Heard.UTC().Format(time.RFC3339))
}

// DefaultProbeWindow is how long ProbeOnline listens for a live state
// once the retained connection says ONLINE (states come every second).
const DefaultProbeWindow = 3 * time.Second

// probeConnect bounds how long ProbeOnline waits for the broker.
const probeConnect = 2 * time.Second

// ProbeOnline connects anonymously with a client id of its own (conn's
// broker and TLS trust; no credentials, no will) and returns an
// *ErrRobotOnline when another daemon is live under robot; nil when none
// is, or when it cannot tell. Anonymous, because a broker that makes the
// user name the client id (mosquitto's use_username_as_clientid) would
// otherwise hand the probe the robot's own id and kick a running robot
// off; a broker that refuses anonymous clients keeps its ACLs' protection
// instead (the daemon reports a client id taken over, CLIENT_ID_TAKEN).
// It waits at most probeConnect for the broker and, only when the
// retained connection message says ONLINE, window more.
func ProbeOnline(ctx context.Context, conn transport.Options, prefix, robot string, window time.Duration) error {
	topics, err := protocol.NewTopics(prefix, robot)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	online, liveAt := false, time.Time{}
	retainedDone := make(chan struct{}, 1)
	live := make(chan struct{}, 1)
	o := conn
	o.ClientID = "botd-probe-" + uuid.NewString()[:12]
	o.Username, o.Password, o.PasswordFile, o.PasswordEnv, o.CertFile, o.KeyFile = "", "", "", "", "", ""
	o.Will, o.Birth, o.Goodbye, o.NoResend = nil, nil, nil, nil
	o.Subscriptions = []transport.Subscription{
		{Filter: topics.Connection(), QoS: protocol.QoSRetained,
			Handler: func(string, []byte) {}, // a live change: whoever it is, it is not a daemon's heartbeat
			Retained: func(_ string, payload []byte) {
				var m protocol.ConnectionMsg
				if json.Unmarshal(payload, &m) == nil {
					mu.Lock()
					online = m.State == protocol.ConnOnline
					mu.Unlock()
				}
				select {
				case retainedDone <- struct{}{}:
				default:
				}
			}},
		{Filter: topics.State(), QoS: protocol.QoSStream,
			Handler: func(string, []byte) { // live, not the retained copy
				mu.Lock()
				liveAt = time.Now()
				mu.Unlock()
				select {
				case live <- struct{}{}:
				default:
				}
			},
			Retained: func(string, []byte) {}},
	}
	c, err := transport.Dial(o)
	if err != nil {
		return err
	}
	defer c.Close()
	// Up means subscribed: the retained connection message, if there is
	// one, comes with the subscription.
	giveUp := time.After(probeConnect)
	for !c.IsUp() {
		ch := c.LinkChanged()
		if c.IsUp() {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-giveUp:
			return nil // no broker yet, or no anonymous clients: nothing to tell; the daemon connects as usual
		case <-ch:
		}
	}
	select { // the retained message is delivered right after the subscription, if the broker keeps one
	case <-retainedDone:
	case <-time.After(min(window, 500*time.Millisecond)):
	case <-ctx.Done():
		return nil
	}
	mu.Lock()
	isOnline := online
	mu.Unlock()
	if !isOnline {
		return nil
	}
	select {
	case <-live:
		mu.Lock()
		defer mu.Unlock()
		return &ErrRobotOnline{Robot: robot, Broker: conn.Brokers[0], Heard: liveAt}
	case <-time.After(window):
		return nil
	case <-ctx.Done():
		return nil
	}
}

// ProbeOnline is the package function for this daemon's robot and broker
// connection (see ProbeOnline). Call it before Run on a broker others
// share; the embedded broker is the daemon's own.
func (d *Daemon) ProbeOnline(ctx context.Context) error {
	return ProbeOnline(ctx, d.cfg.Conn, d.cfg.Prefix, d.cfg.Robot, DefaultProbeWindow)
}
