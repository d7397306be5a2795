package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The slow-consumer attack of docs/RELIABILITY.md: subscribers to # that
// never read, and a flood of large commands written by a raw socket (a
// paho client in this process would cost more memory than it measures).

// mqttPacket encodes an MQTT 3.1.1 packet: fixed header byte, remaining
// length, body.
func mqttPacket(header byte, body []byte) []byte {
	out := []byte{header}
	n := len(body)
	for {
		b := byte(n % 128)
		n /= 128
		if n > 0 {
			b |= 0x80
		}
		out = append(out, b)
		if n == 0 {
			break
		}
	}
	return append(out, body...)
}

func mqttString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// rawConnect opens a connection with a CONNECT (clean session, no
// keepalive) and reads the CONNACK.
func rawConnect(addr, id string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	body := mqttString(nil, "MQTT")
	body = append(body, 4, 0x02, 0, 0) // 3.1.1, clean session, keepalive 0
	body = mqttString(body, id)
	if _, err := c.Write(mqttPacket(0x10, body)); err != nil {
		c.Close()
		return nil, err
	}
	ack := make([]byte, 4)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, ack); err != nil || ack[0] != 0x20 || ack[3] != 0 {
		c.Close()
		return nil, fmt.Errorf("connack %x: %v", ack, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, nil
}

// stalledSubscriber subscribes to # at QoS 1, reads the SUBACK, and
// never reads again.
func stalledSubscriber(addr, id string) (net.Conn, error) {
	c, err := rawConnect(addr, id)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4 << 10) // a small window: it fills at once
	}
	body := binary.BigEndian.AppendUint16(nil, 1)
	body = append(mqttString(body, "#"), 1)
	if _, err := c.Write(mqttPacket(0x82, body)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// rawFlood publishes rate commands a second of size bytes each (ids f0,
// f1, ...) at qos until end, from a raw socket; at QoS 1 a reader
// discards the PUBACKs. It returns how many it wrote.
func rawFlood(addr, topic string, rate, size int, qos byte, start, end time.Time) int {
	c, err := rawConnect(addr, "floodtest-raw")
	if err != nil {
		log.Fatalf("flood: %v", err)
	}
	defer c.Close()
	go func() { _, _ = io.Copy(io.Discard, c) }()
	w := bufio.NewWriterSize(c, 256<<10)
	ops := []string{"state.request", "mission.pause", "mission.resume"}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	sent := 0
	for now := range tick.C {
		if now.After(end) {
			break
		}
		for target := int(now.Sub(start).Seconds() * float64(rate)); sent < target; sent++ {
			p := fmt.Appendf(nil, `{"id":"f%d","op":%q,"key":"`, sent, ops[sent%len(ops)])
			p = append(p, strings.Repeat("x", max(0, size-len(p)-2))...)
			p = append(p, `"}`...)
			body := mqttString(nil, topic)
			header := byte(0x30)
			if qos == 1 {
				header = 0x32
				body = binary.BigEndian.AppendUint16(body, uint16(sent%65535+1))
			}
			if _, err := w.Write(mqttPacket(header, append(body, p...))); err != nil {
				log.Fatalf("flood: %v", err)
			}
		}
		if err := w.Flush(); err != nil {
			log.Fatalf("flood: %v", err)
		}
	}
	_ = w.Flush()
	return sent
}

// memWatch samples this process's resident memory and Go heap.
type memWatch struct {
	stop                      chan struct{}
	done                      chan struct{}
	peakRSS, peakHeap, peakGo atomic.Int64
}

func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// watchMemory samples every period; with a prefix, it writes the heap
// and goroutine profiles whenever the heap in use passes its peak by an
// eighth (a heap profile shows what the last GC found live), and with
// timeline it prints a line a second.
func watchMemory(every time.Duration, prefix string, timeline func() string) *memWatch {
	w := &memWatch{stop: make(chan struct{}), done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		var profiled int64 = 32 << 20
		last := time.Now()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			rss := rssBytes()
			setMax(&w.peakRSS, rss)
			setMax(&w.peakHeap, int64(ms.HeapInuse))
			setMax(&w.peakGo, int64(runtime.NumGoroutine()))
			if prefix != "" && int64(ms.HeapInuse) > profiled*9/8 {
				profiled = int64(ms.HeapInuse)
				writeProfiles(prefix)
			}
			if timeline != nil && time.Since(last) >= time.Second {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "t=%4.1fs rss=%4.0fMiB heap_inuse=%4.0fMiB heap_live=%4.0fMiB goroutines=%d %s\n",
					time.Since(start).Seconds(), mib(rss), mib(int64(ms.HeapInuse)), mib(int64(ms.HeapAlloc)), runtime.NumGoroutine(), timeline())
			}
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *memWatch) end() { close(w.stop); <-w.done }

func setMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// writeProfiles writes heap and goroutine profiles to prefix.heap and
// prefix.goroutine.
func writeProfiles(prefix string) {
	for _, name := range []string{"heap", "goroutine"} {
		f, err := os.Create(prefix + "." + name)
		if err != nil {
			log.Printf("profile: %v", err)
			continue
		}
		_ = pprof.Lookup(name).WriteTo(f, 0)
		f.Close()
	}
}
