package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// startFleet runs `botd fleet` with args as a process, stopped (SIGINT,
// then killed) when the test ends.
func startFleet(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(botdBinary(t), append([]string{"fleet", "-state-dir", t.TempDir(), "-report", "1h"}, args...)...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = daemonSysProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("botd fleet did not stop after SIGINT")
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("botd fleet %v:\n%s", args, out.String())
		}
	})
	return cmd
}

// Fleet commands against robots from the fleet generator: five robots
// labelled site=yard-a and one more, rover-9001, whose process is stopped
// (SIGSTOP: connected, retained ONLINE, but it answers nothing).
//
// The broker is Debian's mosquitto: the embedded one (mochi-mqtt v2) has a
// data race between storing a retained message and scanning the retained
// messages for a new subscription, which the race detector reports when
// botctl subscribes while robots publish their state.
func TestFleetCommands(t *testing.T) {
	url := "tcp://" + mqtttest.StartMosquitto(t)
	startFleet(t, "-n", "5", "-broker", url, "-labels", "site=yard-a,kind=rover")
	straggler := startFleet(t, "-n", "1", "-broker", url, "-robot", "rover-9%03d", "-labels", "site=yard-b")

	g, err := ground.New(ground.Config{GCS: "fleet-cmd-test", Conn: transport.Options{Brokers: []string{url}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	allOnline := func() bool {
		rs := g.Robots()
		n := 0
		for _, r := range rs {
			if r.Connection == protocol.ConnOnline && r.State != nil && r.State.Mode == protocol.ModeRunning {
				n++
			}
		}
		return n == 6
	}
	waitFor(t, 60*time.Second, "six robots online, running their mission", allOnline, nil)
	if err := straggler.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}

	// The mission to every rover: five accept it, the stopped one is
	// NO_REPLY, exit 3.
	mission := repoFile(t, "configs/missions/hello.json")
	r := botctl(t, "mission", "send", mission, "--robots", "rover-*", "--broker", url, "--timeout", "8s")
	expect(t, r, exitUnreachable, "1 did not answer within 8s: rover-9001", "sent to 6 robots at once: 5 answered")
	rows := tableRows(r.stdout)
	for _, id := range []string{"rover-0001", "rover-0002", "rover-0003", "rover-0004", "rover-0005"} {
		if !strings.HasPrefix(rows[id], "ONLINE OK ") || !strings.Contains(rows[id], `mission "hello" accepted`) {
			t.Errorf("%s: %q", id, rows[id])
		}
	}
	if !strings.Contains(rows["rover-9001"], "NO_REPLY - no reply within 8s") {
		t.Errorf("rover-9001: %q\n%s", rows["rover-9001"], r.stdout)
	}

	// By label: the five of yard-a, all answer: exit 0. JSON gives each
	// robot's code and reply.
	r = botctl(t, "mission", "send", mission, "--robots", "site=yard-a,kind=rover", "--broker", url, "--json")
	expect(t, r, exitOK)
	var out fleetJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(out.Robots) != 5 || out.Op != protocol.OpMissionLoad || out.Selector != "site=yard-a,kind=rover" {
		t.Fatalf("%+v", out)
	}
	for _, row := range out.Robots {
		if row.Code != "OK" || row.Reply == nil || !row.Reply.OK || row.LatencyMs == nil || !strings.HasPrefix(row.Robot, "rover-000") {
			t.Errorf("%+v", row)
		}
	}

	// A selector matching nobody is an error, never a silent no-op.
	expect(t, botctl(t, "estop", "--robots", "kind=uav", "--broker", url), exitUnreachable, `no robot matches "kind=uav"; robots heard: rover-0001`)
	expect(t, botctl(t, "estop", "--robots", "uav-*", "--broker", url), exitUnreachable, `no robot matches "uav-*"`)
	expect(t, botctl(t, "estop", "--robots", "site=", "--broker", url), exitUsage, "not a label value")
	expect(t, botctl(t, "estop", "rover-0001", "--all", "--broker", url), exitUsage, "not several")

	// E-stop everything: the five acknowledge ESTOP, the stopped one does
	// not answer.
	r = botctl(t, "estop", "--all", "--broker", url, "--timeout", "8s")
	expect(t, r, exitUnreachable, "E-STOP sent to 6 robots at once: 5 answered", "1 did not answer within 8s: rover-9001")
	rows = tableRows(r.stdout)
	if !strings.HasPrefix(rows["rover-0003"], "ONLINE ESTOP ") || !strings.HasPrefix(rows["rover-9001"], "ONLINE NO_REPLY") &&
		!strings.HasPrefix(rows["rover-9001"], "CONNECTION_BROKEN NO_REPLY") {
		t.Errorf("%s", r.stdout)
	}

	// The straggler wakes up (it may have been dropped by the broker
	// meanwhile and reconnects); e-stop --all now reaches all six.
	straggler.Process.Signal(syscall.SIGCONT)
	waitFor(t, 60*time.Second, "rover-9001 back online", func() bool {
		for _, r := range g.Robots() {
			if r.ID == "rover-9001" {
				return r.Connection == protocol.ConnOnline
			}
		}
		return false
	}, nil)
	// (As botctl runs on RabbitMQ: its subscriptions at QoS 0, which
	// mosquitto honours; every reply still comes.)
	r = botctl(t, "estop", "--all", "--broker", url, "--broker-kind", "rabbitmq")
	expect(t, r, exitOK)
	if !regexp.MustCompile(`E-STOP sent to 6 robots at once: 6 answered, all within [0-9.]+m?s \(p50 [0-9.]+m?s\)`).MatchString(r.stdout) {
		t.Errorf("no latency summary:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, " ESTOP "); n != 6 {
		t.Errorf("%d robots in ESTOP:\n%s", n, r.stdout)
	}
	waitFor(t, 30*time.Second, "every robot's state in ESTOP", func() bool {
		rs := g.Robots()
		for _, r := range rs {
			if r.State == nil || r.State.Mode != protocol.ModeEStop {
				return false
			}
		}
		return len(rs) == 6
	}, nil)

	// A robot that said OFFLINE (anyone may publish that) gets the e-stop
	// too, with a warning; its silence does not fail the command, unless
	// nobody answered at all.
	old := startFleet(t, "-n", "1", "-broker", url, "-robot", "old-%d")
	waitFor(t, 60*time.Second, "old-1 online", func() bool { return connectionOf(g, "old-1") == protocol.ConnOnline }, nil)
	old.Process.Signal(syscall.SIGINT)
	waitFor(t, 30*time.Second, "old-1 OFFLINE", func() bool { return connectionOf(g, "old-1") == protocol.ConnOffline }, nil)
	r = botctl(t, "estop", "--all", "--broker", url, "--timeout", "3s")
	expect(t, r, exitOK, "E-STOP sent to 7 robots at once: 6 answered", "; 1 said OFFLINE and did not answer", "warning: old-1 said OFFLINE")
	if rows := tableRows(r.stdout); rows["old-1"] != "OFFLINE NO_REPLY - no reply within 3s (sent anyway: it said OFFLINE)" {
		t.Errorf("old-1: %q", rows["old-1"])
	}
	expect(t, botctl(t, "estop", "--robots", "old-*", "--broker", url, "--timeout", "3s"), exitUnreachable, "E-STOP sent to 1 robot at once: 0 answered; 1 said OFFLINE and did not answer")
}

func connectionOf(g *ground.Client, robot string) string {
	for _, r := range g.Robots() {
		if r.ID == robot {
			return r.Connection
		}
	}
	return ""
}

// tableRows maps a fleet table's robots to the rest of their row, spaces
// squeezed: "ONLINE OK 3.1ms mission ...".
func tableRows(out string) map[string]string {
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] != "ROBOT" {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	return rows
}
