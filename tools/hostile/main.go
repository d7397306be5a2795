// Command hostile sends a real botd process what a hostile or broken
// ground station would, and reports what it cost the robot, as
// docs/RELIABILITY.md quotes it: the daemon's resident memory after each
// round, the tick overruns and worst jitter it reported, what every
// command was answered, and whether the demo mission kept running.
//
// Rounds: YAML alias bombs (a few hundred bytes that expand to billions
// of nodes), missions over the node budget, hundreds of distinct valid
// missions (the store keeps 32), oversized blackboard strings, and MQTT
// packets announcing 200 MB to the embedded broker.
//
//	go build -o /tmp/botd ./cmd/botd && go run ./tools/hostile -botd /tmp/botd
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

func main() {
	botd := flag.String("botd", "", "the botd binary (go build -o /tmp/botd ./cmd/botd)")
	rounds := flag.Int("n", 20, "inputs per round")
	flag.Parse()
	log.SetFlags(0)
	if *botd == "" {
		log.Fatal("-botd is required")
	}
	addr := freeAddr()
	dir, _ := os.MkdirTemp("", "hostile")
	defer os.RemoveAll(dir)
	// The demo, with one key operators may write (blackboard.set).
	hw, _ := filepath.Abs("configs/sim.yaml")
	patrol, _ := filepath.Abs("configs/missions/patrol.json")
	conf := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("robot: rover-h\nhardware: %s\nmission: %s\nwritable: [cruise]\nstate_dir: %s\nbroker: {embedded: {listen: '%s'}}\n", hw, patrol, dir, addr)), 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(*botd, "-config", conf)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() }()

	var mu sync.Mutex
	var state protocol.StateMsg
	g, err := ground.New(ground.Config{GCS: "hostile", Conn: transport.Options{Brokers: []string{"tcp://" + addr}}})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Watch("rover-h", ground.RobotHandlers{State: func(m protocol.StateMsg) { mu.Lock(); state = m; mu.Unlock() }}); err != nil {
		log.Fatal(err)
	}
	lastState := func() protocol.StateMsg { mu.Lock(); defer mu.Unlock(); return state }
	deadline := time.Now().Add(30 * time.Second)
	for lastState().Mode != protocol.ModeRunning {
		if time.Now().After(deadline) {
			log.Fatal("the demo mission never ran")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // settle: the figures below are against this
	fmt.Printf("botd %s, pid %d\n\n", *botd, cmd.Process.Pid)
	fmt.Println("| round | inputs | replies | RSS after | overruns | worst jitter | mission |")
	fmt.Println("|---|---|---|---|---|---|---|")
	report := func(name string, n int, codes map[string]int) {
		time.Sleep(time.Second) // let a state heartbeat carry the figures
		s := lastState()
		mission := "none"
		if s.Mission != nil {
			mission = s.Mission.Name + " " + s.Mission.Status
		}
		var cs []string
		for c, k := range codes {
			cs = append(cs, fmt.Sprintf("%d %s", k, c))
		}
		fmt.Printf("| %s | %d | %s | %.1f MiB | %d | %.1f ms | %s |\n", name, n, strings.Join(cs, ", "), rssMiB(cmd.Process.Pid), s.Tick.Overruns, float64(s.Tick.JitterMaxUs)/1000, mission)
	}
	report("baseline (demo running)", 0, map[string]int{})

	send := func(c protocol.Command) string {
		c.ID = uuid.NewString()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rep, err := g.Send(ctx, "rover-h", c)
		switch {
		case err != nil:
			return "no reply"
		case rep.OK:
			return "ok"
		}
		return rep.Error.Code
	}
	round := func(name string, n int, mk func(i int) protocol.Command) {
		codes := map[string]int{}
		for i := range n {
			codes[send(mk(i))]++
		}
		report(name, n, codes)
	}
	bomb, err := os.ReadFile("missions/testdata/limits/alias-bomb.yaml")
	if err != nil {
		log.Fatal(err)
	}
	round(fmt.Sprintf("YAML alias bomb (%d bytes, 10^10 nodes)", len(bomb)), *rounds, func(int) protocol.Command {
		js, _ := json.Marshal(strings.Replace(string(bomb), "7d0c8e52-2b8f-4b0c-9e1a-5a1c0d6c1b0e", uuid.NewString(), 1))
		return protocol.Command{Op: protocol.OpMissionLoad, Mission: js, Start: true, Replace: true}
	})
	round("mission of 6,000 nodes (budget 5,000)", *rounds, func(i int) protocol.Command {
		return protocol.Command{Op: protocol.OpMissionLoad, Mission: bigMission(6000), Start: true, Replace: true}
	})
	round("distinct valid missions (store keeps 32)", 5**rounds, func(int) protocol.Command {
		return protocol.Command{Op: protocol.OpMissionLoad, Mission: bigMission(50)}
	})
	round("blackboard.set of a 200 KB string", *rounds, func(int) protocol.Command {
		v := strings.Repeat("x", 200<<10)
		return protocol.Command{Op: protocol.OpBlackboardSet, Key: "cruise", Value: v}
	})
	closed := 0
	for range *rounds {
		if announce200MB(addr) {
			closed++
		}
	}
	report("MQTT PUBLISH announcing 200 MB", *rounds, map[string]int{"connections closed at the header": closed})
	n, _ := filepath.Glob(filepath.Join(dir, "missions", "missions", "*.json"))
	fmt.Printf("\nmission documents on disk at the end: %d\n", len(n))

	// Hostile missions: code that would run without bound. Each replaces
	// the patrol; the reply is ok (they are valid), and each run ends in
	// ERROR when it reaches its budget.
	attack := func(root string) func(int) protocol.Command {
		return func(int) protocol.Command {
			doc := fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"attack","main":"m","trees":{"m":%s}}`, uuid.NewString(), root)
			return protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(doc), Start: true, Replace: true}
		}
	}
	fmt.Println()
	fmt.Println("| round | inputs | replies | RSS after | overruns | worst jitter | mission |")
	fmt.Println("|---|---|---|---|---|---|---|")
	round("Script `s := repeat(repeat(\"x\", 999999), 999999)` (168 bytes)", *rounds,
		attack(`{"type":"Script","params":{"code":"s := repeat(repeat(\"x\", 999999), 999999)"}}`))
	round("`s = s + s` every tick under a forever Repeater", 1,
		attack(`{"type":"MemSequence","children":[{"type":"Script","params":{"code":"s := 'xxxxxxxx'"}},{"type":"Repeater","params":{"count":-1},"children":[{"type":"Script","params":{"code":"s = s + s"}}]}]}`))
	round("`all(1..999999, {not (repeat(\"x\", 16384) matches \"^(x|xx)*y$\")})` beside a Drive", *rounds,
		attack(`{"type":"Parallel","params":{"success":2},"children":[{"type":"Drive","params":{"linear":0.2}},{"type":"Expr","params":{"expr":"all(1..999999, {not (repeat(\"x\", 16384) matches \"^(x|xx)*y$\")})"}}]}`))

	// E-stops while such a mission runs, on the estop topic and on cmd:
	// the reply's round trip as the ground station sees it.
	fmt.Println()
	fmt.Println("| e-stop on | e-stops | reply p50 | reply max | replies ok |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, onTopic := range []bool{true, false} {
		var lat []time.Duration
		okN := 0
		for range *rounds {
			send(attack(`{"type":"Parallel","params":{"success":2},"children":[{"type":"Drive","params":{"linear":0.2}},{"type":"Expr","params":{"expr":"all(1..999999, {not (repeat(\"x\", 16384) matches \"^(x|xx)*y$\")})"}}]}`)(0))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			t0 := time.Now()
			var rep protocol.Reply
			var err error
			if onTopic {
				rep, err = g.SendEStop(ctx, "rover-h", protocol.Command{Op: protocol.OpEStop})
			} else {
				rep, err = g.Send(ctx, "rover-h", protocol.Command{Op: protocol.OpEStop})
			}
			lat = append(lat, time.Since(t0))
			cancel()
			if err == nil && rep.OK {
				okN++
			}
			send(protocol.Command{Op: protocol.OpEStopReset})
		}
		slices.Sort(lat)
		leaf := "cmd"
		if onTopic {
			leaf = "estop"
		}
		fmt.Printf("| `%s` | %d | %.1f ms | %.1f ms | %d |\n", leaf, len(lat), ms(lat[len(lat)/2]), ms(lat[len(lat)-1]), okN)
	}
	fmt.Printf("\nRSS at the end: %.1f MiB\n", rssMiB(cmd.Process.Pid))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// rssMiB reads the process's resident set from /proc.
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// bigMission is a valid mission of n Succeed leaves under a Sequence,
// with a fresh id.
func bigMission(n int) json.RawMessage {
	kids := make([]string, n)
	for i := range kids {
		kids[i] = `{"type":"Succeed"}`
	}
	return json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"n%d","main":"m","trees":{"m":{"type":"Sequence","children":[%s]}}}`,
		uuid.NewString(), n, strings.Join(kids, ",")))
}

// announce200MB connects, and sends a PUBLISH header announcing 200 MB
// with no body; it reports whether the broker closed the connection.
func announce200MB(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	id := "h" + uuid.NewString()[:8]
	connect := append([]byte{0x10, byte(10 + 2 + len(id)), 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 60, 0, byte(len(id))}, id...)
	_, _ = c.Write(connect)
	_, _ = c.Write([]byte{0x30, 0x80, 0x84, 0xaf, 0x5f})
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	for {
		if _, err := c.Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !ok || !ne.Timeout()
		}
	}
}
