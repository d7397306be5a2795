package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// cli holds the global flags and the program's streams.
type cli struct {
	ctx                    context.Context
	stdin                  io.Reader
	stdout, stderr         io.Writer
	broker, brokerKind     string
	username, passwordFile string
	ca, cert, tlsKey       string
	prefix, gcs            string
	procID                 string // gcsID, made once
	timeout                time.Duration
	json                   bool

	// signingOptions are the flags of the commands that send signed
	// commands (signingFlags): they make the connection's signer.
	signingOptions
	// signer signs the commands robots may require an envelope for
	// (loadSigner); nil: commands go unsigned.
	signer *auth.Signer

	now func() time.Time

	debugOpt debugOptions // botctl debug (debug.go)
}

// Each command with flags of its own keeps them in a type of its own
// that embeds the cli (missionCmd, eventsCmd, ...): its flags method
// registers them, its run method runs the command with them.
type optionsCmd interface {
	flags(fs *flag.FlagSet)
	run(args []string) error
}

// with makes the command table's bind for a command with its own options.
func with[T optionsCmd](mk func(c *cli) T) func(c *cli, fs *flag.FlagSet) func(args []string) error {
	return func(c *cli, fs *flag.FlagSet) func(args []string) error {
		cmd := mk(c)
		cmd.flags(fs)
		return cmd.run
	}
}

func newCLI(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *cli {
	return &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr,
		broker: "tcp://127.0.0.1:1883", timeout: 10 * time.Second, now: time.Now}
}

var globalFlagNames = map[string]bool{
	"broker": true, "broker-kind": true, "username": true, "password-file": true, "ca": true, "cert": true, "tls-cert": true,
	"key": true, "tls-key": true, "prefix": true, "gcs": true, "timeout": true, "json": true,
}

func isGlobalFlag(name string) bool { return globalFlagNames[name] }

// globalFlags registers the shared flags; with ownsKey, --key belongs to
// the command (signing key) and the TLS key is --tls-key only.
func (c *cli) globalFlags(fs *flag.FlagSet, ownsKey bool) {
	fs.StringVar(&c.broker, "broker", c.broker, "broker URL(s), comma-separated")
	fs.StringVar(&c.brokerKind, "broker-kind", c.brokerKind, "the broker's product when it needs botctl to adapt: rabbitmq (subscribe at QoS 0, wait before a reconnect, find robots by their live state); mosquitto, aedes, emqx and vernemq need nothing")
	fs.StringVar(&c.username, "username", c.username, "broker user name")
	fs.StringVar(&c.passwordFile, "password-file", c.passwordFile, "file holding the broker password (else $BOTCTL_MQTT_PASSWORD)")
	fs.StringVar(&c.ca, "ca", c.ca, "CA certificate file (TLS)")
	fs.StringVar(&c.cert, "cert", c.cert, "client certificate file (TLS)")
	fs.StringVar(&c.cert, "tls-cert", c.cert, "client certificate file (TLS)")
	fs.StringVar(&c.tlsKey, "tls-key", c.tlsKey, "client key file (TLS)")
	if !ownsKey {
		fs.StringVar(&c.tlsKey, "key", c.tlsKey, "client key file (TLS)")
	}
	fs.StringVar(&c.prefix, "prefix", c.prefix, "topic prefix (default botd/v1)")
	fs.StringVar(&c.gcs, "gcs", c.gcs, "ground-station name (default: the broker user name, else the host name); each process adds a random suffix")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "how long to wait for the broker and replies")
	fs.BoolVar(&c.json, "json", c.json, "machine-readable output")
}

var notIDChars = regexp.MustCompile(`[^A-Za-z0-9_.:-]+`)

// gcsID is this process's ground-station id, botd-gcs-<name>-<random>:
// name is --gcs, else the broker user name, else the host name. The
// random part gives every botctl process a presence of its own (quitting
// watch does not mark a dashboard offline); the id is also the MQTT client
// id, which deploy/mosquitto requires to start with "botd-" and binds the
// presence topic to.
func (c *cli) gcsID() string {
	if c.procID != "" {
		return c.procID
	}
	name := c.gcs
	if name == "" {
		name = notIDChars.ReplaceAllString(c.username, "-")
	}
	if name == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "local"
		}
		name = notIDChars.ReplaceAllString(host, "-")
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	c.procID = "botd-gcs-" + name + "-" + hex.EncodeToString(r[:])
	return c.procID
}

// rabbitmqReconnectDelay is waited after a loss before reconnecting to
// RabbitMQ, as the daemon does (transport.Options.ReconnectDelay): back on
// a survivor sooner, a client can be handed its dead node's queue and lose
// its subscription with it.
const rabbitmqReconnectDelay = 3 * time.Second

