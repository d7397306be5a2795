package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/botd-project/botd/internal/mqtttest"
)

// vdaNodeDir holds the master control of the test (vda-5050-lib, from npm).
var vdaNodeDir = filepath.Join("..", "..", "telemetry", "vda5050", "testdata", "node")

// A master control that knows only VDA 5050 (vda-5050-lib 1.4.0's
// MasterController, through Debian's mosquitto) drives the simulated
// rover: an order that completes, a refused order, a pause and a resume,
// a cancelOrder, an order update stitched onto a running order, a pause
// and a resume on an update's own edge. Every
// message botd sends on a VDA 5050 topic validates against the official
// 2.0.0 schemas, and the order shows in botd's own protocol as a mission.
func TestMasterControl(t *testing.T) {
	nodeBin := masterControl(t)
	addr := mqtttest.StartMosquitto(t)
	url := "tcp://" + addr
	dir := t.TempDir()
	hw, _ := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	conf := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(conf, []byte(`robot: rover-v
hardware: `+hw+`
broker: {url: "`+url+`"}
failsafe: {require_gcs: false}
vda5050:
  manufacturer: botd-test
  map_id: yard
  visualization_hz: 5
  actions:
    beep:
      description: waits ms milliseconds
      node: {type: Wait, params: {ms: "{vda5050.param.ms}"}}
      prepare: {type: Wait, name: prepare, params: {ms: 300}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := mqtttest.NewRecorder(t, url, "uagv/#", "botd/v1/rover-v/state", "botd/v1/rover-v/events")
	p := startDaemonProc(t, "-config", conf, "-state-dir", filepath.Join(dir, "state"))
	mqtttest.Eventually(t, "the VDA 5050 connection ONLINE", func() bool {
		for _, m := range rec.On("uagv/v2/botd-test/rover-v/connection") {
			if strings.Contains(string(m.Payload), `"ONLINE"`) {
				return true
			}
		}
		return false
	})

	runMaster(t, nodeBin, []string{"BROKER=mqtt://" + addr, "INTERFACE=uagv", "MANUFACTURER=botd-test", "SERIAL=rover-v", "MAP=yard"},
		"refused", "complete", "pause-resume", "cancel", "update", "update-pause", "init-position")
	// botd's own protocol saw the orders as missions.
	sawMission := false
	for _, m := range rec.On("botd/v1/rover-v/state") {
		sawMission = sawMission || strings.Contains(string(m.Payload), `"name":"vda5050 order `)
	}
	if !sawMission {
		t.Error("botd's own state never showed an order's mission")
	}
	// The update went into the running mission: it was never replaced
	// (which halts the drive and starts the step in progress over).
	injected := false
	for _, m := range rec.On("botd/v1/rover-v/events") {
		var e struct{ Kind, Message string }
		_ = json.Unmarshal(m.Payload, &e)
		injected = injected || e.Kind == "mission.injected"
		if strings.Contains(e.Message, "replaced by mission") {
			t.Errorf("an order's mission was replaced: %s", m.Payload)
		}
	}
	if !injected {
		t.Error("the order update was not injected into the running mission")
	}
	// botd's own e-stop reaches the VDA 5050 state as a remote e-stop.
	pub := mqtttest.NewPublisher(t, url)
	if err := pub.Publish("botd/v1/rover-v/estop", 1, false, []byte(`{"id":"e1","op":"estop"}`)); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "safetyState.eStop REMOTE", func() bool {
		st := rec.On("uagv/v2/botd-test/rover-v/state")
		return len(st) > 0 && strings.Contains(string(st[len(st)-1].Payload), `"safetyState":{"eStop":"REMOTE"`)
	})
	p.stop(t)
	mqtttest.Eventually(t, "OFFLINE", func() bool {
		c := rec.On("uagv/v2/botd-test/rover-v/connection")
		return len(c) > 0 && strings.Contains(string(c[len(c)-1].Payload), `"OFFLINE"`)
	})
	counts := validateVDA(t, "uagv/v2/botd-test/rover-v/", rec.All())
	t.Logf("messages validated against the 2.0.0 schemas: %v", counts)
	for _, topic := range []string{"state", "visualization", "connection", "factsheet"} {
		if counts[topic] == 0 {
			t.Errorf("no %s message", topic)
		}
	}
}

