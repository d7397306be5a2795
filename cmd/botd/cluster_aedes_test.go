package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// aedesCLI is aedes-cli as .ci/run installs it (npm ci in testdata/aedes).
const aedesCLI = "testdata/aedes/node_modules/aedes-cli/bin/aedes"

// aedesHeartbeat is the test cluster's heartbeat interval: a node silent
// for three is dead, and a survivor publishes its clients' wills at its
// next check (every four). deploy/aedes's own is 5 s.
const aedesHeartbeat = time.Second

// startAedesCluster starts a redis-server and three aedes brokers sharing
// it (deploy/aedes/aedes.config.js: redis persistence and emitter), on
// loopback, and waits until each listens.
func startAedesCluster(t *testing.T) *brokerCluster {
	t.Helper()
	redis, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run the aedes cluster test: install redis-server (apt-get install redis-server)")
		}
		t.Skip("redis-server is not installed (CI installs it: apt-get install redis-server)")
	}
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(aedesCLI); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run the aedes cluster test: npm ci in cmd/botd/testdata/aedes")
		}
		t.Skip("node or aedes-cli is not installed (CI installs it: npm ci in cmd/botd/testdata/aedes)")
	}
	config, err := filepath.Abs("../../deploy/aedes/aedes.config.js")
	if err != nil {
		t.Fatal(err)
	}
	start := func(name string, cmd *exec.Cmd) *syncBuffer {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		buf := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = buf, buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			killGroup(cmd)
			if t.Failed() {
				t.Logf("%s:\n%s", name, buf.String())
			}
		})
		return buf
	}
	started := time.Now()
	deadline := started.Add(time.Minute)
	listening := func(addr string, log *syncBuffer) {
		for !canDial("tcp://" + addr) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not listening after a minute:\n%s", addr, log.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	redisAddr := freeAddr(t)
	rhost, rport, _ := net.SplitHostPort(redisAddr)
	rlog := start("redis", exec.Command(redis, "--bind", rhost, "--port", rport, "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--protected-mode", "no"))
	listening(redisAddr, rlog)

	c := &brokerCluster{kind: "aedes", willsOfTheDead: true, settle: 8 * aedesHeartbeat}
	nodes := map[string]*exec.Cmd{}
	for i := range 3 {
		addr := freeAddr(t)
		host, port, _ := net.SplitHostPort(addr)
		cmd := exec.Command(node, aedesCLI, "start", "--config", config)
		cmd.Env = append(os.Environ(), "AEDES_HOST="+host, "AEDES_PORT="+port, "AEDES_BROKER_ID="+fmt.Sprintf("aedes-%d", i+1),
			"AEDES_REDIS_HOST="+rhost, "AEDES_REDIS_PORT="+rport, "AEDES_HEARTBEAT_MS="+strconv.Itoa(int(aedesHeartbeat.Milliseconds())))
		log := start(addr, cmd)
		listening(addr, log)
		u := "tcp://" + addr
		nodes[u] = cmd
		c.urls = append(c.urls, u)
	}
	c.kill = func(u string) { syscall.Kill(-nodes[u].Process.Pid, syscall.SIGKILL) }
	t.Logf("aedes cluster of 3 on one redis up in %v", time.Since(started).Round(time.Millisecond))
	return c
}

// A fleet on three aedes brokers sharing a redis (persistence and
// emitter) survives the loss of the broker holding the most robots. aedes
// promises the dead broker's wills: a survivor publishes them once the
// dead one's heartbeats stop.
func TestClusterAedes(t *testing.T) {
	runClusterFailover(t, startAedesCluster(t))
}