// rabbitmqLiveWait is how long botctl listens on RabbitMQ before it takes
// the robots it heard as all there are: a robot publishes its state at
// least once a second (what it is heard by there), and a margin.
const rabbitmqLiveWait = 1500 * time.Millisecond

// brokerKinds are what --broker-kind takes (botd's broker.kind).
var brokerKinds = []string{"mosquitto", "aedes", "emqx", "vernemq", "rabbitmq"}

// checkBrokerKind refuses a --broker-kind botctl does not know.
func (c *cli) checkBrokerKind() error {
	if c.brokerKind != "" && !slices.Contains(brokerKinds, c.brokerKind) {
		return usageError("--broker-kind %q: want one of %s", c.brokerKind, strings.Join(brokerKinds, ", "))
	}
	return nil
}

func (c *cli) brokers() []string {
	var out []string
	for _, b := range strings.Split(c.broker, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

func (c *cli) groundConfig(presence bool) ground.Config {
	o := transport.Options{
		Brokers:  c.brokers(),
		Username: c.username, PasswordFile: c.passwordFile,
		CAFile: c.ca, CertFile: c.cert, KeyFile: c.tlsKey,
		ConnectTimeout: min(c.timeout, 10*time.Second),
	}
	if c.passwordFile == "" {
		if _, ok := os.LookupEnv("BOTCTL_MQTT_PASSWORD"); ok {
			o.PasswordEnv = "BOTCTL_MQTT_PASSWORD"
		}
	}
	o.ClientID = c.gcsID()
	if c.brokerKind == "rabbitmq" {
		// RabbitMQ (3.10) keeps a clean session's QoS 1 subscription in a
		// durable queue on the node botctl was connected to: when that node
		// dies, every other node refuses the subscription and closes the
		// connection, at every reconnect, until it returns. At QoS 0 the
		// queue is transient and goes with its node; commands are resent
		// until answered, so an at-most-once delivery costs a resend.
		o.SubscribeAtMostOnce = true
		o.ReconnectDelay = rabbitmqReconnectDelay
	}
	cfg := ground.Config{GCS: c.gcsID(), Prefix: c.prefix, Conn: o, Presence: presence,
		ReplyTimeout: c.timeout, ResendEvery: 2 * time.Second}
	if c.signer != nil {
		cfg.Sign = c.signCommand
	}
	return cfg
}

// dial opens a ground station without waiting for the broker: it
// connects in the background, and again after every loss (watch and ui
// start without a broker and show that they are connecting). presence:
// the station stays connected and counts as the robots' operator link.
func (c *cli) dial(presence bool) (*ground.Client, error) {
	if c.timeout <= 0 {
		return nil, usageError("--timeout must be positive")
	}
	brokers := c.brokers()
	if len(brokers) == 0 {
		return nil, usageError("--broker is empty")
	}
	if err := c.checkBrokerKind(); err != nil {
		return nil, err
	}
	for _, b := range brokers {
		if _, err := brokerAddr(b); err != nil {
			return nil, err
		}
	}
	if err := c.loadSigner(); err != nil {
		return nil, err
	}
	g, err := ground.New(c.groundConfig(presence))
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return g, nil
}

// connect opens a ground station and waits until the broker answers.
// presence: the station stays connected and counts as the robots'
// operator link.
func (c *cli) connect(presence bool) (*ground.Client, error) {
	if c.timeout <= 0 {
		return nil, usageError("--timeout must be positive")
	}
	brokers := c.brokers()
	if len(brokers) == 0 {
		return nil, usageError("--broker is empty")
	}
	if err := c.checkBrokerKind(); err != nil {
		return nil, err
	}
	if err := c.loadSigner(); err != nil {
		return nil, err
	}
	if err := c.probe(brokers); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, fail(exitUnreachable, "cannot reach the broker at %s: %v; is botd running?", strings.Join(brokers, ", "), err)
	}
	g, err := ground.New(c.groundConfig(presence))
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		g.Close()
		if c.ctx.Err() != nil {
			return nil, &exitError{code: exitUnreachable, err: c.ctx.Err()}
		}
		return nil, fail(exitUnreachable, "cannot reach the broker at %s: no MQTT connection within %s (credentials, TLS, or not an MQTT broker?); is botd running?",
			strings.Join(brokers, ", "), c.timeout)
	}
	return g, nil
}

