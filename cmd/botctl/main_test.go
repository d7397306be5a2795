package main

import (
	"bytes"
	"context"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/missions"
)

// result is one run of botctl.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + string(rune('0'+r.code)) + "\nstdout:\n" + r.stdout + "\nstderr:\n" + r.stderr
}

func botctl(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func TestParseInterspersed(t *testing.T) {
	c := missionCmd{cli: &cli{}}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	c.globalFlags(fs, true) // mission send owns --key (signing)
	c.flags(fs)
	pos, err := parseInterspersed(fs, []string{"send", "--json", "f.json", "--start", "--broker", "tcp://h:1", "--", "--not-a-flag"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, " ") != "send f.json --not-a-flag" || !c.json || !c.startNow || c.broker != "tcp://h:1" {
		t.Errorf("positional %q, json %v, start %v, broker %q", pos, c.json, c.startNow, c.broker)
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{nil, exitUsage, "Usage: botctl"},
		{[]string{"help"}, exitOK, "Commands:"},
		{[]string{"--help"}, exitOK, "Commands:"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"status"}, exitUnreachable, "cannot reach the broker"}, // no robot named: the only one online
		{[]string{"status", "a", "b"}, exitUsage, "one robot"},
		{[]string{"status", "bad/id"}, exitUsage, "letters, digits"},
		{[]string{"mission", "load", "x"}, exitUsage, "mission send FILE"},
		{[]string{"mission", "send", "x.json", "--robot", "bad/id"}, exitUsage, "letters, digits"},
		{[]string{"pause", "r1", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{[]string{"sign", "x.json"}, exitUsage, "--key is required"},
		{[]string{"pause", "-h"}, exitOK, "usage: botctl pause [ROBOT]"},
		{[]string{"events", "r1", "--for", "0s"}, exitUsage, "--for must be positive"},
		{[]string{"robots", "--broker", "http://localhost:1"}, exitUsage, "the scheme must be tcp"},
		{[]string{"robots", "--broker", "localhost:1883"}, exitUsage, "want a URL like tcp://host:1883"},
	} {
		r := botctl(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stdout+r.stderr, c.out) {
			t.Errorf("botctl %q: %v\nwant exit %d and %q", c.args, r, c.code, c.out)
		}
	}
}

// A broker that does not answer: exit 3 with a message naming it, at
// once (the refusal is reported, not waited out).
func TestBrokerUnreachable(t *testing.T) {
	url := "tcp://" + freeAddr(t)
	start := time.Now()
	// (watch and ui wait for the broker instead: TestWatchWaitsForTheBroker.)
	for _, args := range [][]string{{"robots"}, {"pause", "rover-1"}, {"tree", "rover-1", "--json"}} {
		r := botctl(t, append(args, "--broker", url, "--timeout", "3s")...)
		if r.code != exitUnreachable || !strings.Contains(r.stderr, "cannot reach the broker at "+url) ||
			!strings.Contains(r.stderr, "is botd running?") {
			t.Errorf("%q: %v", args, r)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v to report a refused connection", d)
	}
}

// Problems found locally are reported with their paths, and nothing is
// sent (no broker is needed).
func TestMissionSendLocalProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	os.WriteFile(file, []byte("format: botd/mission@1\nname: x\nrevision: -1.5\nmain: main\ntrees: {main: {type: Wait, params: {ms: 5}}}\n"), 0o644)
	r := botctl(t, "mission", "send", file, "--robot", "r1", "--broker", "tcp://"+freeAddr(t))
	if r.code != exitRefused || !strings.Contains(r.stderr, "/revision: ") || !strings.Contains(r.stderr, "nothing was sent") {
		t.Errorf("%v", r)
	}
}

func TestKeygenSignAndID(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "ops.key")
	r := botctl(t, "keygen", key)
	if r.code != 0 || !strings.Contains(r.stdout, "public_keys: [\"ops:") {
		t.Fatalf("keygen: %v", r)
	}
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("private key file: %v %v", st, err)
	}
	if r := botctl(t, "keygen", key); r.code != exitUsage || !strings.Contains(r.stderr, "never overwrites") {
		t.Errorf("keygen over an existing key: %v", r)
	}
	pubLine, _ := os.ReadFile(key + ".pub")
	id, pub, err := missions.ParsePublicKey(string(pubLine))
	if err != nil || id != "ops" {
		t.Fatalf("public key %q: %v", pubLine, err)
	}
	ring := missions.Keyring{id: pub}

	for _, c := range []struct{ name, text, keep string }{
		{"m.json", "{\n  \"format\": \"botd/mission@1\",\n  \"name\": \"m\",\n  \"revision\": 0,\n  \"main\": \"main\",\n  \"trees\": {\"main\": {\"type\": \"Wait\", \"params\": {\"ms\": 5}}}\n}\n", "\n  \"format\""},
		{"m.yaml", "# my mission\nformat: botd/mission@1\nname: m\nrevision: 0\nmain: main\ntrees:\n  main: {type: Wait, params: {ms: 5}}  # wait\n", "# wait"},
	} {
		file := filepath.Join(dir, c.name)
		os.WriteFile(file, []byte(c.text), 0o644)
		r := botctl(t, "sign", file, "--key", key)
		if r.code != 0 || !strings.Contains(r.stderr, "had no mission id; added") {
			t.Fatalf("sign %s: %v", c.name, r)
		}
		data, _ := os.ReadFile(file)
		if !strings.Contains(string(data), c.keep) {
			t.Errorf("%s lost its formatting:\n%s", c.name, data)
		}
		doc, err := missions.Decode(data)
		if err != nil || doc.ID == "" {
			t.Fatalf("%s after sign: id %q, %v", c.name, doc.ID, err)
		}
		sig := strings.TrimSpace(r.stdout)
		if field, err := ring.VerifyDocument("", sig, data); err != nil {
			t.Errorf("%s: the signature does not verify: %s: %v", c.name, field, err)
		}
		// Signing again keeps the id and gives the same signature.
		r2 := botctl(t, "sign", file, "--key", key, "--out")
		sigFile, _ := os.ReadFile(file + ".sig")
		if r2.code != 0 || strings.TrimSpace(string(sigFile)) != sig || strings.Contains(r2.stderr, "added") {
			t.Errorf("second sign of %s: %v, file %q", c.name, r2, sigFile)
		}
	}

	xml := filepath.Join(dir, "m.xml")
	os.WriteFile(xml, []byte(`<root BTCPP_format="4" main_tree_to_execute="main"><BehaviorTree ID="main"><AlwaysSuccess/></BehaviorTree></root>`), 0o644)
	if r := botctl(t, "sign", xml, "--key", key); r.code != exitUsage || !strings.Contains(r.stderr, "XML file has no mission id") {
		t.Errorf("sign xml: %v", r)
	}
}

// freeAddr is a local address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// The ground station links neither the mission runner nor a broker: it
// speaks only the protocol.
func TestGroundStationDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/botd-project/botd/missions/runner", "github.com/mochi-mqtt/server", "github.com/botd-project/botd/telemetry/broker", "gobot.io/x/gobot"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("botctl links %s", dep)
			}
		}
	}
}
