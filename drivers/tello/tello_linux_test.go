//go:build linux

package tello

import (
	"context"
	"encoding/binary"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
)

type kv = map[string]any

var nd = drivertest.Node

// kinds are the tello kind alone.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	Register(r)
	return r
}

// Tello packet ids (the drone's binary protocol, as gobot's driver speaks it).
const (
	fakeWifi    = 0x001a
	fakeFlight  = 0x0056
	fakeStick   = 0x0050
	fakeTakeoff = 0x0054
	fakeLand    = 0x0055
	fakeTime    = 0x0046
)

// fakeTello speaks the Tello's UDP protocol on 127.0.0.1:8889 (the port gobot's driver
// sends to): it answers the connection request, counts the packets by id, takes off and lands
// when told, and sends flight data and Wi-Fi strength ten times a second.
type fakeTello struct {
	t    *testing.T
	conn *net.UDPConn

	mu      sync.Mutex
	peer    *net.UDPAddr
	conns   int
	ids     map[uint16]int
	order   []uint16 // takeoff, land in arrival order
	flying  bool
	battery int8
	done    chan struct{}
}

func startFakeTello(t *testing.T) *fakeTello {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8889})
	if err != nil {
		t.Skipf("the Tello's command port 127.0.0.1:8889 is taken (gobot's driver fixes it): %v", err)
	}
	if v, err := net.ListenUDP("udp", &net.UDPAddr{Port: videoPort}); err != nil {
		c.Close()
		t.Skipf("UDP port %d, where gobot's tello driver takes the video, is taken: %v", videoPort, err)
	} else {
		v.Close()
	}
	f := &fakeTello{t: t, conn: c, ids: map[uint16]int{}, battery: 87, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f.serve() }()
	go func() { defer wg.Done(); f.report() }()
	t.Cleanup(func() { close(f.done); c.Close(); wg.Wait() })
	return f
}

func (f *fakeTello) serve() {
	buf := make([]byte, 2048)
	for {
		n, from, err := f.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		p := buf[:n]
		f.mu.Lock()
		f.peer = from
		switch {
		case strings.HasPrefix(string(p), "conn_req:"):
			f.conns++
			f.conn.WriteToUDP([]byte("conn_ack:"+string(p[9:])), from)
		case n >= 7 && p[0] == 0xcc:
			id := binary.LittleEndian.Uint16(p[5:7])
			f.ids[id]++
			switch id {
			case fakeTakeoff:
				f.flying = true
				f.order = append(f.order, id)
			case fakeLand:
				f.flying = false
				f.order = append(f.order, id)
			}
		}
		f.mu.Unlock()
	}
}

// packet builds a drone-to-client packet: header, id, sequence, payload.
func telloPacket(id uint16, payload []byte) []byte {
	p := make([]byte, 9, 9+len(payload)+2)
	p[0] = 0xcc
	binary.LittleEndian.PutUint16(p[1:3], uint16(len(payload)+11)<<3)
	p[4] = 0x88
	binary.LittleEndian.PutUint16(p[5:7], id)
	p = append(p, payload...)
	return append(p, 0, 0) // CRC (gobot's driver does not check it)
}

func (f *fakeTello) report() {
	tk := time.NewTicker(100 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-f.done:
			return
		case <-tk.C:
		}
		f.mu.Lock()
		peer, flying, battery := f.peer, f.flying, f.battery
		f.mu.Unlock()
		if peer == nil {
			continue
		}
		fd := make([]byte, 24)
		state := byte(0x02) // on the ground
		if flying {
			binary.LittleEndian.PutUint16(fd[0:], 12)         // height 1.2 m (dm)
			binary.LittleEndian.PutUint16(fd[2:], uint16(30)) // north 0.3 m/s (cm/s)
			east := int16(-40)
			binary.LittleEndian.PutUint16(fd[4:], uint16(east)) // east -0.4 m/s
			binary.LittleEndian.PutUint16(fd[8:], 55)           // fly time 5.5 s
			state = 0x01                                        // flying
		}
		fd[12] = byte(battery)
		fd[17] = state
		f.conn.WriteToUDP(telloPacket(fakeFlight, fd), peer)
		f.conn.WriteToUDP(telloPacket(fakeWifi, []byte{90, 3}), peer)
	}
}

func (f *fakeTello) count(id uint16) int { f.mu.Lock(); defer f.mu.Unlock(); return f.ids[id] }

