// Package faultnet is a TCP proxy for fault-injection tests and tools: it
// forwards connections to a target on this machine and can delay what it
// forwards, cut every connection, and refuse new ones, so a test can put
// a slow or failing network between the robot and its broker. It listens
// on loopback only.
package faultnet

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards 127.0.0.1:<port> to Target.
type Proxy struct {
	ln     net.Listener
	target string

	delay  atomic.Int64 // nanoseconds added to every chunk forwarded
	frozen atomic.Bool  // forward nothing until thawed
	// gate is held (read) by a chunk being forwarded and (write) by
	// Freeze, so that nothing is written after Freeze returns.
	gate    sync.RWMutex
	refuse  atomic.Bool
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
	accepts atomic.Int64
	cuts    atomic.Int64
}

// Start listens on a free loopback port and forwards to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the proxy's address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL is an MQTT URL for the proxy.
func (p *Proxy) URL() string { return "tcp://" + p.Addr() }

// SetDelay delays every chunk forwarded, in both directions, by d.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Freeze stops forwarding in both directions without closing anything
// (a broker or a network that hangs: the sockets stay open, nothing
// arrives, not even the end of a connection, and once the buffers are
// full writes block), or forwards again what was held. Freeze(true)
// returns once a chunk being written has been: nothing is written after.
func (p *Proxy) Freeze(on bool) {
	p.gate.Lock()
	p.frozen.Store(on)
	p.gate.Unlock()
}

// Refuse makes the proxy close new connections at once (a network that is
// down), or accept them again.
func (p *Proxy) Refuse(on bool) { p.refuse.Store(on) }

// Cut closes every connection now (a network failure mid-stream).
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.cuts.Add(1)
}

// CutRandomly cuts every connection at random intervals in [min, max]
// until stop is closed.
func (p *Proxy) CutRandomly(stop <-chan struct{}, min, max time.Duration) {
	for {
		d := min + time.Duration(rand.Int64N(int64(max-min)+1))
		select {
		case <-stop:
			return
		case <-time.After(d):
			p.Cut()
		}
	}
}

// Accepts and Cuts count connections accepted and cuts made.
func (p *Proxy) Accepts() int64 { return p.accepts.Load() }
func (p *Proxy) Cuts() int64    { return p.cuts.Load() }

// Close stops the proxy and closes every connection; it returns when its
// goroutines have ended.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.refuse.Load() {
			_ = in.Close()
			continue
		}
		out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = in.Close()
			continue
		}
		if !p.track(in) || !p.track(out) {
			_ = in.Close()
			_ = out.Close()
			return
		}
		p.accepts.Add(1)
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

// write forwards one chunk once the proxy is not frozen; false when the
// proxy closed or the write failed.
func (p *Proxy) write(dst net.Conn, b []byte) bool {
	for {
		p.gate.RLock()
		if !p.frozen.Load() {
			break
		}
		p.gate.RUnlock()
		if p.isClosed() {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer p.gate.RUnlock()
	_, err := dst.Write(b)
	return err == nil
}

// pipe copies src to dst chunk by chunk, each after the configured delay;
// when either side ends, both close.
func (p *Proxy) pipe(src, dst net.Conn) {
	defer p.wg.Done()
	defer p.untrack(dst)
	defer p.untrack(src)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if d := time.Duration(p.delay.Load()); d > 0 {
				time.Sleep(d)
			}
			if !p.write(dst, buf[:n]) {
				return
			}
		}
		if err != nil {
			// A frozen network passes nothing on, not even the end of a
			// connection: the other side learns of it once thawed.
			for p.frozen.Load() && !p.isClosed() {
				time.Sleep(10 * time.Millisecond)
			}
			return // EOF, a cut, or the other side closed: end both
		}
	}
}
