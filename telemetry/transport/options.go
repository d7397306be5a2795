package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Options configure a Conn. Secrets come from a file or the
// environment: Password is for callers that read one themselves, never
// for a command-line flag.
type Options struct {
	// Brokers are URLs tried in order: tcp://, ssl:// (also tls://,
	// mqtts://), ws://, wss://.
	Brokers  []string
	ClientID string

	Username     string
	Password     string
	PasswordFile string // first line is the password
	PasswordEnv  string // name of the environment variable holding it

	// TLS; TLSConfig, when set, is used as is.
	CAFile    string
	CertFile  string
	KeyFile   string
	TLSConfig *tls.Config

	// Subscriptions are registered before the first connection, so they
	// are in place before Birth is published.
	Subscriptions []Subscription

	// SubscribeAtMostOnce subscribes at QoS 0 whatever a subscription
	// asks. RabbitMQ (3.10) keeps a clean session's QoS 1 subscription in
	// a durable queue on the node the client was connected to, and while
	// that node is down refuses the client's subscription on every other
	// node ("home node ... is down"): the client never gets back on the
	// cluster. A QoS 0 subscription's queue is transient and goes with
	// the node. The cost: the broker delivers to this client at most once,
	// so a sender that needs an answer resends until it has one (botd's
	// ground stations and botctl do).
	SubscribeAtMostOnce bool
	// ReconnectDelay is waited once after a loss, before the first
	// reconnect attempt. RabbitMQ (3.10) forgets a dead node's queues
	// only once the survivors have handled its death: a client back on a
	// survivor sooner can be given its old queue, which then goes, and
	// the subscription with it, while the connection stays up.
	ReconnectDelay time.Duration

	// Will is the last will, sent by the broker when the connection dies
	// without a DISCONNECT. Fixed for the life of the client.
	Will *Message
	// Birth is published on every (re)connect after the subscriptions
	// are restored, before IsUp turns true.
	Birth func() Message
	// Goodbye is published by Close before disconnecting.
	Goodbye func() Message

	// NoResend says which messages must not be resent by the client after
	// a reconnect because their owner resends them itself (default:
	// retained ones, which the owner republishes fresh; an old copy
	// arriving after the new one would become the retained value).
	NoResend func(topic string, retained bool) bool
	// Discard is the topic such messages are turned into (paho has to
	// send something to free the packet id); default "{ClientID}/_discard".
	Discard string

	KeepAlive            time.Duration // default 15 s; the will fires about 1.5× after a silent death
	PingTimeout          time.Duration // no answer to a ping this long: the connection is lost; default KeepAlive/2
	ConnectTimeout       time.Duration // default 10 s
	PublishTimeout       time.Duration // default 5 s; also paho's write timeout
	ConnectRetryInterval time.Duration // between rounds of the list before the first connection; default 2 s
	// MaxReconnectInterval bounds paho's reconnect backoff after a loss
	// (it starts at 1 s and doubles while every broker in the list
	// refuses); default 10 s, where paho's own is 10 minutes.
	MaxReconnectInterval time.Duration

	Logger *slog.Logger

	// WrapConn, when set, wraps every network connection the client opens
	// (fault injection in tests: refuse or sever connections).
	WrapConn func(net.Conn) (net.Conn, error)
}

// Subscription is one filter and its handler.
type Subscription struct {
	Filter  string
	QoS     byte
	Handler Handler
	// Retained, when set, receives the messages the broker delivers with
	// the retain flag (those it kept from before the subscription)
	// instead of Handler.
	Retained Handler
}

func (o *Options) fill() error {
	if len(o.Brokers) == 0 {
		return errors.New("transport: no broker URL")
	}
	for _, b := range o.Brokers {
		if err := CheckBroker(b); err != nil {
			return fmt.Errorf("transport: broker %w", err)
		}
	}
	if o.ClientID == "" {
		return errors.New("transport: no client id")
	}
	if o.Discard == "" {
		o.Discard = o.ClientID + "/" + protocol.LeafDiscard
	}
	if o.NoResend == nil {
		o.NoResend = func(_ string, retained bool) bool { return retained }
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.KeepAlive, 15*time.Second)
	def(&o.PingTimeout, o.KeepAlive/2)
	def(&o.ConnectTimeout, 10*time.Second)
	def(&o.PublishTimeout, 5*time.Second)
	def(&o.ConnectRetryInterval, 2*time.Second)
	def(&o.MaxReconnectInterval, 10*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func (o *Options) password() (string, error) {
	switch {
	case o.PasswordFile != "":
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("transport: password file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	case o.PasswordEnv != "":
		p, ok := os.LookupEnv(o.PasswordEnv)
		if !ok {
			return "", fmt.Errorf("transport: password variable %s is not set", o.PasswordEnv)
		}
		return p, nil
	}
	return o.Password, nil
}

func (o *Options) tlsConfig() (*tls.Config, error) {
	if o.TLSConfig != nil {
		return o.TLSConfig, nil
	}
	needed := o.CAFile != "" || o.CertFile != ""
	for _, b := range o.Brokers {
		switch u, _ := url.Parse(b); u.Scheme {
		case "ssl", "tls", "mqtts", "wss":
			needed = true
		}
	}
	if !needed {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("transport: CA file: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("transport: CA file %s: no certificate", o.CAFile)
		}
	}
	if o.CertFile != "" || o.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("transport: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func (o *Options) paho() (*paho.ClientOptions, error) {
	po := paho.NewClientOptions()
	for _, b := range o.Brokers {
		po.AddBroker(b)
	}
	po.SetClientID(o.ClientID)
	if o.Username != "" {
		pw, err := o.password()
		if err != nil {
			return nil, err
		}
		po.SetUsername(o.Username)
		po.SetPassword(pw)
	}
	tc, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	if o.Will != nil {
		po.SetBinaryWill(o.Will.Topic, o.Will.Payload, o.Will.QoS, o.Will.Retain)
	}
	po.SetProtocolVersion(4) // MQTT 3.1.1; no fallback dance
	po.SetCleanSession(true)
	po.SetResumeSubs(false)
	po.SetOrderMatters(true) // handlers only do non-blocking sends
	po.SetAutoReconnect(true)
	po.SetConnectRetry(true)
	po.SetConnectRetryInterval(o.ConnectRetryInterval)
	po.SetMaxReconnectInterval(o.MaxReconnectInterval)
	po.SetKeepAlive(o.KeepAlive)
	po.SetPingTimeout(o.PingTimeout)
	po.SetConnectTimeout(o.ConnectTimeout)
	po.SetWriteTimeout(o.PublishTimeout)
	po.SetDialer(&net.Dialer{Timeout: o.ConnectTimeout})
	return po, nil
}

// dialURL opens the network connection the way paho does for tcp, ssl
// and ws (paho's own function is unexported).
func dialURL(u *url.URL, o paho.ClientOptions) (net.Conn, error) {
	d := o.Dialer
	if d == nil {
		d = &net.Dialer{Timeout: o.ConnectTimeout}
	}
	switch u.Scheme {
	case "tcp", "mqtt":
		return d.Dial("tcp", u.Host)
	case "ssl", "tls", "mqtts":
		return tls.DialWithDialer(d, "tcp", u.Host, o.TLSConfig)
	case "ws", "wss":
		du := *u
		du.User = nil
		var tc *tls.Config
		if u.Scheme == "wss" {
			tc = o.TLSConfig
		}
		return paho.NewWebsocket(du.String(), tc, o.ConnectTimeout, o.HTTPHeaders, o.WebsocketOptions)
	}
	return nil, fmt.Errorf("transport: unsupported scheme %q", u.Scheme)
}