// runMaster runs the master control (master.js) with env and reports
// each of its scenario lines; every scenario named must pass.
func runMaster(t *testing.T, nodeBin string, env []string, scenarios ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, "master.js")
	cmd.Dir = vdaNodeDir
	cmd.Env = append(append(os.Environ(), env...), "SCENARIOS="+strings.Join(scenarios, ","))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			Scenario string `json:"scenario"`
			OK       bool   `json:"ok"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		seen[r.Scenario] = r.OK
		if r.OK {
			t.Logf("%s", sc.Bytes())
		} else {
			t.Errorf("%s", sc.Bytes())
		}
	}
	if err != nil {
		t.Errorf("master control: %v\n%s", err, stderr.String())
	}
	for _, s := range scenarios {
		if !seen[s] {
			t.Errorf("scenario %s did not pass", s)
		}
	}
}

// masterControl returns node's path, or skips the test when node or
// vda-5050-lib is missing.
func masterControl(t *testing.T) string {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(vdaNodeDir, "node_modules", "vda-5050-lib")); err != nil {
		t.Skipf("vda-5050-lib is not installed: run npm ci in %s (.ci/run does)", vdaNodeDir)
	}
	return nodeBin
}

// validateVDA validates every message the robot sent on a VDA 5050 topic
// against the official 2.0.0 schema of the topic; it returns the counts.
func validateVDA(t *testing.T, prefix string, msgs []mqtttest.Msg) map[string]int {
	t.Helper()
	dir := filepath.Join("..", "..", "telemetry", "vda5050", "testdata", "schemas-2.0.0")
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schemas := map[string]*jsonschema.Schema{}
	for topic, file := range map[string]string{"state": "state.schema", "visualization": "visualization.schema",
		"connection": "connection.schema", "factsheet": "factsheet.json", "order": "order.schema", "instantActions": "instantActions.schema"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("file:///"+file, doc); err != nil {
			t.Fatal(err)
		}
		schemas[topic] = c.MustCompile("file:///" + file)
	}
	counts := map[string]int{}
	for _, m := range msgs {
		if !strings.HasPrefix(m.Topic, prefix) || len(m.Payload) == 0 {
			continue
		}
		kind := m.Topic[strings.LastIndexByte(m.Topic, '/')+1:]
		if kind == "order" || kind == "instantActions" {
			continue // the master control's
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(m.Payload))
		if err != nil {
			t.Errorf("%s: %v", m.Topic, err)
			continue
		}
		if err := schemas[kind].Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", m.Topic, err, m.Payload)
		}
		counts[kind]++
	}
	return counts
}

// check-config covers the vda5050 section: typos with their did-you-mean,
// values out of range, an action without a node, signed missions.
func TestCheckConfigVDA5050(t *testing.T) {
	dir := t.TempDir()
	f := writeBadConfig(t, dir, "vda", "robot: r\nhardware: HW\nsecurity: {require_signed_missions: true, public_keys: []}\n"+
		"vda5050:\n  manufactrer: acme\n  serial_number: 'a/b'\n  speed: -1\n  state_every: 2m\n"+
		"  actions:\n    lift: {nod: {type: Wait}}\n    cancelOrder: {node: {type: Stop}}\n")
	code, out, _ := runCmd(t, "check-config", f)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, w := range []string{
		`vda5050.manufactrer: unknown field (did you mean manufacturer?)`,
		`vda5050.serial_number: "a/b": want letters, digits and _ . : -`,
		`vda5050.speed: -1 is outside [0.01, 100]`,
		`vda5050.state_every: 2m0s is outside [1s, 30s]`,
		`vda5050.actions.lift.nod: unknown field (known: description, node, prepare)`,
		`vda5050.actions.lift.node: want a mission node with a type`,
		`vda5050.actions.cancelOrder: cancelOrder is a predefined instant action`,
		`vda5050: a VDA 5050 order carries no signature`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("check-config:\n%s", out)
	}
	ok := writeBadConfig(t, dir, "vda-ok", "robot: r\nhardware: HW\nvda5050: {manufacturer: acme, map_id: yard}\n")
	if code, out, _ := runCmd(t, "check-config", ok); code != 0 {
		t.Errorf("a good vda5050 section: exit %d\n%s", code, out)
	}
}

// The order's progress outlives a restart of the daemon: after it, the
// VDA 5050 state still names the order, the last node reached and the
// nodes left, and says the order stopped (orderExecutionError), so a
// master control knows where the robot is in its order.
func TestVDA5050ProgressAfterRestart(t *testing.T) {
	addr := mqtttest.StartMosquitto(t)
	url := "tcp://" + addr
	dir := t.TempDir()
	hw, _ := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	conf := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(conf, []byte(`robot: rover-v
