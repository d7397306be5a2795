package transport

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/url"
	"strings"
)

// CheckBroker says what is wrong with a broker URL, or nil: it must parse,
// name a host, and have a scheme the transport dials (tcp, mqtt, ssl, tls,
// mqtts, ws, wss). A list given as one string ("tcp://a,tcp://b") is
// refused here: url.Parse alone takes it for a host named "a,tcp:".
func CheckBroker(b string) error {
	if strings.Contains(b, ",") {
		return fmt.Errorf("%q holds a comma: give each broker URL on its own (a list, or comma-separated on the command line)", b)
	}
	if !strings.Contains(b, "://") { // "host:1883" parses with the scheme "host"
		return fmt.Errorf("%q needs a scheme (tcp://, ssl://, ws://, wss://)", b)
	}
	u, err := url.Parse(b)
	if err != nil {
		return fmt.Errorf("%q: %w", b, err)
	}
	switch u.Scheme {
	case "tcp", "mqtt", "ssl", "tls", "mqtts", "ws", "wss":
	default:
		return fmt.Errorf("%q: unknown scheme %q (want tcp, ssl, ws or wss)", b, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q: no host", b)
	}
	if p := u.Port(); p != "" {
		for _, r := range p {
			if r < '0' || r > '9' {
				return fmt.Errorf("%q: port %q is not a number", b, p)
			}
		}
	}
	return nil
}

// ParseBrokers splits a comma-separated list of broker URLs (a -broker
// flag), trims the spaces, and checks each one. An empty list is an error.
func ParseBrokers(s string) ([]string, error) {
	var out []string
	var errs []error
	for _, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		if err := CheckBroker(b); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, b)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no broker URL")
	}
	return out, nil
}

// Order returns the brokers in an order of their own for key (a robot id):
// a shuffle seeded with a hash of key, so a fleet given the same list
// spreads over its nodes while each robot keeps its order across restarts
// (the client tries the list in order after every loss). The input is
// not changed.
func Order(brokers []string, key string) []string {
	out := append([]string(nil), brokers...)
	if len(out) < 2 {
		return out
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	s := h.Sum64()
	r := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
