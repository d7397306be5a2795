package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/configs"
)

// badConfigs are daemon configs with problems, each with every problem
// check-config must report for it, at once, each at its path (typos with
// their did-you-mean). HW, MISSION, PI and DIR are replaced by the
// simulated rover's hardware file, the patrol mission, the Pi rover's
// hardware file and a temporary directory.
var badConfigs = []struct {
	name, yaml string
	want       []string
}{
	{"the issue's failsafe", "robot: r\nhardware: HW\nmission: MISSION\n" +
		"failsafe: {battery_low: 130, battery_critical: 110, link_loss_action: hover, battery_action: lnad, require_gsc: true}\n",
		[]string{
			`failsafe.battery_low: 130 is not a percentage`,
			`failsafe.battery_critical: 110 is not a percentage`,
			`failsafe.battery_action: "lnad" is not a failsafe action (did you mean land?)`,
			`failsafe.link_loss_action: "hover" is not a failsafe action (continue, hold, abort, land, return_home) nor a tree of this mission (its trees: go_home, leg, main)`,
			`failsafe.require_gsc: unknown field (did you mean require_gcs?)`,
		}},
	{"failsafe", "robot: r\nhardware: HW\nmission: MISSION\nfailsafe:\n  battery_low: 20\n  battery_critical: 20\n  sensor_action: hodl\n" +
		"  overrun_action: abrot\n  link_loss_action: go_hom\n  battery_low_action: retrun_home\n  battery_key: battery.percnt\n" +
		"  required_sensors: [range.frnt, imu]\n  estop_button: bumper\n  max_overruns: many\n",
		[]string{
			`failsafe.battery_critical: 20 is not below battery_low 20`,
			`failsafe.sensor_action: "hodl" is not a failsafe action (did you mean hold?)`,
			`failsafe.overrun_action: "abrot" is not a failsafe action (did you mean abort?)`,
			`failsafe.battery_low_action: "retrun_home" is not a failsafe action (did you mean return_home?)`,
			`failsafe.link_loss_action: "go_hom" is not a failsafe action (continue, hold, abort, land, return_home) nor a tree of this mission (did you mean go_home?)`,
			`failsafe.battery_key: "battery.percnt" is not a sensor key of this robot (did you mean battery.percent?)`,
			`failsafe.required_sensors[0]: "range.frnt" is neither a sensor key nor a device of this robot (did you mean range.front?)`,
			`failsafe.estop_button: "bumper" is not a device of this robot (its bump devices: front_bumper)`,
			`failsafe.max_overruns: want a whole number, not "many" (line 14)`,
		}},
	{"a default threshold", "robot: r\nhardware: HW\nfailsafe: {battery_critical: 30}\n",
		[]string{`failsafe.battery_critical: 30 is not below battery_low 25`}},
	{"a tree of another mission", "robot: r\nhardware: HW\nmission: DIR/trees.json\nfailsafe: {battery_action: go_home, sensor_action: hme}\n",
		[]string{`failsafe.battery_action: "go_home" is not a failsafe action (continue, hold, abort, land, return_home) nor a tree of this mission (its trees: home, main)`,
			`failsafe.sensor_action: "hme" is not a failsafe action (continue, hold, abort, land, return_home) nor a tree of this mission (did you mean home?)`}},
	{"a tree near a built-in, no mission", "robot: r\nhardware: HW\nfailsafe: {battery_action: home}\n",
		[]string{`failsafe.battery_action: "home" is not a failsafe action (did you mean hold?)`}},
	{"the e-stop button is no button", "robot: r\nhardware: HW\nfailsafe: {estop_button: base}\n",
		[]string{`failsafe.estop_button: device "base" is not a bump (a digital input)`}},
	{"top level", "robot: 'bad id'\nhardwre: HW\nmision: MISSION\nlabels: {Site: x}\nwritable: ['a b']\n",
		[]string{`robot: "bad id" may hold only`, `hardwre: unknown field (did you mean hardware?)`, `mision: unknown field (did you mean mission?)`,
			`hardware: missing`, `labels`, `writable[0]: "a b" is not a blackboard key`}},
	{"broker list", "robot: r\nhardware: HW\nbroker: {urls: ['tcp://a:1883', 'tcp://a:1883', 'http://b:80', 'tcp://c:1,tcp://d:2', 'e:1883'], reconnect_max: 1h}\n",
		[]string{`broker.urls[1]: "tcp://a:1883" is listed twice`, `broker.urls[2]: "http://b:80": unknown scheme "http"`,
			`broker.urls[3]: "tcp://c:1,tcp://d:2" holds a comma`, `broker.urls[4]: "e:1883" needs a scheme`,
			`broker.reconnect_max: 1h0m0s is outside [1s, 5m]`}},
	{"ids a RabbitMQ broker would rewrite", "robot: yard.r1\nhardware: HW\nbroker: {kind: rabbitmq, url: 'tcp://a:1883', topic_prefix: botd/v1.2}\n",
		[]string{`robot: "yard.r1" holds ".", which a rabbitmq broker rewrites in topics`,
			`broker.topic_prefix: "botd/v1.2" holds ".", which a rabbitmq broker rewrites in topics`}},
	{"unknown broker kind", "robot: r\nhardware: HW\nbroker: {kind: rabitmq, url: 'tcp://a:1883'}\n",
		[]string{`broker.kind: "rabitmq" is not aedes, emqx, mosquitto, rabbitmq, vernemq (did you mean rabbitmq?)`}},
	{"empty broker list", "robot: r\nhardware: HW\nbroker: {urls: []}\n",
		[]string{`broker.urls: empty`}},
	{"url and urls", "robot: r\nhardware: HW\nbroker: {url: 'tcp://a:1', urls: ['tcp://b:1']}\n",
		[]string{`broker.urls: give url or urls, not both`}},
	{"tick", "robot: r\nhardware: HW\ntick: {hz: fast, min_hz: .nan, spin: 1h, deadman_periods: 1, rate: 2}\n",
		[]string{`tick.hz: want a number, not "fast" (line 3)`, `tick.min_hz: NaN is not a number`, `tick.spin: 1h0m0s is outside [0, 5ms]`,
			`tick.deadman_periods: 1 is outside [2, 100]`, `tick.rate: unknown field (known: deadman_min, deadman_periods, hz, max_hz, min_hz, spin)`}},
	{"broker", "robot: r\nhardware: HW\nbroker: {url: localhost:1883, cert_file: c.pem, embedded: {listen: nowhere, max_clients: -1, max_queue_bytes: -5, max_client: 3}}\n",
		[]string{`broker.url: "localhost:1883" needs a scheme`, `broker: cert_file and key_file go together`, `broker.embedded.listen: "nowhere": want host:port`,
			`broker.embedded.max_clients: -1: want a positive number`, `broker.embedded.max_queue_bytes: -5: want a positive number`,
			`broker.embedded.max_client: unknown field (did you mean max_clients?)`}},
	{"telemetry", "robot: r\nhardware: HW\ntelemetry: {status_hz: 1000, keyframe_every: 5, command_rate: -1, command_burst: -2, reply_cache: -3, metrics_every: -1s, deadbands: {'[': 1}, stale_afer: 1s}\n",
		[]string{`telemetry.status_hz: 1000 is outside [0, 100]`, `telemetry.keyframe_every: want a duration (10s, 500ms), not "5"`,
			`telemetry.command_rate: -1: want a positive rate`, `telemetry.command_burst: -2: want a positive number`,
			`telemetry.reply_cache: -3: want a positive number`, `telemetry.metrics_every: -1s: want a positive duration`, `telemetry.deadbands.[: not a key pattern`,
			`telemetry.stale_afer: unknown field (did you mean stale_after?)`}},
	{"limits", "robot: r\nhardware: HW\nlimits: {nodes: -1, depth: -2, stored_missions: -3, node: 4}\n",
		[]string{`limits.nodes: -1: want a positive number`, `limits.depth: -2`, `limits.stored_missions: -3`, `limits.node: unknown field (did you mean nodes?)`}},
	{"security", "robot: r\nhardware: HW\nsecurity: {require_signed_missions: yes please, max_validity: -1s, clock_skw: 1s}\n",
		[]string{`security.require_signed_missions: want true or false, not "yes please"`, `security.max_validity`,
			`security.clock_skw: unknown field (did you mean clock_skew?)`}},
	{"metrics and log", "robot: r\nhardware: HW\nmetrics: {listen: 9100}\nlog: {level: inf, format: jsno, colour: true}\n",
		[]string{`metrics.listen: "9100": want host:port`, `log.level: "inf" is not debug, info, warn or error (did you mean info?)`,
			`log.format: "jsno" is not text or json (did you mean json?)`, `log.colour: unknown field (known: format, level)`}},
	{"plan", "robot: r\nhardware: HW\nplan: {fly: autopilt, fyl: botd}\n",
		[]string{`plan.fly: "autopilt" is not botd or autopilot (who flies a plan that does not say) (did you mean autopilot?)`,
			`plan.fyl: unknown field (known: fly)`}},
	{"memory", "robot: r\nhardware: HW\nmemory: {gc_percent: 5, soft_limit_mib: -1, gogc: 50}\n",
		[]string{`memory.gc_percent: 5 is outside [10, 1000]`, `memory.soft_limit_mib: -1 is outside [0, 1024] (0: no limit)`,
			`memory.gogc: unknown field (known: gc_percent, soft_limit_mib)`}},
	{"geofence", "robot: r\nhardware: HW\ngeofence: {points: [[0, 0], [1, 1]], actoin: hold}\n",
		[]string{`geofence.actoin: unknown field (did you mean action?)`, `geofence.points`}},
	{"sim_multicopter", "robot: r\nhardware: HW\nsim_multicopter: {time_scale: 1000, max_sped: 3}\n",
		[]string{`sim_multicopter.time_scale`, `sim_multicopter.max_sped: unknown field (did you mean max_speed?)`}},
	{"substitute on a real board", "robot: r\nhardware: PI\nsubstitute: ['*=Succeed']\nfailsafe: {required_sensors: [range.frnt]}\n",
		[]string{`substitute: substitution rules stand in scripted nodes for real ones`, `failsafe.required_sensors[0]: "range.frnt"`}},
	{"world and mission files", "robot: r\nhardware: HW\nworld: DIR/no-world.yaml\nmission: DIR/no-mission.json\n",
		[]string{`world: open`, `mission: open`}},
}

