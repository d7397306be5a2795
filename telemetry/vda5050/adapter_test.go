package vda5050

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

type harness struct {
	t      *testing.T
	a      *Adapter
	r      *fakeRunner
	c      *fakeConn
	mu     sync.Mutex
	pose   [3]float64
	header uint32
	stop   func() // stops the adapter (a daemon's shutdown)
	// noHeading: the pose source gives no heading.
	noHeading bool
}

func start(t *testing.T, cfg Config) *harness { t.Helper(); return startWith(t, cfg, nil) }

// startWith starts the adapter with options adjusted by opts (with the
// harness, for hooks that reach it).
func startWith(t *testing.T, cfg Config, opts func(*harness, *Options)) *harness {
	t.Helper()
	cfg.SetDefaults()
	if cfg.SerialNumber == "" {
		cfg.SerialNumber = "rover-1"
	}
	if cfg.Actions == nil {
		cfg.Actions = map[string]ActionConfig{"beep": {Node: map[string]any{"type": "Wait", "params": map[string]any{"ms": 10}}}}
	}
	if err := cfg.Validate("vda5050"); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, r: newFakeRunner(), c: &fakeConn{t: t, wake: make(chan struct{}, 1)}}
	o := Options{Config: cfg, Runner: h.r, Reading: h.reading, Poll: 5 * time.Millisecond, MaxPayload: 4096,
		Dial: func(o transport.Options) (transport.Conn, error) {
			h.c.opts = o
			validate(t, o.Will.Topic, o.Will.Payload)
			b := o.Birth()
			h.c.record(b.Topic, b.Retain, b.Payload)
			return h.c, nil
		}}
	if opts != nil {
		opts(h, &o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.a = a
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(h.stop)
	h.c.waitState("the first state", func(State) bool { return true })
	return h
}

func (h *harness) reading(key string) (float64, time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch key {
	case "pose.x":
		return h.pose[0], time.Now(), true
	case "pose.y":
		return h.pose[1], time.Now(), true
	case "pose.heading":
		return h.pose[2], time.Now(), !h.noHeading
	}
	return 0, time.Time{}, false
}

func (h *harness) send(kind string, msg map[string]any) {
	h.t.Helper()
	h.header++
	base := map[string]any{"headerId": h.header, "timestamp": "2026-11-26T12:00:00.000Z", "version": "2.0.0",
		"manufacturer": "botd", "serialNumber": "rover-1"}
	for k, v := range msg {
		base[k] = v
	}
	b, err := json.Marshal(base)
	if err != nil {
		h.t.Fatal(err)
	}
	h.raw(kind, b)
}

func (h *harness) raw(kind string, b []byte) {
	h.c.deliver(h.a.Topics()[kind], b)
}

// order builds an order over the points, node ids n0, n1, ...; the nodes
// from released on are horizon.
func order(id string, update int, first int, pts [][2]float64, released int) map[string]any {
	var nodes, edges []any
	for i, p := range pts {
		seq := first + 2*i
		nodes = append(nodes, map[string]any{"nodeId": fmt.Sprintf("n%d", seq/2), "sequenceId": seq, "released": i < released,
			"nodePosition": map[string]any{"x": p[0], "y": p[1], "mapId": "default", "allowedDeviationXY": 0.2}, "actions": []any{}})
		if i > 0 {
			edges = append(edges, map[string]any{"edgeId": fmt.Sprintf("e%d", seq-1), "sequenceId": seq - 1, "released": i < released,
				"startNodeId": fmt.Sprintf("n%d", (seq-2)/2), "endNodeId": fmt.Sprintf("n%d", seq/2), "maxSpeed": 0.2, "actions": []any{}})
		}
	}
	if edges == nil {
		edges = []any{}
	}
	return map[string]any{"orderId": id, "orderUpdateId": update, "nodes": nodes, "edges": edges}
}

func hasError(typ string) func(State) bool {
	return func(s State) bool {
		return slices.ContainsFunc(s.Errors, func(e Error) bool { return e.ErrorType == typ })
	}
}

func TestOrderCompletes(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("o1", 0, 0, [][2]float64{{0, 0}, {1, 0}, {1, 1}}, 3))
	s := h.c.waitState("order o1 accepted", func(s State) bool { return s.OrderID == "o1" })
	if s.LastNodeID != "n0" || len(s.NodeStates) != 2 || len(s.EdgeStates) != 2 || len(s.Errors) != 0 {
		t.Fatalf("state after acceptance: %+v", s)
	}
	if ops := h.r.ops(); !slices.Equal(ops, []string{protocol.OpMissionLoad}) {
		t.Fatalf("commands %v", ops)
	}
	// The generated mission drives to each node within its deviation, at
	// most the edge's speed.
	js, _ := json.Marshal(h.r.missions[0])
	for _, want := range []string{`"type":"MoveTo"`, `"x":1,"y":1`, `"speed":0.2`, `"tolerance":0.2`, `"id":"` + newRun(&plan{orderID: "o1"}).missionID} {
		if !strings.Contains(string(js), want) {
			t.Errorf("mission lacks %s:\n%s", want, js)
		}
	}
	h.r.progress(1, "")
	h.c.waitState("node n1 reached", func(s State) bool { return s.LastNodeID == "n1" && s.LastNodeSequenceID == 2 && len(s.NodeStates) == 1 })
	h.r.progress(2, protocol.RunSucceeded)
	h.c.waitState("order done", func(s State) bool {
		return s.LastNodeID == "n2" && len(s.NodeStates) == 0 && len(s.EdgeStates) == 0 && len(s.Errors) == 0
	})
	// A new order is taken once the last one is done.
	h.mu.Lock()
	h.pose = [3]float64{1, 1, 0}
	h.mu.Unlock()
	h.send("order", order("o2", 0, 0, [][2]float64{{1, 1}, {0, 0}}, 2))
	h.c.waitState("order o2 accepted", func(s State) bool { return s.OrderID == "o2" && len(s.NodeStates) == 1 })
}

