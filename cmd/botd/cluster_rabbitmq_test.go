package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/transport"
)

// rabbitmqServer is Debian's rabbitmq-server start script (the one in
// /usr/sbin runs it as the rabbitmq user; the tests run it as themselves).
const rabbitmqServer = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// rabbitmqConf is a node's rabbitmq.conf: the production one
// (deploy/rabbitmq) on loopback, with the test's node names and ports,
// anonymous clients (the test's have no users) and the log on stdout.
func rabbitmqConf(t *testing.T, mqttAddr string, nodes []string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../deploy/rabbitmq/rabbitmq.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(data)
	replace := func(old, new string) {
		if !strings.Contains(conf, old) {
			t.Fatalf("deploy/rabbitmq/rabbitmq.conf has no %q", old)
		}
		conf = strings.ReplaceAll(conf, old, new)
	}
	replace("mqtt.listeners.tcp.default = 1883", "mqtt.listeners.tcp.default = "+mqttAddr)
	replace("mqtt.allow_anonymous = false", "mqtt.allow_anonymous = true\nloopback_users = none")
	for i, n := range nodes {
		replace(fmt.Sprintf("nodes.%d = rabbit@mq%d", i+1, i+1), fmt.Sprintf("nodes.%d = %s", i+1, n))
	}
	return []byte(conf + "log.console = true\nlog.console.level = warning\nlog.file = false\n")
}