// writeBadConfig writes a config of badConfigs into dir.
func writeBadConfig(t *testing.T, dir, name, text string) string {
	t.Helper()
	text = strings.NewReplacer("HW", mustAbs(t, "../../configs/sim.yaml"), "MISSION", mustAbs(t, "../../configs/missions/patrol.json"),
		"PI", mustAbs(t, "../../configs/rover-raspi.yaml"), "DIR", dir).Replace(text)
	f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// writeTreesMission writes a mission with a tree called home, two edits
// from hold.
func writeTreesMission(t *testing.T, dir string) {
	t.Helper()
	doc := `{"format":"botd/mission@1","main":"main","trees":{"main":{"type":"Succeed"},"home":{"type":"Stop"}}}`
	if err := os.WriteFile(filepath.Join(dir, "trees.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// check-config reports every problem of a config at once, each with its
// field path, a typo with the name it is most likely a typo of.
func TestCheckConfigEveryProblem(t *testing.T) {
	dir := t.TempDir()
	writeTreesMission(t, dir)
	for _, tc := range badConfigs {
		t.Run(tc.name, func(t *testing.T) {
			f := writeBadConfig(t, dir, tc.name, tc.yaml)
			code, out, _ := runCmd(t, "check-config", f)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, f+": ") || !strings.Contains(out, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			if t.Failed() {
				t.Logf("check-config %s:\n%s", f, out)
			}
			if strings.Contains(out, "main.") || strings.Contains(out, "not found in type") {
				t.Errorf("the report speaks Go:\n%s", out)
			}
		})
	}
}

// The daemon never starts with a config check-config refuses: it stops
// before it has touched the hardware or opened a broker, saying why.
func TestDaemonRefusesBadConfigs(t *testing.T) {
	dir := t.TempDir()
	writeTreesMission(t, dir)
	for _, tc := range badConfigs {
		t.Run(tc.name, func(t *testing.T) {
			f := writeBadConfig(t, dir, tc.name, tc.yaml+
				fmt.Sprintf("state_dir: %s\n", filepath.Join(dir, "state", strings.ReplaceAll(tc.name, " ", "-"))))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out, errb syncBuffer
			code := run(ctx, []string{"-config", f}, &out, &errb)
			if ctx.Err() != nil || code != 1 {
				t.Fatalf("botd -config %s: exit %d (started?)\n%s%s", f, code, out.String(), errb.String())
			}
			// The first problem check-config reports is among the daemon's.
			if !strings.Contains(errb.String(), firstWanted(tc.want)) {
				t.Errorf("botd says:\n%s", errb.String())
			}
		})
	}
}

// firstWanted is the first wanted problem with its quotes as the
// daemon's log writes them (escaped).
func firstWanted(want []string) string {
	w, _, _ := strings.Cut(want[0], `"`)
	return w
}

// A hardware file given as the daemon's config is refused as such, and
// check-config refuses it the same way.
func TestDaemonRefusesHardwareFile(t *testing.T) {
	const fix = "rover-raspi.yaml is a hardware file (adaptors and devices), not a daemon config: name it in a daemon config with `hardware: rover-raspi.yaml`"
	code, _, errb := runCmd(t, "-config", "../../configs/rover-raspi.yaml")
	if code != 1 || !strings.Contains(errb, fix) {
		t.Errorf("botd -config rover-raspi.yaml: %d %s", code, errb)
	}
	code, out, _ := runCmd(t, "check-config", "../../configs/rover-raspi.yaml")
	if code != 1 || !strings.Contains(out, fix) {
		t.Errorf("check-config rover-raspi.yaml: %d %s", code, out)
	}
}

// Every shipped config passes: each daemon config checks, with its
// hardware, world and mission, and each hardware file checks as one.
func TestShippedConfigs(t *testing.T) {
	entries, err := configs.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		n++
		f := filepath.Join("../../configs", e.Name())
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"check-config", f}
		if isHardwareFile(data) {
			args = []string{"check-config", "-hardware", f}
		}
		if code, out, _ := runCmd(t, args...); code != 0 || !strings.Contains(out, f+": ok") || strings.Contains(out, "note:") {
			t.Errorf("%v: %d\n%s", args, code, out)
		}
	}
	if n < 8 {
		t.Errorf("%d configs: configs/ moved?", n)
	}
}

// Without a configured mission a failsafe action that is not near a
// built-in is taken for a tree name, and check-config says so.
func TestCheckConfigNotesTreeName(t *testing.T) {
	dir := t.TempDir()
	f := writeBadConfig(t, dir, "tree", "robot: r\nhardware: HW\nfailsafe: {battery_action: go_home, sensor_action: hold}\n")
	code, out, _ := runCmd(t, "check-config", f)
	if code != 0 || !strings.Contains(out, f+": ok\n") ||
		!strings.Contains(out, f+`: note: failsafe.battery_action: "go_home" is taken for a tree of the mission that will run`) ||
		strings.Contains(out, "sensor_action") {
		t.Errorf("check-config: %d\n%s", code, out)
	}
	// With the mission, its trees are checked (compiled) and there is
	// nothing to note; a tree may be called home, two edits from hold.
	writeTreesMission(t, dir)
	for _, c := range []string{"mission: MISSION\nfailsafe: {battery_action: go_home}\n", "mission: DIR/trees.json\nfailsafe: {battery_action: home}\n"} {
		f = writeBadConfig(t, dir, "tree-mission", "robot: r\nhardware: HW\n"+c)
		if code, out, _ := runCmd(t, "check-config", f); code != 0 || strings.Contains(out, "note:") {
			t.Errorf("check-config with the mission: %d\n%s", code, out)
		}
	}
}

// broker.kind refuses only what that broker rewrites: the same dotted id
// passes for a broker that keeps topics as they are, and a dashed one
// passes for RabbitMQ.
func TestBrokerKindAcceptsWhatItKeeps(t *testing.T) {
	dir := t.TempDir()
	for name, yaml := range map[string]string{
		"dotted on mosquitto": "robot: yard.r1\nhardware: HW\nbroker: {kind: mosquitto, url: 'tcp://a:1883'}\n",
		"dashed on rabbitmq":  "robot: yard-r1\nhardware: HW\nbroker: {kind: rabbitmq, urls: ['tcp://a:1883', 'tcp://b:1883']}\n",
	} {
		f := writeBadConfig(t, dir, name, yaml)
		if code, out, errOut := runCmd(t, "check-config", f); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
}
