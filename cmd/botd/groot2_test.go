package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/groot2"
)

func groot2Config(t *testing.T, section string) string {
	t.Helper()
	hw, err := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "botd.yaml")
	if err := os.WriteFile(file, []byte("robot: g2-1\nhardware: "+hw+"\ngroot2:\n"+section), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// The groot2 section is checked as every section is: a typo gets a "did
// you mean", a bad address is refused; allow_debug is accepted, except
// with signed missions; an
// address without a host is loopback.
func TestGroot2ConfigChecked(t *testing.T) {
	for _, tc := range []struct{ section, want string }{
		{"  listn: 127.0.0.1:1667\n", "groot2.listn: unknown field (did you mean listen?)"},
		{"  listen: 1667\n", `groot2.listen: "1667": want host:port`},
		{"  listen: 127.0.0.1:65535\n", "the port must be 1 to 65534"},
		{"  listen: 127.0.0.1:1667\n  allow_debug: true\nsecurity:\n  require_signed_missions: true\n  public_keys: ['ops:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=']\n",
			"groot2.allow_debug: not with security.require_signed_missions"},
	} {
		var out, errb bytes.Buffer
		if code := runCheckConfig([]string{groot2Config(t, tc.section)}, &out, &errb); code != 1 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: check-config %d %q, want %q", tc.section, code, out.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	file := groot2Config(t, "  listen: \":1667\"\n  allow_debug: true\n")
	if code := runCheckConfig([]string{file}, &out, &errb); code != 0 {
		t.Fatalf("check-config: %d %q %q", code, out.String(), errb.String())
	}
	cfg, err := readConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Groot2.AllowDebug {
		t.Error("allow_debug: true was not read")
	}
	if got := cfg.Groot2.addr(); got != "127.0.0.1:1667" {
		t.Errorf("listen \":1667\" listens on %q, want loopback", got)
	}
	if (Groot2Config{}).Listen != "" {
		t.Error("the endpoint is on by default")
	}
}

// botd sim -btlog writes a file that parses as FileLogger2's, with the
// mission's tree and its transitions.
func TestSimBTLog(t *testing.T) {
	mission, err := filepath.Abs(filepath.Join("..", "..", "telemetry", "groot2", "testdata", "reference_tree.xml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "run.btlog")
	code, out, errOut := runCmd(t, "sim", "-ticks", "100", "-btlog", file, mission)
	if code != simFailed { // the tree repeats forever: stopped by the tick limit
		t.Fatalf("sim: %d %q %q", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := groot2.ParseBTLog(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(l.XML, []byte(`<SubTree ID="Leg" _fullpath="Leg::8" _uid="8"`)) || len(l.Transitions) == 0 {
		t.Fatalf("btlog: %d transitions, tree %s", len(l.Transitions), l.XML)
	}
	last := l.Transitions[len(l.Transitions)-1]
	if last.Elapsed > 5*time.Second || last.UID < 1 || last.UID > 11 {
		t.Errorf("last transition %+v (100 ticks at 20 Hz are 5 s of virtual time)", last)
	}
}

// The daemon started with -groot2 answers a libzmq client (pyzmq) with
// the tree of the mission it runs.
func TestDaemonGroot2Flag(t *testing.T) {
	py := ""
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(c, "-c", "import zmq, msgpack").Run() == nil {
			py = c
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with pyzmq and msgpack (Debian: apt-get install python3-zmq python3-msgpack): skipped")
	}
	port := freePortPair(t)
	p := startDaemonProc(t, "-listen", freeAddr(t), "-state-dir", t.TempDir(), "-groot2", "127.0.0.1:"+strconv.Itoa(port))
	defer p.stop(t)
	cmd := exec.Command(py, filepath.Join("..", "..", "telemetry", "groot2", "testdata", "groot2_client.py"), strconv.Itoa(port))
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 16<<20)
	deadline := time.Now().Add(30 * time.Second)
	for {
		fmt.Fprintln(in, `{"op": "fulltree"}`)
		var got map[string]any
		if !sc.Scan() || json.Unmarshal(sc.Bytes(), &got) != nil {
			t.Fatalf("client: %v %q", sc.Err(), sc.Text())
		}
		xml, _ := got["xml"].(string)
		if got["timeout"] != true && strings.Contains(xml, "_uid=") && !strings.Contains(xml, `ID="NoMission"`) {
			if got["echo_ok"] != true {
				t.Errorf("reply header: %v", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no mission tree from the daemon's endpoint: %v", got)
		}
		time.Sleep(50 * time.Millisecond) // a poll interval
	}
}

// freePortPair finds a port whose next port is free too.
func freePortPair(t *testing.T) int {
	t.Helper()
	for range 50 {
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := a.Addr().(*net.TCPAddr).Port
		b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+1))
		a.Close()
		if err == nil {
			b.Close()
			return port
		}
	}
	t.Fatal("no free pair of ports")
	return 0
}
