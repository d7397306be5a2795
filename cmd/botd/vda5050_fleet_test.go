package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
)

// A master control drives a robot behind the broker configuration and
// ACLs shipped in deploy/mosquitto: the robot's VDA 5050 connection logs
// in as <robot>-vda5050 (vda5050.username) beside its two botd
// connections, none of which pushes another off the broker; the master
// control logs in on the operator listener; an observer reads the VDA
// 5050 topics and cannot send an order.
func TestMasterControlFleetBroker(t *testing.T) {
	nodeBin := masterControl(t)
	fb := startFleetBroker(t)
	pw := filepath.Join(fb.dir, "rover-1.password")
	if err := os.WriteFile(pw, []byte(fleetPassword("rover-1")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hw, _ := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	conf := filepath.Join(fb.dir, "rover-1.yaml")
	if err := os.WriteFile(conf, []byte(`robot: rover-1
hardware: `+hw+`
failsafe: {require_gcs: false}
broker:
  url: ssl://`+fb.robots+`
  username: rover-1
  estop_username: rover-1-estop
  password_file: `+pw+`
  ca_file: `+fb.caFile+`
vda5050:
  username: rover-1-vda5050
  manufacturer: acme
  map_id: yard
  actions:
    beep:
      node: {type: Wait, params: {ms: "{vda5050.param.ms}"}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	obs, err := fb.dialRaw(t, fb.observers, "olive", fleetPassword("olive"), "botd-obs-vda", false)
	if err != nil {
		t.Fatal(err)
	}
	obs.sub(t, "uagv/#", "botd/v1/rover-1/state")
	p := startDaemonProc(t, "-config", conf, "-state-dir", t.TempDir())
	waitUntil(t, "the VDA 5050 connection ONLINE", func() bool { return obs.got("uagv/v2/acme/rover-1/connection", `"ONLINE"`) })

	runMaster(t, nodeBin, []string{"BROKER=mqtts://" + fb.operators, "CA_FILE=" + fb.caFile, "USERNAME=alice", "PASSWORD=" + fleetPassword("alice"),
		"CLIENT_ID=botd-vda-master", "INTERFACE=uagv", "MANUFACTURER=acme", "SERIAL=rover-1", "MAP=yard"}, "complete")

	// An observer's order is dropped by the broker: the robot never
	// reports it (not even refused).
	obs.pub(t, "uagv/v2/acme/rover-1/order", false, `{"orderId":"from-an-observer"}`)
	marker, err := fb.dialRaw(t, fb.operators, "bob", fleetPassword("bob"), "botd-vda-marker", false)
	if err != nil {
		t.Fatal(err)
	}
	marker.pub(t, "uagv/v2/acme/rover-1/instantActions", false, `{"headerId":1,"timestamp":"2026-11-26T12:00:00.000Z","version":"2.0.0",`+
		`"manufacturer":"acme","serialNumber":"rover-1","actions":[{"actionId":"marker","actionType":"stateRequest","blockingType":"NONE"}]}`)
	waitUntil(t, "the operator's stateRequest answered", func() bool { return obs.got("uagv/v2/acme/rover-1/state", `"actionId":"marker"`) })
	if obs.got("uagv/v2/acme/rover-1/state", "from-an-observer") {
		t.Error("an observer's order reached the robot")
	}
	if !obs.got("botd/v1/rover-1/state", `"name":"vda5050 order `) {
		t.Error("botd's own state never showed the order's mission")
	}
	log := fb.log.String()
	for _, id := range []string{"rover-1", "rover-1-estop", "rover-1-vda5050"} {
		if n := strings.Count(log, " as "+id+" ("); n != 1 {
			t.Errorf("the broker saw %s connect %d times, want once", id, n)
		}
	}
	if strings.Contains(log, "already connected") {
		t.Errorf("the broker closed a connection for another with its client id:\n%s", log)
	}
	p.stop(t)
	var msgs []mqtttest.Msg
	for _, m := range obs.all() {
		msgs = append(msgs, mqtttest.Msg{Topic: m.topic, Payload: []byte(m.payload)})
	}
	counts := validateVDA(t, "uagv/v2/acme/rover-1/", msgs)
	t.Logf("messages validated against the 2.0.0 schemas: %v", counts)
	if counts["state"] == 0 || counts["connection"] == 0 {
		t.Errorf("the observer read %v", counts)
	}
}