func TestRefusals(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("run", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 2))
	h.c.waitState("order accepted", func(s State) bool { return s.OrderID == "run" })
	unknownRef := order("x", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2)
	unknownRef["edges"].([]any)[0].(map[string]any)["endNodeId"] = "nowhere"
	offMap := order("x", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2)
	offMap["nodes"].([]any)[1].(map[string]any)["nodePosition"].(map[string]any)["mapId"] = "warehouse-2"
	withAction := order("run", 1, 2, [][2]float64{{1, 0}, {2, 0}}, 2)
	withAction["nodes"].([]any)[1].(map[string]any)["actions"] = []any{map[string]any{"actionId": "a1", "actionType": "fly", "blockingType": "HARD"}}
	for _, c := range []struct {
		name, typ string
		send      func()
	}{
		{"malformed JSON", ErrValidation, func() { h.raw("order", []byte(`{"orderId": `)) }},
		{"wrong version", ErrValidation, func() { h.send("order", map[string]any{"version": "1.1.0", "orderId": "x"}) }},
		{"another serial number", ErrValidation, func() { h.send("order", map[string]any{"serialNumber": "rover-2", "orderId": "x"}) }},
		{"too large", ErrValidation, func() { h.raw("order", make([]byte, 5000)) }},
		{"an edge naming an unknown node", ErrValidation, func() { h.send("order", unknownRef) }},
		{"a node on another map", ErrNoRoute, func() { h.send("order", offMap) }},
		{"another order while one runs", ErrOrder, func() { h.send("order", order("other", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2)) }},
		{"a repeated orderUpdateId with other content", ErrOrderUpdate, func() { h.send("order", order("run", -0, 0, [][2]float64{{0, 0}, {1, 0}}, 1)) }},
		{"an update not at the last base node", ErrOrderUpdate, func() { h.send("order", order("run", 1, 0, [][2]float64{{0, 0}, {1, 0}}, 2)) }},
		{"an unknown action type", ErrOrder, func() { h.send("order", withAction) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h.a.dropped.Store(0)
			c.send()
			h.c.waitState(c.typ, func(s State) bool {
				return s.OrderID == "run" && len(s.NodeStates) == 2 && slices.ContainsFunc(s.Errors, func(e Error) bool {
					return e.ErrorType == c.typ && strings.Contains(fmt.Sprint(e), "")
				}) && len(s.Errors) > 0 && s.Errors[len(s.Errors)-1].ErrorType == c.typ
			})
		})
	}
	// Nothing refused reached the runner: the running order is undisturbed.
	if ops := h.r.ops(); !slices.Equal(ops, []string{protocol.OpMissionLoad}) {
		t.Fatalf("commands %v", ops)
	}
}

