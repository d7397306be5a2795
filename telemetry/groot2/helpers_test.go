package groot2

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// waitFor bounds every wait of these tests; they wait for events, never
// for fixed times.
const waitFor = 20 * time.Second

// startRunner runs a real runner (built-in nodes, no hardware).
func startRunner(t *testing.T) *runner.Runner {
	t.Helper()
	cfg := runner.Config{Robot: "groot2-test", TickHz: 50, Writable: []string{"go"}} // "go": hookMission's gate
	cfg.Failsafe.LinkLossTimeout = -1
	r, err := runner.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.SetLink(protocol.LinkState{Broker: true, GCSOnline: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && err != context.Canceled {
			t.Errorf("runner: %v", err)
		}
	})
	return r
}

// loadMission loads and starts a mission document (any format botd
// reads).
func loadMission(t *testing.T, r *runner.Runner, doc []byte) {
	t.Helper()
	d, err := missions.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	d.ID = uuid.NewString()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	rep := r.Do(ctx, protocol.Command{ID: fmt.Sprintf("load-%d", time.Now().UnixNano()), Op: protocol.OpMissionLoad, Mission: raw, Start: true, Replace: true})
	if !rep.OK {
		t.Fatalf("mission.load: %+v", rep.Error)
	}
}

// startServer runs the endpoint on a free pair of loopback ports.
func startServer(t *testing.T, src Source) *Server {
	t.Helper()
	s, err := New(Config{Addr: "127.0.0.1:0", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("the endpoint did not stop")
		}
	})
	return s
}

// pyClient is testdata/groot2_client.py on pyzmq (libzmq).
type pyClient struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

// zmqPython returns a Python 3 with pyzmq and msgpack, or skips.
func zmqPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if err := exec.Command(py, "-c", "import zmq, msgpack").Run(); err == nil {
			return py
		}
	}
	t.Skip("no python3 with pyzmq and msgpack (Debian: apt-get install python3-zmq python3-msgpack): the libzmq interop test is skipped")
	return ""
}

func startClient(t *testing.T, port int) *pyClient {
	t.Helper()
	py := zmqPython(t)
	cmd := exec.Command(py, "testdata/groot2_client.py", fmt.Sprint(port))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &pyClient{t: t, in: in, out: sc}
}

// ask sends one request to the client and returns its answer.
func (c *pyClient) ask(req map[string]any) map[string]any {
	c.t.Helper()
	out, err := c.try(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// try is ask for any goroutine: it returns what went wrong.
func (c *pyClient) try(req map[string]any) (map[string]any, error) {
	b, _ := json.Marshal(req)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	if !c.out.Scan() {
		return nil, fmt.Errorf("the client ended: %v", c.out.Err())
	}
	var out map[string]any
	if err := json.Unmarshal(c.out.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("client answer %q: %v", c.out.Text(), err)
	}
	if out["timeout"] == true {
		return nil, fmt.Errorf("%v: no reply within the client's timeout (a REQ client left without a reply)", req)
	}
	return out, nil
}

// until asks until ok accepts an answer, for at most waitFor.
func (c *pyClient) until(req map[string]any, what string, ok func(map[string]any) bool) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		out := c.ask(req)
		if ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waiting for %s: last answer %v", what, out)
		}
		time.Sleep(10 * time.Millisecond) // a poll interval, not a wait for time to pass
	}
}
