package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The hostile-mission and hostile-client suite: each attack of the
// adversarial review, scripted against one real botd process (the
// simulated rover, its embedded broker), bounded in time. After every
// attack the daemon must still be alive and answer; at the end its
// resident memory must be under 64 MiB (checked without the race
// detector, which multiplies memory: CI runs this suite once without it).

const hostileRobot = "rover-h"

type hostile struct {
	t    *testing.T
	p    *daemonProc
	url  string
	g    *groundRec
	addr string
}

func startHostile(t *testing.T) *hostile {
	t.Helper()
	dir := t.TempDir()
	addr := freeAddr(t)
	conf := filepath.Join(dir, "botd.yaml")
	body := fmt.Sprintf("robot: %s\nhardware: %s\nwritable: [cruise, hold_ms]\nbroker: {embedded: {listen: '%s'}}\nfailsafe: {link_loss_timeout: -1s}\n",
		hostileRobot, mustAbs(t, "../../configs/sim.yaml"), addr)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startDaemonProc(t, "-config", conf, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)
	h := &hostile{t: t, p: p, url: "tcp://" + addr, addr: addr}
	h.g = newGround(t, h.url, hostileRobot)
	h.g.waitFor(t, "the robot ONLINE", func(r *groundRec) bool { return len(r.conn) > 0 && r.conn[len(r.conn)-1] == protocol.ConnOnline })
	return h
}

// alive checks the daemon process runs and answers a command.
func (h *hostile) alive(t *testing.T) {
	t.Helper()
	if h.p.cmd.ProcessState != nil {
		t.Fatalf("the daemon exited: %v", h.p.cmd.ProcessState)
	}
	if rep := h.g.send(t, hostileRobot, protocol.Command{Op: protocol.OpStateRequest}); !rep.OK {
		t.Fatalf("state.request after the attack: %+v", rep.Error)
	}
}