func TestOrderRefusedByBotd(t *testing.T) {
	h := start(t, Config{})
	h.r.refuse = &protocol.ReplyError{Code: protocol.ErrValidation, Message: "/trees/main: outside the geofence"}
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {50, 0}}, 2))
	s := h.c.waitState("refused", hasError(ErrNoRoute))
	if s.OrderID != "" || len(s.NodeStates) != 0 {
		t.Fatalf("a refused order shows as running: %+v", s)
	}
	e := s.Errors[len(s.Errors)-1]
	for _, ref := range []Reference{{"topic", "order"}, {"orderId", "o"}, {"orderUpdateId", "0"}} {
		if !slices.Contains(e.ErrorReferences, ref) {
			t.Errorf("error %+v lacks reference %v", e, ref)
		}
	}
	// Far from the first node: refused before botd is asked.
	h.send("order", order("far", 0, 0, [][2]float64{{5, 5}, {6, 5}}, 2))
	h.c.waitState("far refused", func(s State) bool { return strings.Contains(fmt.Sprint(s.Errors), "from the robot") })
}

func TestInstantActions(t *testing.T) {
	h := start(t, Config{})
	ia := func(key, nameKey, typ, id string) {
		h.send("instantActions", map[string]any{key: []any{map[string]any{nameKey: typ, "actionId": id, "blockingType": "HARD"}}})
	}
	status := func(id string) func(State) bool {
		return func(s State) bool {
			return slices.ContainsFunc(s.ActionStates, func(a ActionState) bool {
				return a.ActionID == id && (a.ActionStatus == ActionFinished || a.ActionStatus == ActionFailed)
			})
		}
	}
	ia("actions", "actionType", "cancelOrder", "c0")
	s := h.c.waitState("cancel without an order answered", status("c0"))
	if !hasError(ErrNoOrderToCancel)(s) {
		t.Errorf("cancelOrder without an order: no noOrderToCancel error: %+v", s.Errors)
	}
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2))
	h.c.waitState("order accepted", func(s State) bool { return s.OrderID == "o" })
	ia("instantActions", "actionType", "startPause", "p1") // vda-5050-lib's array name
	h.c.waitState("paused", func(s State) bool { return s.Paused && status("p1")(s) })
	ia("actions", "actionName", "stopPause", "p2") // the 2.0.0 schema's field name
	h.c.waitState("resumed", func(s State) bool { return !s.Paused && status("p2")(s) })
	n := len(h.c.on("/factsheet"))
	ia("actions", "actionType", "factsheetRequest", "f1")
	h.c.waitState("factsheet answered", status("f1"))
	if len(h.c.on("/factsheet")) <= n {
		t.Error("factsheetRequest: no factsheet")
	}
	ia("actions", "actionType", "stateRequest", "s1")
	h.c.waitState("state answered", status("s1"))
	ia("actions", "actionType", "dance", "d1")
	h.c.waitState("unknown refused", func(s State) bool {
		return slices.Contains(s.ActionStates, ActionState{ActionID: "d1", ActionType: "dance", ActionStatus: ActionFailed,
			ResultDescription: `"dance" is not an instant action this robot knows (` + knownInstant() + ")"})
	})
	ia("actions", "actionType", "cancelOrder", "c1")
	s = h.c.waitState("cancelled", func(s State) bool { return status("c1")(s) && len(s.NodeStates) == 0 })
	if ops := h.r.ops(); !slices.Equal(ops, []string{protocol.OpMissionLoad, protocol.OpMissionPause, protocol.OpMissionResume, protocol.OpMissionAbort}) {
		t.Fatalf("commands %v", ops)
	}
	if s.OrderID != "o" || s.LastNodeID != "n0" {
		t.Errorf("after cancel: order %q at %q", s.OrderID, s.LastNodeID)
	}
}