// The tello kind on gobot's driver against a fake drone: it connects, a takeoff / move /
// land mission sends the takeoff and the landing once each (and stick packets all along),
// waiting for the drone's flight data to say it flies and has landed; the flight data and
// Wi-Fi strength reach the blackboard; an e-stop lands the drone; a flip is refused while
// flips are off.
func TestTelloAgainstAFakeDrone(t *testing.T) {
	drivertest.SkipOffLinux(t)
	fake := startFakeTello(t)
	cfg := drivertest.Parse(t, kinds(), `
devices:
  - {name: drone, kind: tello, address: 127.0.0.1, local_port: `+strconv.Itoa(drivertest.FreeUDPPort(t))+`, max_speed: 0.4}
`)
	r, err := drivers.Build(cfg, drivers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	drivertest.WaitUntil(t, "the drone's flight data", func() bool { _, _, ok := r.Reading("tello.battery"); return ok })
	if fake.count(fakeTakeoff) != 0 || fake.count(fakeLand) != 0 {
		t.Fatalf("the drone was told to move at start: %v", fake.ids)
	}

	tree := drivertest.CompileTree(t, cfg, nd("MemSequence", "", nil,
		nd("TelloTakeoff", "", kv{"timeout_ms": 5000.0}),
		nd("TelloMove", "", kv{"forward": 0.4, "yaw": -0.2, "ms": 300.0}),
		nd("TelloLand", "", kv{"timeout_ms": 5000.0})))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	s := &drivertest.Sink{}
	a.Env, a.Sink = r, s
	bind := r.Bind(tree)
	sawFlying := false
	deadline := time.Now().Add(20 * time.Second)
	st := bt.Running
	for st == bt.Running {
		if time.Now().After(deadline) {
			t.Fatalf("the mission did not end: %s; packets %v", s, fake.ids)
		}
		time.Sleep(20 * time.Millisecond)
		bind.Snapshot(&a.BB)
		st = a.Tick(time.Now().UnixNano())
		if err := r.Apply(); err != nil {
			t.Fatal(err)
		}
		if h, _, ok := r.Reading("tello.height"); ok && h == 1.2 {
			sawFlying = true
			v := map[string]float64{}
			for _, k := range []string{"tello.flying", "tello.north_speed", "tello.east_speed", "tello.speed", "tello.fly_time", "tello.wifi", "tello.battery"} {
				v[k], _, _ = r.Reading(k)
			}
			if v["tello.flying"] != 1 || v["tello.north_speed"] != 0.3 || v["tello.east_speed"] != -0.4 || v["tello.speed"] != 0.5 ||
				v["tello.fly_time"] != 5.5 || v["tello.wifi"] != 90 || v["tello.battery"] != 87 {
				t.Fatalf("flight data on the blackboard: %v", v)
			}
		}
	}
	if st != bt.Success {
		t.Fatalf("mission %v: %s", st, s)
	}
	fake.mu.Lock()
	order := append([]uint16(nil), fake.order...)
	conns := fake.conns
	fake.mu.Unlock()
	if len(order) != 2 || order[0] != fakeTakeoff || order[1] != fakeLand || conns != 1 || !sawFlying {
		t.Fatalf("takeoff/land packets %v, %d connection requests, flying seen %v", order, conns, sawFlying)
	}
	if fake.count(fakeStick) < 10 || fake.count(fakeTime) != 1 {
		t.Errorf("stick packets %d, date packets %d", fake.count(fakeStick), fake.count(fakeTime))
	}

	// a tick of TelloMove and its Apply allocate nothing (its typed command is copied, never
	// boxed), and halting it hovers
	move := drivertest.CompileTree(t, cfg, nd("TelloMove", "", kv{"forward": 0.2}))
	ma := bt.NewAgent(move, 0, time.Now().UnixNano())
	ma.Env, ma.Sink = r, s
	if st := ma.Tick(time.Now().UnixNano()); st != bt.Running {
		t.Fatalf("TelloMove: %v: %s", st, s)
	}
	if n := testing.AllocsPerRun(100, func() { ma.Tick(time.Now().UnixNano()); _ = r.Apply() }); n != 0 {
		t.Errorf("%v allocations per TelloMove tick and Apply, want 0", n)
	}
	drone, err := drivers.ActuatorOf[Command](r, "drone")
	if err != nil {
		t.Fatal(err)
	}
	if c := drone.Wanted(); c.mode != modeSticks || c.forward != 0.2 {
		t.Errorf("wanted while moving: %+v", c)
	}
	ma.HaltAll()
	if c := drone.Wanted(); c != (Command{mode: modeSticks}) {
		t.Errorf("wanted after the halt: %+v, want a hover", c)
	}

	// a flip is refused where the mission is compiled
	_, err = drivertest.Registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("TelloFlip", "", kv{"direction": "front"})}, Main: "main"})
	if err == nil || !strings.Contains(err.Error(), "allow_flips") {
		t.Errorf("a flip with flips off: %v", err)
	}
	// a faster move than max_speed is refused too
	_, err = drivertest.Registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("TelloMove", "", kv{"forward": 0.9})}, Main: "main"})
	if err == nil {
		t.Error("a move past max_speed compiled")
	}

	// e-stop lands it: the landing goes out at once
	if err := r.EStop("test"); err != nil {
		t.Fatal(err)
	}
	drivertest.WaitUntil(t, "the e-stop's landing", func() bool { return fake.count(fakeLand) == 2 })
	if fa := r.FenceActions(); len(fa) != 1 {
		t.Fatalf("fence actions %v", fa)
	}
}

// The Tello's leaves on an agent without a robot return ERROR and say why.
func TestLeavesSayWhy(t *testing.T) {
	cfg := drivertest.Parse(t, kinds(), "devices:\n  - {name: drone, kind: tello, address: 127.0.0.1, allow_flips: true}\n")
	for _, c := range []struct {
		node   string
		params kv
	}{{"TelloTakeoff", nil}, {"TelloLand", nil}, {"TelloMove", kv{"forward": 0.1}}, {"TelloFlip", kv{"direction": "left"}}} {
		a := bt.NewAgent(drivertest.CompileTree(t, cfg, nd(c.node, "it", c.params)), 0, 0)
		s := &drivertest.Sink{}
		a.Sink = s
		if st := a.Tick(1e6); st != bt.Error || !strings.Contains(s.String(), "the agent has no robot") {
			t.Errorf("%s without a robot: %v: %s", c.node, st, s)
		}
	}
}

// A config without a Tello still gets the Tello's leaves, which refuse to compile there.
func TestLeavesWithoutATello(t *testing.T) {
	cfg := drivertest.Parse(t, kinds(), "adaptors: {b: {kind: sim}}\ndevices: []\n")
	_, err := drivertest.Registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("TelloLand", "", nil)}, Main: "main"})
	if err == nil || !strings.Contains(err.Error(), "the robot config has no tello device") {
		t.Errorf("TelloLand without a Tello: %v", err)
	}
}
