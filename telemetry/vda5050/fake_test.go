package vda5050

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// fakeRunner stands in for botd's runner: it records the commands and
// lets the test say what the mission did.
type fakeRunner struct {
	mu       sync.Mutex
	cmds     []protocol.Command
	state    protocol.State
	bb       map[string]float64
	refuse   *protocol.ReplyError // the next mission.load is refused with this
	missions []map[string]any
	injected []protocol.Command
	// endOnInject: the mission ends (SUCCESS, done steps) just before the
	// next injection reaches it, which is then refused.
	endOnInject int
}

func newFakeRunner() *fakeRunner {
	return &fakeRunner{state: protocol.State{Mode: protocol.ModeIdle, Battery: &protocol.BatteryState{Voltage: 12, Percent: 80}}, bb: map[string]float64{}}
}

func (f *fakeRunner) Do(_ context.Context, c protocol.Command) protocol.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, c)
	switch c.Op {
	case protocol.OpMissionLoad:
		if f.refuse != nil {
			e := f.refuse
			f.refuse = nil
			return protocol.Reply{ID: c.ID, Error: e}
		}
		var m map[string]any
		if err := json.Unmarshal(c.Mission, &m); err != nil {
			return protocol.Reply{ID: c.ID, Error: &protocol.ReplyError{Code: protocol.ErrInvalidJSON, Message: err.Error()}}
		}
		f.missions = append(f.missions, m)
		f.state.Mission = &protocol.MissionState{ID: m["id"].(string), Name: m["name"].(string), Revision: int64(m["revision"].(float64)), Status: protocol.RunRunning}
		f.state.Mode = protocol.ModeRunning
		f.bb = map[string]float64{}
		for k, v := range m["blackboard"].(map[string]any) {
			if n, ok := v.(float64); ok {
				f.bb[k] = n
			}
		}
	case protocol.OpMissionInject:
		if f.endOnInject > 0 && f.state.Mission != nil {
			f.bb[keyDone] = float64(f.endOnInject)
			f.state.Mission.Status, f.state.Mode = protocol.RunSucceeded, protocol.ModeIdle
			f.endOnInject = 0
		}
		if f.state.Mission == nil || (f.state.Mission.Status != protocol.RunRunning && f.state.Mission.Status != protocol.RunPaused) {
			return protocol.Reply{ID: c.ID, Error: &protocol.ReplyError{Code: protocol.ErrNoMission, Message: "the mission has ended"}}
		}
		f.injected = append(f.injected, c)
	case protocol.OpMissionPause:
		f.state.Mode, f.state.Mission.Status = protocol.ModePaused, protocol.RunPaused
	case protocol.OpMissionResume:
		f.state.Mode, f.state.Mission.Status = protocol.ModeRunning, protocol.RunRunning
	case protocol.OpMissionAbort:
		f.state.Mode, f.state.Mission.Status = protocol.ModeIdle, protocol.RunAborted
	}
	return protocol.Reply{ID: c.ID, OK: true}
}

func (f *fakeRunner) State() protocol.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.state
	if s.Mission != nil {
		m := *s.Mission
		s.Mission = &m
	}
	return s
}

func (f *fakeRunner) Blackboard() []protocol.BlackboardValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []protocol.BlackboardValue
	for k, v := range f.bb {
		out = append(out, protocol.BlackboardValue{Key: k, Value: v})
	}
	return out
}

// progress says the mission did n steps (and finished, with status).
func (f *fakeRunner) progress(n int, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bb[keyDone] = float64(n)
	if status != "" {
		f.state.Mission.Status = status
		f.state.Mode = protocol.ModeIdle
	}
}

func (f *fakeRunner) ops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.cmds {
		out = append(out, c.Op)
	}
	return out
}

// fakeConn is the adapter's MQTT connection: every message it publishes
// is validated against the official schema of its topic.
type fakeConn struct {
	t    testing.TB
	opts transport.Options
	mu   sync.Mutex
	sent []sentMsg
	wake chan struct{}
}

type sentMsg struct {
	topic   string
	retain  bool
	payload []byte
}

func (c *fakeConn) record(topic string, retain bool, payload []byte) {
	validate(c.t, topic, payload)
	c.mu.Lock()
	c.sent = append(c.sent, sentMsg{topic, retain, payload})
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *fakeConn) Publish(topic string, _ byte, retain bool, payload []byte) error {
	c.record(topic, retain, payload)
	return nil
}

func (c *fakeConn) PublishAsync(topic string, _ byte, retain bool, payload []byte) (transport.Delivery, error) {
	c.record(topic, retain, payload)
	return nil, nil
}
func (c *fakeConn) Subscribe(string, byte, transport.Handler) error { return nil }
func (c *fakeConn) Unsubscribe(string) error                        { return nil }
func (c *fakeConn) IsUp() bool                                      { return true }
func (c *fakeConn) LinkChanged() <-chan struct{}                    { return nil }
func (c *fakeConn) Connects() uint64                                { return 1 }
func (c *fakeConn) Close() error {
	m := c.opts.Goodbye()
	c.record(m.Topic, m.Retain, m.Payload)
	return nil
}

// deliver hands a message to the adapter as the broker would.
func (c *fakeConn) deliver(topic string, payload []byte) {
	for _, s := range c.opts.Subscriptions {
		if s.Filter == topic {
			s.Handler(topic, payload)
			return
		}
	}
	c.t.Fatalf("nothing subscribed to %s", topic)
}

// waitState waits for a state message that satisfies cond, and returns it.
func (c *fakeConn) waitState(what string, cond func(State) bool) State {
	c.t.Helper()
	deadline := time.After(5 * time.Second)
	seen := 0
	for {
		c.mu.Lock()
		msgs := c.sent[seen:]
		seen = len(c.sent)
		c.mu.Unlock()
		for _, m := range msgs {
			if len(m.topic) < 6 || m.topic[len(m.topic)-6:] != "/state" {
				continue
			}
			var s State
			if err := json.Unmarshal(m.payload, &s); err != nil {
				c.t.Fatal(err)
			}
			if cond(s) {
				return s
			}
		}
		select {
		case <-c.wake:
		case <-deadline:
			c.t.Fatalf("no state where %s", what)
		}
	}
}

func (c *fakeConn) on(suffix string) []sentMsg {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sentMsg
	for _, m := range c.sent {
		if len(m.topic) >= len(suffix) && m.topic[len(m.topic)-len(suffix):] == suffix {
			out = append(out, m)
		}
	}
	return out
}