func TestOrderUpdateStitched(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, 2))
	s := h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	if len(s.NodeStates) != 3 || s.NodeStates[1].Released || s.EdgeStates[1].Released {
		t.Fatalf("horizon: %+v %+v", s.NodeStates, s.EdgeStates)
	}
	withAction := order("o", 1, 2, [][2]float64{{1, 0}, {2, 0}, {3, 0}}, 3)
	withAction["nodes"].([]any)[2].(map[string]any)["actions"] = []any{map[string]any{"actionId": "b1", "actionType": "beep", "blockingType": "HARD",
		"actionParameters": []any{map[string]any{"key": "tone", "value": "{not a key}"}}}}
	h.send("order", withAction)
	s = h.c.waitState("update stitched", func(s State) bool { return s.OrderUpdateID == 1 })
	if len(s.NodeStates) != 3 || !s.NodeStates[2].Released || len(s.ActionStates) != 1 || s.ActionStates[0].ActionStatus != ActionWaiting {
		t.Fatalf("after the update: %+v", s)
	}
	// The update goes into the running mission's first update slot: the
	// mission is not loaded again (which would halt the drive and start
	// the step in progress over).
	if ops := h.r.ops(); !slices.Equal(ops, []string{protocol.OpMissionLoad, protocol.OpMissionInject}) || h.r.injected[0].Slot != slotName(1) {
		t.Fatalf("the update was not injected into the running mission: %v", ops)
	}
	js := string(h.r.injected[0].Tree)
	if !strings.Contains(js, `{"key":"vda5050.param.tone","value":"{not a key}"}`) || strings.Count(js, `"MoveTo"`) != 2 ||
		!strings.Contains(js, `"value":3},"type":"Check"`) {
		t.Fatalf("injected steps:\n%s", js)
	}
	h.r.progress(2, "")
	h.c.waitState("n2", func(s State) bool { return s.LastNodeID == "n2" })
	h.r.progress(4, protocol.RunSucceeded)
	h.c.waitState("done with the action", func(s State) bool {
		return s.LastNodeID == "n3" && len(s.NodeStates) == 0 && s.ActionStates[0].ActionStatus == ActionFinished
	})
	// The same update again is a resend: nothing happens.
	h.send("order", withAction)
	h.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "stateRequest", "actionId": "x", "blockingType": "NONE"}}})
	s = h.c.waitState("after the resend", func(s State) bool { return len(s.ActionStates) == 2 })
	if len(s.Errors) != 0 || len(h.r.ops()) != 2 {
		t.Fatalf("a resend was acted on: %+v, %v", s.Errors, h.r.ops())
	}
}

// An update of a paused order is injected: nothing starts, and the
// mission goes on into it after stopPause.
func TestUpdateWhilePaused(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 2))
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	h.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "startPause", "actionId": "p", "blockingType": "HARD"}}})
	h.c.waitState("paused", func(s State) bool { return s.Paused })
	h.send("order", order("o", 1, 2, [][2]float64{{1, 0}, {2, 0}}, 2))
	s := h.c.waitState("stitched", func(s State) bool { return s.OrderUpdateID == 1 })
	if !s.Paused || len(s.Errors) != 0 || !slices.Equal(h.r.ops(), []string{protocol.OpMissionLoad, protocol.OpMissionPause, protocol.OpMissionInject}) {
		t.Fatalf("an update while paused: %+v, %v", s, h.r.ops())
	}
}

// An update that comes after the order's mission ended (the robot stands
// at the last base node) runs in a new revision of the mission; so does
// one that the mission's end overtakes on its way to the runner.
func TestUpdateAfterTheMissionEnded(t *testing.T) {
	for _, race := range []bool{false, true} {
		t.Run(fmt.Sprintf("race=%v", race), func(t *testing.T) {
			h := start(t, Config{})
			h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 2))
			h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
			if race {
				h.r.mu.Lock()
				h.r.endOnInject = 1
				h.r.mu.Unlock()
			} else {
				h.r.progress(1, protocol.RunSucceeded)
				h.c.waitState("at n1", func(s State) bool { return s.LastNodeID == "n1" && len(s.NodeStates) == 1 })
			}
			h.send("order", order("o", 1, 2, [][2]float64{{1, 0}, {2, 0}}, 2))
			s := h.c.waitState("stitched", func(s State) bool { return s.OrderUpdateID == 1 })
			ops := h.r.ops()
			if len(s.Errors) != 0 || ops[len(ops)-1] != protocol.OpMissionLoad || h.r.cmds[len(ops)-1].Replace || len(h.r.missions) != 2 {
				t.Fatalf("%+v, %v", s.Errors, ops)
			}
			js, _ := json.Marshal(h.r.missions[1])
			if strings.Count(string(js), `"MoveTo"`) != 1 || !strings.Contains(string(js), `"revision":1`) || s.LastNodeID != "n1" {
				t.Fatalf("the second revision runs more than what is left (at %s):\n%s", s.LastNodeID, js)
			}
		})
	}
}