hardware: `+hw+`
broker: {url: "`+url+`"}
failsafe: {require_gcs: false}
vda5050: {manufacturer: botd-test, map_id: yard, state_every: 1s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	const prefix = "uagv/v2/botd-test/rover-v/"
	rec := mqtttest.NewRecorder(t, url, "uagv/#")
	last := func() (s struct {
		OrderID     string `json:"orderId"`
		LastNodeID  string `json:"lastNodeId"`
		NodeStates  []struct{ NodeID string }
		Errors      []struct{ ErrorType string }
		AgvPosition *struct{ X, Y float64 }
	}) {
		if st := rec.On(prefix + "state"); len(st) > 0 {
			_ = json.Unmarshal(st[len(st)-1].Payload, &s)
		}
		return s
	}
	state := filepath.Join(dir, "state")
	p := startDaemonProc(t, "-config", conf, "-state-dir", state)
	mqtttest.Eventually(t, "a state with a position", func() bool { return last().AgvPosition != nil })
	pos := last().AgvPosition
	node := func(id string, seq int, x, y float64) string {
		return fmt.Sprintf(`{"nodeId":%q,"sequenceId":%d,"released":true,"actions":[],"nodePosition":{"x":%v,"y":%v,"mapId":"yard","allowedDeviationXY":0.15}}`, id, seq, x, y)
	}
	edge := func(seq int, from, to string) string {
		return fmt.Sprintf(`{"edgeId":"%s-%s","sequenceId":%d,"released":true,"startNodeId":%q,"endNodeId":%q,"actions":[]}`, from, to, seq, from, to)
	}
	order := `{"headerId":1,"timestamp":"2026-11-26T12:00:00.000Z","version":"2.0.0","manufacturer":"botd-test","serialNumber":"rover-v",` +
		`"orderId":"restart","orderUpdateId":0,"nodes":[` + node("s0", 0, pos.X, pos.Y) + "," + node("s1", 2, pos.X+0.4, pos.Y) + "," +
		node("s2", 4, pos.X+0.4, pos.Y+3) + `],"edges":[` + edge(1, "s0", "s1") + "," + edge(3, "s1", "s2") + `]}`
	pub := mqtttest.NewPublisher(t, url)
	if err := pub.Publish(prefix+"order", 0, false, []byte(order)); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "node s1 reached", func() bool { return last().LastNodeID == "s1" })
	// Driving north (+y) the robot faces theta = pi/2 (counterclockwise
	// from the map's x axis, as VDA 5050 has it).
	var theta []float64
	mqtttest.Eventually(t, "agvPosition theta north while driving north", func() bool {
		v := rec.On(prefix + "visualization")
		var m struct{ AgvPosition *struct{ Theta float64 } }
		if len(v) == 0 || json.Unmarshal(v[len(v)-1].Payload, &m) != nil || m.AgvPosition == nil {
			return false
		}
		theta = append(theta, m.AgvPosition.Theta)
		return math.Abs(m.AgvPosition.Theta-math.Pi/2) < 0.1
	})
	t.Logf("theta %v", theta)
	p.stop(t)
	n := len(rec.On(prefix + "state"))
	startDaemonProc(t, "-config", conf, "-state-dir", state)
	mqtttest.Eventually(t, "a state after the restart", func() bool { return len(rec.On(prefix+"state")) > n })
	s := last()
	stopped := false
	for _, e := range s.Errors {
		stopped = stopped || e.ErrorType == "orderExecutionError"
	}
	if s.OrderID != "restart" || s.LastNodeID != "s1" || len(s.NodeStates) != 1 || s.NodeStates[0].NodeID != "s2" || !stopped {
		t.Fatalf("after the restart: %+v", s)
	}
	validateVDA(t, prefix, rec.All())
}