// load sends a mission whose main tree is root, started, replacing what runs.
func (h *hostile) load(t *testing.T, root string) (protocol.Reply, string) {
	t.Helper()
	id := uuid.NewString()
	doc := fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"attack","revision":0,"main":"main","trees":{"main":%s}}`, id, root)
	return h.g.send(t, hostileRobot, protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(doc), Start: true, Replace: true}), id
}

// ended waits for the mission id to end and returns its status and the
// error events of the run.
func (h *hostile) ended(t *testing.T, id string) (string, []string) {
	t.Helper()
	var status string
	h.g.waitFor(t, "mission "+id+" to end", func(r *groundRec) bool {
		for _, s := range r.states {
			if s.Mission != nil && s.Mission.ID == id && s.Mission.Status != protocol.RunRunning && s.Mission.Status != "" {
				status = s.Mission.Status
				return true
			}
		}
		return false
	})
	// The run's events come on their own topic, maybe after the state:
	// wait for mission.finished, which follows the node's error event.
	var errs []string
	h.g.waitFor(t, "mission "+id+" finished", func(r *groundRec) bool {
		errs = errs[:0]
		done := false
		for _, e := range r.events {
			if e.Mission != id {
				continue
			}
			if e.Level == "error" || e.Kind == "node.error" {
				errs = append(errs, e.Message)
			}
			done = done || e.Kind == "mission.finished"
		}
		return done
	})
	return status, errs
}

// raw connects a plain MQTT client (no botd code) with the given client id.
func (h *hostile) raw(t *testing.T, clientID string) (paho.Client, error) {
	t.Helper()
	o := paho.NewClientOptions().AddBroker(h.url).SetClientID(clientID).SetAutoReconnect(false).SetConnectRetry(false).
		SetCleanSession(true).SetConnectTimeout(10 * time.Second)
	c := paho.NewClient(o)
	tok := c.Connect()
	if !tok.WaitTimeout(20 * time.Second) {
		return nil, fmt.Errorf("connect as %q: no answer", clientID)
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Disconnect(50) })
	return c, nil
}

func (h *hostile) waitEStop(t *testing.T, want bool) {
	t.Helper()
	h.g.waitFor(t, fmt.Sprintf("e-stop %v in the state", want), func(r *groundRec) bool {
		s := r.lastState()
		return s.EStop == want && (s.Mode == protocol.ModeEStop) == want
	})
}

func (h *hostile) reset(t *testing.T) {
	t.Helper()
	if rep := h.g.send(t, hostileRobot, protocol.Command{Op: protocol.OpEStopReset}); !rep.OK {
		t.Fatalf("estop.reset: %+v", rep.Error)
	}
	h.waitEStop(t, false)
}

func TestHostileMissionsAndClients(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile suite runs a real daemon")
	}
	h := startHostile(t)
	topics, err := protocol.NewTopics("", hostileRobot)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a 168-byte script that repeats a repeat", func(t *testing.T) {
		rep, id := h.load(t, `{"type":"Script","params":{"code":"s := repeat(repeat(\"x\", 999999), 999999)"}}`)
		if rep.OK {
			if st, errs := h.ended(t, id); st != protocol.RunErrored || !strings.Contains(strings.Join(errs, "\n"), "budget") {
				t.Errorf("the mission ended %s with %q; want ERROR over the budget", st, errs)
			}
		}
		h.alive(t)
	})

	t.Run("a string doubled every tick", func(t *testing.T) {
		rep, id := h.load(t, `{"type":"MemSequence","children":[{"type":"Script","params":{"code":"s := 'xxxxxxxx'"}},
			{"type":"Repeater","params":{"count":-1},"children":[{"type":"Script","params":{"code":"s = s + s"}}]}]}`)
		if !rep.OK {
			t.Fatalf("a valid mission refused: %+v", rep.Error)
		}
		if st, _ := h.ended(t, id); st != protocol.RunErrored {
			t.Errorf("the doubling mission ended %s, want ERROR at the value limit", st)
		}
		h.alive(t)
	})

	t.Run("a CPU-bound expression beside a Drive", func(t *testing.T) {
		rep, id := h.load(t, `{"type":"Parallel","params":{"success":2},"children":[
			{"type":"Drive","params":{"linear":0.2}},
			{"type":"Expr","params":{"expr":"all(1..999999, {not (repeat(\"x\", 16384) matches \"^(x|xx)*y$\")})"}}]}`)
		if !rep.OK {
			t.Fatalf("refused: %+v", rep.Error)
		}
		if st, errs := h.ended(t, id); st != protocol.RunErrored || !strings.Contains(strings.Join(errs, "\n"), "budget") {
			t.Errorf("the mission ended %s with %q; want ERROR over the budget", st, errs)
		}
		h.alive(t)
	})

	t.Run("durations that would overflow", func(t *testing.T) {
		for _, ms := range []string{"9.3e12", "1e300"} {
			rep, _ := h.load(t, `{"type":"Wait","params":{"ms":`+ms+`}}`)
			if rep.OK || rep.Error.Path == "" {
				t.Errorf("Wait of %s ms: %+v, want a located refusal", ms, rep)
			}
		}
		h.alive(t)
	})

	t.Run("a refused mission whose reply would be 4 MB", func(t *testing.T) {
		params := make([]string, 20000)
		for i := range params {
			params[i] = fmt.Sprintf(`"unknown_attribute_%05d":1`, i)
		}
		rep, _ := h.load(t, `{"type":"Succeed","params":{`+strings.Join(params, ",")+`}}`)
		if rep.OK || rep.Error == nil {
			t.Fatalf("a mission with 20,000 unknown attributes was accepted")
		}
		b, _ := json.Marshal(rep)
		if len(b) > protocol.DefaultMaxPublish {
			t.Errorf("the reply is %d bytes, over the publish bound %d", len(b), protocol.DefaultMaxPublish)
		}
		h.alive(t) // and the daemon kept its own connection
	})

	t.Run("a command too large carries its id back", func(t *testing.T) {
		id := "too-large-" + uuid.NewString()[:8]
		big, _ := json.Marshal(strings.Repeat("x", 300<<10))
		rep := h.g.send(t, hostileRobot, protocol.Command{ID: id, Op: protocol.OpMissionLoad, Mission: json.RawMessage(big)})
		if rep.OK || rep.Error.Code != protocol.ErrTooLarge || rep.ID != id {
			t.Errorf("reply %+v, want TOO_LARGE with id %q", rep, id)
		}
	})

	t.Run("a client holding the e-stop connection's id", func(t *testing.T) {
		if _, err := h.raw(t, "botd-"+hostileRobot+"-estop"); err == nil {
			t.Error("the embedded broker let another client take the e-stop connection's id")
		}
		c, err := h.raw(t, "hostile-"+uuid.NewString()[:8])
		if err != nil {
			t.Fatal(err)
		}
		c.Publish(topics.EStop(), 1, false, []byte("stop!")).WaitTimeout(10 * time.Second)
		h.waitEStop(t, true)
		h.reset(t)
	})

	t.Run("a client holding the main id", func(t *testing.T) {
		if _, err := h.raw(t, "botd-"+hostileRobot); err == nil {
			t.Error("the embedded broker let another client take the robot's id")
		}
		h.alive(t)
	})

	for name, payload := range map[string][]byte{
		"an e-stop with a byte-order mark": []byte("\xef\xbb\xbf{\"id\":\"bom-1\",\"op\":\"estop\"}"),
		"an e-stop in UTF-16":              utf16le(`{"id":"u16-1","op":"estop"}`),
		"an e-stop in broken JSON":         []byte(`{"id":"broken-1","op":"estop",`),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := h.raw(t, "hostile-"+uuid.NewString()[:8])
			if err != nil {
				t.Fatal(err)
			}
			c.Publish(topics.Cmd(), 1, false, payload).WaitTimeout(10 * time.Second)
			h.waitEStop(t, true)
			h.reset(t)
		})
	}

	h.alive(t)
	if rss := rssMiB(t, h.p.cmd.Process.Pid); !raceEnabled && rss > 64 {
		t.Errorf("the daemon's resident memory is %.1f MiB after the suite, over 64 MiB", rss)
	} else {
		t.Logf("the daemon's resident memory after the suite: %.1f MiB (race detector %v)", rss, raceEnabled)
	}
}

// TestHostileRetainedCommandAtBoot: a mission.load with start left
// retained on the robot's cmd topic (by any tool) must not run when botd
// boots, after a kill -9 too: it is answered RETAINED and reported.
func TestHostileRetainedCommandAtBoot(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile suite runs a real daemon")
	}
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	h := &hostile{t: t, url: b.URL()}
	c, err := h.raw(t, "left-behind-"+uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	topics, _ := protocol.NewTopics("", hostileRobot)
	doc := fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"left","main":"m","trees":{"m":{"type":"Drive","params":{"linear":0.2}}}}`, uuid.NewString())
	cmd := fmt.Sprintf(`{"id":"left-1","op":"mission.load","start":true,"mission":%s}`, doc)
	if tok := c.Publish(topics.Cmd(), 1, true, []byte(cmd)); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publishing the retained command: %v", tok.Error())
	}
	var replies []string
	var mu sync.Mutex
	if tok := c.Subscribe(topics.Reply(), 1, func(_ paho.Client, m paho.Message) {
		mu.Lock()
		replies = append(replies, string(m.Payload()))
		mu.Unlock()
	}); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribing to the replies: %v", tok.Error())
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "botd.yaml") // no mission of its own: the robot stays idle unless told
	body := fmt.Sprintf("robot: %s\nhardware: %s\nbroker: {url: '%s'}\n", hostileRobot, mustAbs(t, "../../configs/sim.yaml"), b.URL())
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGround(t, b.URL(), hostileRobot)
	for boot := 1; boot <= 2; boot++ {
		p := startDaemonProc(t, "-config", conf, "-state-dir", filepath.Join(dir, "state"))
		g.waitFor(t, "the retained command reported", func(r *groundRec) bool {
			n := 0
			for _, e := range r.events {
				if e.Kind == "command.retained" {
					n++
				}
			}
			return n >= boot
		})
		g.waitFor(t, "the robot idle", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeIdle })
		g.mu.Lock()
		for _, s := range g.states {
			if s.Mission != nil {
				t.Errorf("boot %d: a mission was loaded: %+v", boot, s.Mission)
			}
		}
		g.mu.Unlock()
		waitUntil(t, fmt.Sprintf("boot %d: the RETAINED reply to the left-behind command", boot), func() bool {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, r := range replies {
				if strings.Contains(r, `"left-1"`) && strings.Contains(r, protocol.ErrRetained) {
					n++
				}
			}
			return n >= boot
		}, func() string {
			mu.Lock()
			defer mu.Unlock()
			return fmt.Sprintf("replies %q", replies)
		})
		if boot == 1 {
			p.cmd.Process.Kill() // a crash: the next boot meets the command again
			p.cmd.Wait()
		} else {
			p.stop(t)
		}
	}
}

// utf16le encodes s as UTF-16LE with a byte-order mark.
func utf16le(s string) []byte {
	out := []byte{0xff, 0xfe}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

// rssMiB reads a process's resident set from /proc.
func rssMiB(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