// A string parameter shaped as a blackboard reference cannot go into an
// injected update (a Set node would read it as one): the update is
// refused, the running order goes on.
func TestUpdateWithReferenceShapedParameter(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 2))
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	u := order("o", 1, 2, [][2]float64{{1, 0}, {2, 0}}, 2)
	u["nodes"].([]any)[1].(map[string]any)["actions"] = []any{map[string]any{"actionId": "b1", "actionType": "beep", "blockingType": "HARD",
		"actionParameters": []any{map[string]any{"key": "tone", "value": "{tone}"}}}}
	h.send("order", u)
	s := h.c.waitState("refused", hasError(ErrValidation))
	if s.OrderUpdateID != 0 || len(h.r.ops()) != 1 {
		t.Fatalf("%+v, %v", s, h.r.ops())
	}
}

// NONE actions run alongside the drive (a Parallel with the MoveTo);
// SOFT and HARD ones alone, with the robot stopped.
func TestActionsByBlockingType(t *testing.T) {
	h := start(t, Config{})
	o := order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 3)
	beep := func(id, blocking string) map[string]any {
		return map[string]any{"actionId": id, "actionType": "beep", "blockingType": blocking}
	}
	o["edges"].([]any)[0].(map[string]any)["actions"] = []any{beep("edge-none", "NONE")}
	o["nodes"].([]any)[1].(map[string]any)["actions"] = []any{beep("node-hard", "HARD"), beep("node-none", "NONE")}
	o["nodes"].([]any)[2].(map[string]any)["actions"] = []any{beep("last-none", "NONE")}
	h.send("order", o)
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" && len(s.ActionStates) == 4 })
	js, _ := json.Marshal(h.r.missions[0]["trees"])
	// Steps: drive to n1 with edge-none, node-hard, drive to n2 with
	// node-none, last-none (no drive after it).
	steps := h.r.missions[0]["trees"].(map[string]any)["main"].(map[string]any)["children"].([]any)
	var names []string
	for _, st := range steps {
		if st.(map[string]any)["type"] != "DynamicSubTree" {
			names = append(names, st.(map[string]any)["name"].(string))
		}
	}
	want := []string{"node n1 (sequence 2)", "action node-hard (beep)", "node n2 (sequence 4)", "action last-none (beep)"}
	if !slices.Equal(names, want) || strings.Count(string(js), `"Parallel"`) != 2 {
		t.Fatalf("steps %q, want %q\n%s", names, want, js)
	}
	h.r.mu.Lock()
	h.r.bb[keyRunning] = 1
	h.r.mu.Unlock()
	status := func(s State) map[string]string {
		m := map[string]string{}
		for _, a := range s.ActionStates {
			m[a.ActionID] = a.ActionStatus
		}
		return m
	}
	h.c.waitState("edge-none running while driving", func(s State) bool {
		st := status(s)
		return st["edge-none"] == ActionRunning && st["node-hard"] == ActionWaiting
	})
	h.r.progress(1, "")
	h.c.waitState("edge-none finished at n1", func(s State) bool {
		return status(s)["edge-none"] == ActionFinished && s.LastNodeID == "n1"
	})
}

func TestMissionFailureReported(t *testing.T) {
	h := start(t, Config{})
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2))
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	h.r.progress(0, protocol.RunAborted)
	s := h.c.waitState("failure", hasError(ErrOrderExecution))
	if s.Errors[0].ErrorReferences[1] != (Reference{"orderId", "o"}) {
		t.Fatalf("%+v", s.Errors)
	}
}

func TestConnectionAndHeartbeat(t *testing.T) {
	h := start(t, Config{StateEvery: time.Second})
	h.c.waitState("a heartbeat", func(s State) bool { return s.HeaderID >= 1 })
	conns := h.c.on("/connection")
	var c Connection
	_ = json.Unmarshal(conns[0].payload, &c)
	if c.ConnectionState != "ONLINE" || !conns[0].retain || !h.c.opts.Will.Retain || !strings.Contains(string(h.c.opts.Will.Payload), "CONNECTIONBROKEN") {
		t.Fatalf("connection %+v, will %+v", c, h.c.opts.Will)
	}
	var last uint32
	for i, m := range h.c.on("/state") {
		var s State
		_ = json.Unmarshal(m.payload, &s)
		if i > 0 && s.HeaderID != last+1 {
			t.Errorf("state headerId %d after %d", s.HeaderID, last)
		}
		last = s.HeaderID
		if _, err := time.Parse(time.RFC3339Nano, s.Timestamp); err != nil || !strings.HasSuffix(s.Timestamp, "Z") {
			t.Errorf("timestamp %q", s.Timestamp)
		}
	}
}

