package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/groot2"
)

// Groot2Config is the `groot2:` section: the Groot2 endpoint (GROOT2.md).
// Off unless listen is set; the protocol has no authentication, so an
// address without a host listens on loopback only.
type Groot2Config struct {
	// Listen is host:port of the request socket; the publisher takes the
	// next port (Groot2's default is 1667, so 1667 and 1668).
	Listen string `yaml:"listen"`
	// AllowDebug allows Groot2's breakpoints and node replacement
	// (hooks): they hold or replace only the mission's nodes, never the
	// tick loop, the failsafes or the e-stop, and are released when the
	// client is silent for 5 s, on e-stop and when the mission ends.
	AllowDebug bool `yaml:"allow_debug"`
}

// groot2Usage is the -groot2 flag's help.
const groot2Usage = "serve Groot2's monitor protocol on HOST:PORT and the next port, overriding the config (no authentication: keep it on loopback or a trusted link)"

// validate adds the section's problems. Debugging is refused on a robot
// that requires signed missions: an unauthenticated Groot2 client could
// change what a signed mission does (a REPLACE hook).
func (g Groot2Config) validate(bad func(field, format string, args ...any), signedMissions bool) {
	if g.AllowDebug && signedMissions {
		bad("groot2.allow_debug", "not with security.require_signed_missions: Groot2's hooks are unauthenticated and could change what a signed mission does")
	}
	if g.Listen == "" {
		return
	}
	_, port, err := net.SplitHostPort(g.Listen)
	if err != nil {
		bad("groot2.listen", "%q: want host:port (127.0.0.1:1667)", g.Listen)
		return
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65534 {
		bad("groot2.listen", "%q: the port must be 1 to 65534 (the publisher takes the next one)", g.Listen)
	}
}

// groot2Addr is the address to listen on: loopback when listen names no
// host.
func (g Groot2Config) addr() string {
	host, port, err := net.SplitHostPort(g.Listen)
	if err != nil || host != "" {
		return g.Listen
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// serveGroot2 runs the Groot2 endpoint until ctx ends. A port it cannot
// bind is logged: the robot runs on without it.
func (s *system) serveGroot2(ctx context.Context) {
	addr := s.cfg.Groot2.addr()
	srv, err := groot2.New(groot2.Config{Addr: addr, Source: s.runner, Registry: s.reg, Logger: s.log,
		AllowDebug: s.cfg.Groot2.AllowDebug, Debug: s.runner, HookSilence: s.cfg.Debug.ClientSilence})
	if err != nil {
		s.log.Error("groot2 endpoint not started", "err", err)
		return
	}
	if s.cfg.Groot2.AllowDebug {
		s.log.Warn("groot2 debugging is allowed: a Groot2 client may hold the mission at breakpoints and replace node statuses", "addr", srv.Addr().String())
	}
	if ip := srv.Addr().IP; !ip.IsLoopback() {
		s.log.Warn("the groot2 endpoint listens beyond loopback and has no authentication: anyone who reaches it sees the mission", "addr", srv.Addr().String())
	}
	_ = srv.Run(ctx)
}

// simBTLog writes `botd sim -btlog FILE`: agent 0's transitions on the
// simulation's virtual clock, from a first timestamp taken when the
// simulation starts.
type simBTLog struct {
	f   *os.File
	log *groot2.BTLog
	now int64 // the virtual time of the current tick (ns)
}

func openSimBTLog(path string, m *missions.Mission, reg *bt.Registry) (*simBTLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	l, err := groot2.NewBTLog(f, m.Doc, m.Tree, reg, time.Now())
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("-btlog: %w", err)
	}
	return &simBTLog{f: f, log: l}, nil
}

// observer records agent a's transitions; next (the trace) sees every
// event too.
func (b *simBTLog) observer(next bt.Observer) bt.Observer {
	return b.log.Observer(func() time.Duration { return time.Duration(b.now) }, next)
}

// close writes what is buffered; an error names the file.
func (b *simBTLog) close() error {
	if b == nil {
		return nil
	}
	err := errors.Join(b.log.Flush(), b.f.Close())
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.f.Name(), err)
	}
	return nil
}