// startRabbitMQCluster starts three RabbitMQ nodes with the MQTT plugin as
// the current user (private node names, ports, cookie and directories;
// an epmd of their own) and waits until they route to each other.
func startRabbitMQCluster(t *testing.T) *brokerCluster {
	t.Helper()
	if _, err := os.Stat(rabbitmqServer); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run the RabbitMQ cluster test: install rabbitmq-server (apt-get install rabbitmq-server)")
		}
		t.Skip("rabbitmq-server is not installed (CI installs it: apt-get install rabbitmq-server)")
	}
	epmd, err := exec.LookPath("epmd")
	if err != nil {
		t.Skip("epmd is not installed (it comes with rabbitmq-server's Erlang)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".erlang.cookie"), []byte("botd-cluster-test-"+filepath.Base(dir)), 0o400); err != nil {
		t.Fatal(err)
	}
	port := func() string { _, p, _ := net.SplitHostPort(freeAddr(t)); return p }
	epmdPort := port()
	ep := exec.Command(epmd, "-port", epmdPort)
	ep.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := ep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(ep) })

	suffix := fmt.Sprintf("%d", os.Getpid())
	var names []string
	for i := range 3 {
		names = append(names, fmt.Sprintf("botd%d-%s@localhost", i+1, suffix))
	}
	c := &brokerCluster{kind: "rabbitmq", settle: 0}
	nodes := map[string]*exec.Cmd{}
	logs := map[string]*syncBuffer{}
	t.Cleanup(func() {
		for u, cmd := range nodes {
			killGroup(cmd)
			if t.Failed() {
				t.Logf("%s:\n%s", u, logs[u].String())
			}
		}
	})
	c.kill = func(u string) { syscall.Kill(-nodes[u].Process.Pid, syscall.SIGKILL) }
	started := time.Now()
	deadline := started.Add(3 * time.Minute)
	listening := func(u string) {
		for !canDial(u) {
			if time.Now().After(deadline) {
				t.Fatalf("RabbitMQ node %s not listening after 3 min:\n%s", u, logs[u].String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i, name := range names {
		addr := freeAddr(t)
		nd := filepath.Join(dir, fmt.Sprintf("n%d", i+1))
		if err := os.MkdirAll(nd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(nd, "rabbitmq.conf"), rabbitmqConf(t, addr, names), 0o644); err != nil {
			t.Fatal(err)
		}
		plugins, err := os.ReadFile("../../deploy/rabbitmq/enabled_plugins")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(nd, "enabled_plugins"), plugins, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(rabbitmqServer)
		cmd.Env = append(os.Environ(), "HOME="+dir, "RABBITMQ_NODENAME="+name, "ERL_EPMD_PORT="+epmdPort,
			"RABBITMQ_DIST_PORT="+port(), "RABBITMQ_NODE_IP_ADDRESS=127.0.0.1", "RABBITMQ_NODE_PORT="+port(),
			"RABBITMQ_CONFIG_FILE="+filepath.Join(nd, "rabbitmq"), "RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(nd, "enabled_plugins"),
			"RABBITMQ_MNESIA_BASE="+filepath.Join(nd, "mnesia"), "RABBITMQ_LOG_BASE="+filepath.Join(nd, "log"),
			"RABBITMQ_PID_FILE="+filepath.Join(nd, "pid"), "RABBITMQ_PLUGINS_EXPAND_DIR="+filepath.Join(nd, "plugins"))
		// Its own process group: the start script, the Erlang VM and its
		// helpers die together (kill -9 the node).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		buf := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = buf, buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		u := "tcp://" + addr
		nodes[u], logs[u] = cmd, buf
		c.urls = append(c.urls, u)
		if i == 0 {
			// The first node up alone, the others join it: started all at
			// once, classic peer discovery has each wait for the others'
			// tables for seconds.
			listening(u)
		}
	}
	for _, u := range c.urls {
		listening(u)
	}

	// Up when a message published on each node reaches a subscriber on
	// the next: the nodes are one cluster.
	for i, u := range c.urls {
		next := c.urls[(i+1)%len(c.urls)]
		rec := mqtttest.NewRecorder(t, next, "cluster-check/#")
		conn := dialUp(t, u, fmt.Sprintf("cluster-check-%d", i))
		for len(rec.On("cluster-check/up")) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("RabbitMQ nodes %s and %s do not route to each other after 3 min", u, next)
			}
			conn.Publish("cluster-check/up", 1, false, []byte("x"))
			time.Sleep(200 * time.Millisecond)
		}
		conn.Close()
	}
	t.Logf("RabbitMQ cluster of 3 up in %v", time.Since(started).Round(time.Millisecond))
	return c
}

// A fleet on a three-node RabbitMQ cluster (Debian's rabbitmq-server and
// its MQTT plugin, the shipped config) survives the loss of the node
// holding the most robots. RabbitMQ keeps a client's will in its
// connection process on the node it is connected to: when that node
// dies, nobody publishes it. Before, the nodes are checked to rewrite
// what broker.kind: rabbitmq refuses at check-config.
func TestClusterRabbitMQ(t *testing.T) {
	c := startRabbitMQCluster(t)

	// The quirk broker.kind: rabbitmq refuses ids for (check-config): a
	// "." in a topic level comes out as a level separator on another node,
	// and "+" no longer matches the id.
	rec := mqtttest.NewRecorder(t, c.urls[1], "quirk/+/state", "quirk/#")
	conn := dialUp(t, c.urls[0], "quirk-pub")
	if err := conn.Publish("quirk/rover.1/state", 1, false, []byte("dotted")); err != nil {
		t.Fatal(err)
	}
	if err := conn.Publish("quirk/rover-1/state", 1, false, []byte("dashed")); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	mqtttest.Eventually(t, "both quirk messages", func() bool {
		got := map[string]bool{}
		for _, m := range rec.All() {
			got[string(m.Payload)] = true
		}
		return got["dotted"] && got["dashed"]
	})
	var topics []string
	for _, m := range rec.All() {
		if bytes.Equal(m.Payload, []byte("dotted")) {
			topics = append(topics, m.Topic)
		}
	}
	if len(topics) != 1 || topics[0] != "quirk/rover/1/state" {
		t.Errorf("RabbitMQ delivered quirk/rover.1/state as %q; broker.kind: rabbitmq refuses dotted ids for a rewrite to quirk/rover/1/state", topics)
	}
	runClusterFailover(t, c)
}

// dialUp connects to url and waits until the connection is up.
func dialUp(t *testing.T, url, id string) transport.Conn {
	t.Helper()
	conn, err := transport.Dial(transport.Options{Brokers: []string{url}, ClientID: id})
	if err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, id+" connected to "+url, conn.IsUp)
	return conn
}