// probe dials the brokers' addresses, so that a refused connection is
// reported at once with its reason instead of after the timeout.
func (c *cli) probe(brokers []string) error {
	var errs []error
	for _, b := range brokers {
		host, err := brokerAddr(b)
		if err != nil {
			return err
		}
		d := net.Dialer{Timeout: c.timeout}
		conn, err := d.DialContext(c.ctx, "tcp", host)
		if err == nil {
			conn.Close()
			return nil
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// brokerAddr is the host:port of a broker URL, or a usage error.
func brokerAddr(b string) (string, error) {
	u, err := url.Parse(b)
	if err != nil || u.Host == "" {
		return "", usageError("--broker %q: want a URL like tcp://host:1883", b)
	}
	switch u.Scheme {
	case "tcp", "mqtt", "ssl", "tls", "mqtts", "ws", "wss":
	default:
		return "", usageError("--broker %q: the scheme must be tcp, ssl, ws or wss", b)
	}
	if u.Port() != "" {
		return u.Host, nil
	}
	port := "1883"
	switch u.Scheme {
	case "ssl", "tls", "mqtts":
		port = "8883"
	case "ws":
		port = "80"
	case "wss":
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// settle waits for retained messages to arrive after connecting: until
// done returns true, or the robot list stayed the same for a moment.
func (c *cli) settle(g *ground.Client, done func([]ground.RobotInfo) bool) []ground.RobotInfo {
	const quiet, most = 300 * time.Millisecond, 5 * time.Second
	// RabbitMQ (3.10) does not deliver retained messages to a wildcard
	// subscription: what botctl hears of a robot there is its live state,
	// published at least once a second. Wait for one before settling.
	var atLeast time.Duration
	if c.brokerKind == "rabbitmq" {
		atLeast = rabbitmqLiveWait
	}
	start := time.Now()
	last, changed := int64(-1), start
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		rs := g.Robots()
		if done != nil && done(rs) {
			return rs
		}
		// Settled when no robot, connection or state is new for a moment
		// (the retained messages of a big fleet take a while).
		heard := int64(len(rs)) // int64: the sums below need more than a 32-bit int
		for _, r := range rs {
			if r.State != nil {
				heard += 1 << 20
			}
			if r.Connection != "" {
				heard += 1 << 40
			}
		}
		if heard != last {
			last, changed = heard, time.Now()
		}
		if time.Since(changed) >= quiet && time.Since(start) >= atLeast || time.Since(start) >= min(most, c.timeout) {
			return rs
		}
		select {
		case <-c.ctx.Done():
			return rs
		case <-t.C:
		}
	}
}

// robotInfo waits briefly for what the broker keeps of robot.
func (c *cli) robotInfo(g *ground.Client, robot string) (ground.RobotInfo, bool) {
	find := func(rs []ground.RobotInfo) (ground.RobotInfo, bool) {
		for _, r := range rs {
			if r.ID == robot {
				return r, true
			}
		}
		return ground.RobotInfo{}, false
	}
	rs := c.settle(g, func(rs []ground.RobotInfo) bool {
		r, ok := find(rs)
		return ok && r.Connection != "" && r.State != nil
	})
	return find(rs)
}

// connectOnline is the preamble of the commands that act on one robot:
// connect, take the robot named in args (at most one) or else the only
// robot online, and check that it is online. On error nothing is left
// open; otherwise the caller closes the returned client.
func (c *cli) connectOnline(args []string) (*ground.Client, ground.RobotInfo, error) {
	g, info, known, err := c.connectPick(args, false)
	if err != nil {
		return nil, ground.RobotInfo{}, err
	}
	if err := c.offlineError(g, info.ID, info, known); err != nil {
		g.Close()
		return nil, ground.RobotInfo{}, err
	}
	return g, info, nil
}

// connectRobot is connectOnline for the commands that can wait for a
// robot to come (back) online: with wait, a robot that is offline or not
// heard yet is a warning, not an error.
func (c *cli) connectRobot(args []string, wait bool) (*ground.Client, string, error) {
	if !wait {
		g, info, err := c.connectOnline(args)
		return g, info.ID, err
	}
	g, info, known, err := c.connectPick(args, false)
	if err != nil {
		return nil, "", err
	}
	if err := c.offlineError(g, info.ID, info, known); err != nil {
		fmt.Fprintf(c.stderr, "warning: %v; waiting for it\n", err)
	}
	return g, info.ID, nil
}

// connectPick connects (with presence: see connect) and picks the robot:
// the one named in args, or the only one online. known says whether the
// broker has anything of the named robot.
func (c *cli) connectPick(args []string, presence bool) (*ground.Client, ground.RobotInfo, bool, error) {
	name, err := robotArg(args)
	if err != nil {
		return nil, ground.RobotInfo{}, false, err
	}
	g, err := c.connect(presence)
	if err != nil {
		return nil, ground.RobotInfo{}, false, err
	}
	info, known, err := c.pickRobot(g, name)
	if err != nil {
		g.Close()
		return nil, ground.RobotInfo{}, false, err
	}
	return g, info, known, nil
}

// pickRobot is the one place that decides which robot a single-robot
// command acts on: the named one (whatever its connection: callers
// decide what offline means for them), or, with no name, the only robot
// online, said on stderr. No robot online, or several, is an error that
// lists what the broker knows.
func (c *cli) pickRobot(g *ground.Client, name string) (ground.RobotInfo, bool, error) {
	if name != "" {
		info, known := c.robotInfo(g, name)
		info.ID = name
		return info, known, nil
	}
	rs := c.settle(g, nil)
	var online []ground.RobotInfo
	for _, r := range rs {
		if r.Connection == protocol.ConnOnline {
			online = append(online, r)
		}
	}
	switch len(online) {
	case 1:
		if !c.json {
			fmt.Fprintf(c.stderr, "(%s: the only robot online)\n", online[0].ID)
		}
		if online[0].State == nil { // the state is retained too: give it a moment
			info, _ := c.robotInfo(g, online[0].ID)
			info.ID = online[0].ID
			return info, true, nil
		}
		return online[0], true, nil
	case 0:
		return ground.RobotInfo{}, false, fail(exitUnreachable, "no robot is online on %s%s; start botd, or name a robot", c.broker, c.heardList(g))
	}
	ids := make([]string, len(online))
	for i, r := range online {
		ids[i] = r.ID
	}
	return ground.RobotInfo{}, false, usageError("%d robots are online (%s): name one", len(online), strings.Join(ids, ", "))
}

// offlineError says why robot cannot take commands, or returns nil when
// it is online.
func (c *cli) offlineError(g *ground.Client, robot string, r ground.RobotInfo, known bool) error {
	if !known {
		return fail(exitUnreachable, "robot %s is offline or unknown: nothing on %s%s", robot,
			c.topics(robot).Connection(), c.heardList(g))
	}
	if r.Connection == protocol.ConnOnline {
		return nil
	}
	if r.Connection == "" && !r.Stale(c.now(), ground.DefaultStaleAfter) {
		// No connection message (RabbitMQ keeps retained messages from
		// wildcard subscriptions), but its telemetry is fresh: it is up.
		return nil
	}
	state := r.Connection
	if state == "" {
		state = "no connection message"
	}
	since := ""
	if r.State != nil {
		since = ", last state " + c.when(r.State.TS)
	}
	return fail(exitUnreachable, "robot %s is offline (%s%s)", robot, state, since)
}

func (c *cli) heardList(g *ground.Client) string {
	rs := g.Robots()
	if len(rs) == 0 {
		return "; no robot is on this broker"
	}
	var names []string
	for _, r := range rs {
		names = append(names, fmt.Sprintf("%s (%s)", r.ID, orDash(r.Connection)))
	}
	return "; robots heard: " + strings.Join(names, ", ")
}

func (c *cli) topics(robot string) protocol.Topics {
	t, _ := protocol.NewTopics(c.prefix, robot)
	return t
}

// send sends a command and turns the failure to get a reply into exit 3.
func (c *cli) send(g *ground.Client, robot string, cmd protocol.Command) (protocol.Reply, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	rep, err := g.Send(ctx, robot, cmd)
	if err != nil {
		if errors.Is(err, ground.ErrNoReply) {
			return rep, fail(exitUnreachable, "no reply from %s to %s within %s; is it online?", robot, cmd.Op, c.timeout)
		}
		return rep, fail(exitUnreachable, "sending %s to %s: %v", cmd.Op, robot, err)
	}
	return rep, nil
}

// robotArg takes at most one positional argument, a robot id ("" when
// there is none: the command then acts on the only robot online).
func robotArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		if err := protocol.ValidRobotID(args[0]); err != nil {
			return "", usageError("robot %q: the id may hold only letters, digits and _ . : -", args[0])
		}
		return args[0], nil
	}
	return "", usageError("one robot, got %d arguments: %s", len(args), strings.Join(args, " "))
}

// printJSON writes v as indented JSON.
func (c *cli) printJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// when formats a header timestamp in local time with its age.
func (c *cli) when(ts string) string {
	t, err := protocol.ParseTS(ts)
	if err != nil {
		return ts
	}
	return fmt.Sprintf("%s (%s ago)", t.Local().Format("15:04:05"), age(c.now().Sub(t)))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// outFlag is --out (FILE.sig) or --out=PATH.
type outFlag struct {
	set  bool
	path string
}

func (o *outFlag) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.path
}

func (o *outFlag) Set(s string) error {
	o.set = true
	if s == "true" {
		s = ""
	}
	if s == "false" {
		o.set = false
		s = ""
	}
	o.path = s
	return nil
}

func (o *outFlag) IsBoolFlag() bool { return true }