// The order's progress outlives a restart of the daemon: the state names
// the order, its last node and what is left; the order that was running
// is reported failed (it stopped with the daemon), and an update from
// its last base node goes on from the last node reached.
func TestProgressAfterRestart(t *testing.T) {
	cfg := Config{StateFile: filepath.Join(t.TempDir(), "vda5050.json")}
	h := start(t, cfg)
	o := order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, 3)
	o["nodes"].([]any)[2].(map[string]any)["actions"] = []any{map[string]any{"actionId": "b1", "actionType": "beep", "blockingType": "HARD"}}
	h.send("order", o)
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	h.r.progress(1, "")
	h.c.waitState("at n1", func(s State) bool { return s.LastNodeID == "n1" })
	h.stop()

	h2 := start(t, cfg)
	s := h2.c.waitState("the order restored", func(s State) bool { return s.OrderID == "o" })
	if s.LastNodeID != "n1" || s.LastNodeSequenceID != 2 || len(s.NodeStates) != 2 || len(s.EdgeStates) != 2 ||
		s.ActionStates[0].ActionStatus != ActionFailed || !hasError(ErrOrderExecution)(s) {
		t.Fatalf("after the restart: %+v", s)
	}
	// An update from the last base node n2 goes on from n1: the drive to
	// n2, the action, the drive to n3.
	h2.send("order", order("o", 1, 4, [][2]float64{{2, 0}, {3, 0}}, 2))
	s = h2.c.waitState("updated", func(s State) bool { return s.OrderUpdateID == 1 })
	if len(s.Errors) != 0 || s.ActionStates[0].ActionStatus != ActionWaiting || len(h2.r.missions) != 1 || h2.r.cmds[0].Replace {
		t.Fatalf("the update after the restart: %+v, %v", s.Errors, h2.r.ops())
	}
	js, _ := json.Marshal(h2.r.missions[0])
	if strings.Count(string(js), `"MoveTo"`) != 2 || !strings.Contains(string(js), `"name":"action b1 (beep)"`) {
		t.Fatalf("the mission after the restart:\n%s", js)
	}
	// A damaged file is left aside: the adapter starts without an order.
	h2.stop()
	if err := os.WriteFile(cfg.StateFile, []byte(`{"v":1,"orderId":"o","nodes":[{"nodeId":"x"}],"edges":[],"base":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h3 := start(t, cfg)
	h3.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "stateRequest", "actionId": "x", "blockingType": "NONE"}}})
	if s := h3.c.waitState("answered", func(s State) bool { return len(s.ActionStates) == 1 }); s.OrderID != "" {
		t.Fatalf("a damaged file was used: %+v", s)
	}
}

// agvPosition's theta is the pose's heading in [-pi, pi]; without a
// heading the position is not initialized; a pose that is not a number
// leaves agvPosition out (and the state still goes out).
func TestAgvPositionTheta(t *testing.T) {
	h := start(t, Config{})
	setPose := func(x, y, th float64, noHeading bool) {
		h.mu.Lock()
		h.pose, h.noHeading = [3]float64{x, y, th}, noHeading
		h.mu.Unlock()
	}
	ask := func(id string) State {
		h.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "stateRequest", "actionId": id, "blockingType": "NONE"}}})
		return h.c.waitState(id, func(s State) bool {
			return len(s.ActionStates) > 0 && s.ActionStates[len(s.ActionStates)-1].ActionID == id
		})
	}
	for i, c := range []struct{ heading, theta float64 }{{3 * math.Pi / 2, -math.Pi / 2}, {7, 7 - 2*math.Pi}, {-math.Pi / 4, -math.Pi / 4}} {
		setPose(1, 2, c.heading, false)
		p := ask(fmt.Sprintf("h%d", i)).AgvPosition
		if p == nil || !p.PositionInitialized || math.Abs(p.Theta-c.theta) > 1e-9 || p.X != 1 || p.Y != 2 {
			t.Errorf("heading %v: agvPosition %+v, want theta %v", c.heading, p, c.theta)
		}
	}
	setPose(1, 2, 0, true)
	if p := ask("no-heading").AgvPosition; p == nil || p.PositionInitialized || p.Theta != 0 {
		t.Errorf("without a heading: %+v", p)
	}
	setPose(math.NaN(), 2, 1, false)
	if p := ask("nan").AgvPosition; p != nil {
		t.Errorf("a pose that is not a number: %+v", p)
	}
}

// SOFT actions (and NONE ones with no drive after them) listed one after
// another run at the same time with the robot stopped; a HARD action
// runs alone; NONE actions of a node with a drive after it go with the
// drive.
func TestSoftActionsTogether(t *testing.T) {
	h := start(t, Config{})
	o := order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {2, 0}}, 3)
	act := func(id, blocking string) map[string]any {
		return map[string]any{"actionId": id, "actionType": "beep", "blockingType": blocking}
	}
	o["nodes"].([]any)[1].(map[string]any)["actions"] = []any{act("a", "SOFT"), act("b", "NONE"), act("c", "SOFT")}
	o["nodes"].([]any)[2].(map[string]any)["actions"] = []any{act("s1", "SOFT"), act("s2", "NONE"), act("h", "HARD"), act("s3", "SOFT")}
	h.send("order", o)
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	var names []string
	for _, st := range h.r.missions[0]["trees"].(map[string]any)["main"].(map[string]any)["children"].([]any) {
		if st.(map[string]any)["type"] != "DynamicSubTree" {
			names = append(names, st.(map[string]any)["name"].(string))
		}
	}
	want := []string{"node n1 (sequence 2)", "action a (beep) with c (beep)", "node n2 (sequence 4)",
		"action s1 (beep) with s2 (beep)", "action h (beep)", "action s3 (beep)"}
	if !slices.Equal(names, want) {
		t.Fatalf("steps %q, want %q", names, want)
	}
	h.r.mu.Lock()
	h.r.bb[keyDone], h.r.bb[keyRunning] = 3, 4
	h.r.mu.Unlock()
	h.c.waitState("s1 and s2 running together", func(s State) bool {
		st := map[string]string{}
		for _, a := range s.ActionStates {
			st[a.ActionID] = a.ActionStatus
		}
		return st["s1"] == ActionRunning && st["s2"] == ActionRunning && st["h"] == ActionWaiting && st["a"] == ActionFinished && st["c"] == ActionFinished
	})
}

// An order updated again and again (a master control's rolling horizon)
// stays bounded: the nodes passed and the steps done are dropped, the
// actions left behind are reported up to a bound, and each update's
// steps go on counting from where the mission is.
func TestRollingUpdatesStayBounded(t *testing.T) {
	h := start(t, Config{StateFile: filepath.Join(t.TempDir(), "vda5050.json")})
	h.send("order", order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2))
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	// total counts the loaded mission's steps; the robot is always at the
	// last step (the newest update's action) when the next update comes.
	total, injected := 1, 0
	const updates = 3 * updateSlots / 2
	for u := 1; u <= updates; u++ {
		o := order("o", u, 2*u, [][2]float64{{float64(u), 0}, {float64(u + 1), 0}}, 2)
		o["nodes"].([]any)[1].(map[string]any)["actions"] = []any{map[string]any{"actionId": fmt.Sprintf("a%d", u), "actionType": "beep", "blockingType": "HARD"}}
		h.send("order", o)
		s := h.c.waitState(fmt.Sprintf("update %d", u), func(s State) bool { return s.OrderUpdateID == int64(u) })
		if len(s.Errors) != 0 {
			t.Fatalf("update %d: %+v", u, s.Errors)
		}
		if u == updateSlots+1 {
			// The slots are used up: the update waits until the mission
			// ends at its last step; then a new revision of the mission
			// runs it (nothing was halted or started again).
			if ops := h.r.ops(); len(h.r.missions) != 1 || len(h.r.injected) != injected {
				t.Fatalf("update %d did not wait: %v", u, ops)
			}
			h.r.progress(total, protocol.RunSucceeded)
			h.c.waitState("the rest loaded", func(State) bool {
				h.r.mu.Lock()
				defer h.r.mu.Unlock()
				return len(h.r.missions) == 2
			})
			if c := h.r.cmds[len(h.r.cmds)-1]; c.Op != protocol.OpMissionLoad || c.Replace {
				t.Fatalf("the rest: %+v", c)
			}
			total = 2
		} else {
			if len(h.r.injected) != injected+1 {
				t.Fatalf("update %d was not injected: %v", u, h.r.ops())
			}
			js := string(h.r.injected[injected].Tree)
			injected++
			if !strings.Contains(js, fmt.Sprintf(`"value":%d},"type":"Check"`, total+1)) || !strings.Contains(js, fmt.Sprintf(`"value":%d},"type":"Check"`, total+2)) {
				t.Fatalf("update %d does not count its steps from %d: %s", u, total+1, js)
			}
			total += 2
		}
		h.r.progress(total-1, "")
		h.c.waitState(fmt.Sprintf("at n%d", u+1), func(s State) bool { return s.LastNodeID == fmt.Sprintf("n%d", u+1) })
	}
	// At most maxKeptActions left behind, plus the one running and the
	// newest update's.
	states := h.c.on("/state")
	var s State
	if err := json.Unmarshal(states[len(states)-1].payload, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.ActionStates) > maxKeptActions+2 || len(s.NodeStates) != 0 {
		t.Errorf("%d action states, %d node states after %d updates", len(s.ActionStates), len(s.NodeStates), updates)
	}
	h.stop()
	b, err := os.ReadFile(h.a.cfg.StateFile)
	if err != nil {
		t.Fatal(err)
	}
	var saved savedRun
	if err := json.Unmarshal(b, &saved); err != nil || len(saved.Nodes) > 2 || len(saved.Steps) > 3 || len(saved.Actions) > maxKeptActions+2 {
		t.Errorf("saved: %d nodes, %d steps, %d actions (%v)", len(saved.Nodes), len(saved.Steps), len(saved.Actions), err)
	}
}

// headerIds keep increasing per topic across restarts of the daemon,
// also when it stopped without saving (a crash): the ids are reserved in
// the state file before they are sent.
func TestHeaderIDsAfterRestart(t *testing.T) {
	cfg := Config{StateFile: filepath.Join(t.TempDir(), "vda5050.json")}
	maxID := func(h *harness, suffix string) (uint32, bool) {
		var top uint32
		ms := h.c.on(suffix)
		for _, m := range ms {
			var hd Header
			if err := json.Unmarshal(m.payload, &hd); err != nil {
				t.Fatal(err)
			}
			top = max(top, hd.HeaderID)
		}
		return top, len(ms) > 0
	}
	firstID := func(h *harness, suffix string) uint32 {
		ms := h.c.on(suffix)
		if len(ms) == 0 {
			t.Fatalf("nothing on %s", suffix)
		}
		var hd Header
		_ = json.Unmarshal(ms[0].payload, &hd)
		return hd.HeaderID
	}
	stateRequests := func(h *harness, n int) {
		for i := range n {
			id := fmt.Sprintf("s%d", i)
			h.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "stateRequest", "actionId": id, "blockingType": "NONE"}}})
			h.c.waitState("answered", func(s State) bool {
				return slices.ContainsFunc(s.ActionStates, func(a ActionState) bool { return a.ActionID == id })
			})
		}
	}
	h := start(t, cfg)
	stateRequests(h, 3)
	h.stop()
	crashed, err := os.ReadFile(cfg.StateFile) // as the file was while it ran
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var check = func(before, after *harness) {
		t.Helper()
		for _, topic := range []string{"/state", "/connection", "/factsheet"} {
			last, ok := maxID(before, topic)
			if !ok {
				t.Fatalf("nothing on %s before the restart", topic)
			}
			// The will is the first connection message of a run.
			first := firstID(after, topic)
			if topic == "/connection" {
				var will Header
				_ = json.Unmarshal(after.c.opts.Will.Payload, &will)
				first = min(first, will.HeaderID)
				var oldWill Header
				_ = json.Unmarshal(before.c.opts.Will.Payload, &oldWill)
				last = max(last, oldWill.HeaderID)
			}
			if first <= last {
				t.Errorf("%s: headerId %d after the restart, %d before", topic, first, last)
			}
		}
	}
	h2 := start(t, cfg)
	stateRequests(h2, 1)
	if s := h2.c.waitState("any", func(State) bool { return true }); s.OrderID != "" {
		t.Fatalf("an order from nowhere: %+v", s)
	}
	check(h, h2)
	// A crash: the daemon stops without its last save.
	if err := os.WriteFile(cfg.StateFile, crashed, 0o600); err != nil {
		t.Fatal(err)
	}
	h3 := start(t, cfg)
	stateRequests(h3, 1)
	check(h, h3)
}
