package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/auth"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// fleetBroker is Debian's mosquitto running the configuration and ACLs
// shipped in deploy/mosquitto, with only file paths and ports changed:
// what ships is what is tested.
type fleetBroker struct {
	dir                          string
	ca                           *x509.CertPool
	caFile                       string
	robots, operators, observers string // host:port of the three listeners
	log                          *syncBuffer
}

// The users of the fleet in deploy/mosquitto/acl-robots (rover-1 and
// rover-2, each with its e-stop user; rover-1 with its VDA 5050 user), two
// operators and an observer.
var fleetUsers = map[string][]string{
	"passwd-robots":    {"rover-1", "rover-1-estop", "rover-1-vda5050", "rover-2", "rover-2-estop"},
	"passwd-operators": {"alice", "bob"},
	"passwd-observers": {"olive"},
}

// fleetPassword is a user's password; a robot's e-stop and VDA 5050 users
// have the robot's (botd reads one password file for its connections).
func fleetPassword(user string) string {
	return "pw-" + strings.TrimSuffix(strings.TrimSuffix(user, "-estop"), "-vda5050") + "-secret"
}

func startFleetBroker(t *testing.T) *fleetBroker {
	t.Helper()
	if _, err := exec.LookPath("mosquitto"); err != nil {
		t.Skip("mosquitto is not installed (CI installs it: apt-get install mosquitto)")
	}
	mkpasswd, err := exec.LookPath("mosquitto_passwd")
	if err != nil {
		t.Skip("mosquitto_passwd is not installed (it comes with mosquitto)")
	}
	dir := t.TempDir()
	fb := &fleetBroker{dir: dir, robots: freeAddr(t), operators: freeAddr(t), observers: freeAddr(t)}
	fb.ca, fb.caFile = writeTestPKI(t, dir)
	for file, users := range fleetUsers {
		for i, u := range users {
			args := []string{"-b", filepath.Join(dir, file), u, fleetPassword(u)}
			if i == 0 {
				args = append([]string{"-c"}, args...)
			}
			if out, err := exec.Command(mkpasswd, args...).CombinedOutput(); err != nil {
				t.Fatalf("mosquitto_passwd: %v\n%s", err, out)
			}
		}
		_ = os.Chmod(filepath.Join(dir, file), 0o600)
	}
	for _, acl := range []string{"acl-robots", "acl-operators", "acl-observers"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "mosquitto", acl))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, acl), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conf, err := os.ReadFile(filepath.Join("..", "..", "deploy", "mosquitto", "botd.conf"))
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]string{"listener 8883": fb.robots, "listener 8884": fb.operators, "listener 8885": fb.observers}
	var lines []string
	for _, l := range strings.Split(string(conf), "\n") {
		if addr, ok := ports[l]; ok {
			delete(ports, l)
			host, port, _ := net.SplitHostPort(addr)
			l = "listener " + port + " " + host
		}
		l = strings.NewReplacer("/etc/mosquitto/certs/", dir+"/", "/etc/mosquitto/botd/", dir+"/", "/var/lib/mosquitto/", dir+"/").Replace(l)
		if !strings.HasPrefix(l, "#") && strings.Contains(l, "/etc/") {
			t.Fatalf("botd.conf has a path the test does not map: %q", l)
		}
		lines = append(lines, l)
	}
	if len(ports) > 0 {
		t.Fatalf("botd.conf no longer has these listeners: %v", ports)
	}
	if os.Geteuid() == 0 {
		// Started as root, mosquitto drops to the user mosquitto, who
		// cannot read the test's private directory.
		lines = append([]string{"user root"}, lines...)
	}
	cmd := startMosquitto(t, "mosquitto", strings.Join(lines, "\n")+"\n", fb.robots)
	fb.log = cmd.Stdout.(*syncBuffer)
	waitBroker(t, fb.operators)
	waitBroker(t, fb.observers)
	return fb
}

// writeTestPKI writes a CA (ca.crt) and a server certificate for 127.0.0.1
// (server.crt, server.key) into dir.
func writeTestPKI(t *testing.T, dir string) (*x509.CertPool, string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "botd fleet test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	write := func(name, typ string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.crt", "CERTIFICATE", caDER)
	write("server.crt", "CERTIFICATE", srvDER)
	write("server.key", "EC PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool, filepath.Join(dir, "ca.crt")
}

// startRobot runs botd as robot id on the robot listener with its two
// users, the simulated rover and the patrol mission.
func (fb *fleetBroker) startRobot(t *testing.T, id, extra string) *daemonProc {
	t.Helper()
	pw := filepath.Join(fb.dir, id+".password")
	if err := os.WriteFile(pw, []byte(fleetPassword(id)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { a, _ := filepath.Abs(filepath.Join("..", "..", "configs", p)); return a }
	cfg := fmt.Sprintf(`robot: %s
hardware: %s
mission: %s
failsafe:
  require_gcs: false
broker:
  url: ssl://%s
  username: %s
  estop_username: %s-estop
  password_file: %s
  ca_file: %s
%s`, id, abs("sim.yaml"), abs("missions/patrol.json"), fb.robots, id, id, pw, fb.caFile, extra)
	file := filepath.Join(fb.dir, id+".yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return startDaemonProc(t, "-config", file, "-state-dir", t.TempDir())
}

// operator connects a ground station as botctl does: client id and
// presence botd-gcs-<user>-<random>.
func (fb *fleetBroker) operator(t *testing.T, user string, presence bool) (*ground.Client, string) {
	t.Helper()
	var r [8]byte
	_, _ = rand.Read(r[:])
	id := "botd-gcs-" + user + "-" + hex.EncodeToString(r[:])
	g, err := ground.New(ground.Config{GCS: id, Presence: presence, Conn: transport.Options{
		Brokers: []string{"ssl://" + fb.operators}, ClientID: id,
		Username: user, Password: fleetPassword(user), CAFile: fb.caFile,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return g, id
}

// rawClient is a plain MQTT client (no botd code) that records what it
// receives and whether the broker closed it.
type rawClient struct {
	c    paho.Client
	mu   sync.Mutex
	msgs []probeMsg
}

type probeMsg struct {
	topic   string
	payload string
}

// dialRaw connects to addr over TLS (or plain TCP with tlsOff) with the
// given credentials and client id; the error is the broker's answer.
func (fb *fleetBroker) dialRaw(t *testing.T, addr, user, password, clientID string, tlsOff bool) (*rawClient, error) {
	t.Helper()
	rc := &rawClient{}
	o := paho.NewClientOptions().SetClientID(clientID).SetAutoReconnect(false).SetConnectRetry(false).
		SetCleanSession(true).SetOrderMatters(true).SetConnectTimeout(10 * time.Second)
	if tlsOff {
		o.AddBroker("tcp://" + addr)
	} else {
		o.AddBroker("ssl://" + addr)
		o.SetTLSConfig(&tls.Config{RootCAs: fb.ca, MinVersion: tls.VersionTLS12})
	}
	if user != "" {
		o.SetUsername(user).SetPassword(password)
	}
	o.SetDefaultPublishHandler(func(_ paho.Client, m paho.Message) {
		rc.mu.Lock()
		rc.msgs = append(rc.msgs, probeMsg{m.Topic(), string(m.Payload())})
		rc.mu.Unlock()
	})
	rc.c = paho.NewClient(o)
	tok := rc.c.Connect()
	if !tok.WaitTimeout(20 * time.Second) {
		return nil, fmt.Errorf("connect %s as %q/%q: no answer", addr, user, clientID)
	}
	if err := tok.Error(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { rc.c.Disconnect(100) })
	return rc, nil
}

func (rc *rawClient) sub(t *testing.T, filters ...string) {
	t.Helper()
	for _, f := range filters {
		tok := rc.c.Subscribe(f, 1, nil)
		if !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
			t.Fatalf("subscribe %s: %v", f, tok.Error())
		}
	}
}

// pub publishes at QoS 1 and waits for the broker's PUBACK: mosquitto
// acknowledges a publish its ACL refuses too, after dropping it, so once
// this returns the broker has decided.
func (rc *rawClient) pub(t *testing.T, topic string, retain bool, payload string) {
	t.Helper()
	tok := rc.c.Publish(topic, 1, retain, payload)
	if !tok.WaitTimeout(20*time.Second) || tok.Error() != nil {
		t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

func (rc *rawClient) got(topic, substr string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, m := range rc.msgs {
		if m.topic == topic && strings.Contains(m.payload, substr) {
			return true
		}
	}
	return false
}

// retainedPresence returns the presence messages the broker keeps, as a
// robot (rover-2-estop, whose ACL reads presence) gets them when it
// subscribes. The broker sends them at once, before anything published
// after the subscription; so once a marker an operator sends to the
// probe's own cmd topic has arrived, they all have.
func (fb *fleetBroker) retainedPresence(t *testing.T) []probeMsg {
	t.Helper()
	probe, err := fb.dialRaw(t, fb.robots, "rover-2-estop", fleetPassword("rover-2-estop"), "botd-probe", false)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.c.Disconnect(100)
	probe.sub(t, "botd/v1/gcs/+/state", "botd/v1/rover-2-estop/cmd")
	marker := "marker-" + uuid.NewString()
	op, err := fb.dialRaw(t, fb.operators, "bob", fleetPassword("bob"), "botd-gcs-bob-marker", false)
	if err != nil {
		t.Fatal(err)
	}
	defer op.c.Disconnect(100)
	op.pub(t, "botd/v1/rover-2-estop/cmd", false, marker)
	waitUntil(t, "the marker after the retained presences", func() bool { return probe.got("botd/v1/rover-2-estop/cmd", marker) })
	var out []probeMsg
	for _, m := range probe.all() {
		if strings.HasPrefix(m.topic, "botd/v1/gcs/") {
			out = append(out, m)
		}
	}
	return out
}

func has(msgs []probeMsg, topic, substr string) bool {
	for _, m := range msgs {
		if m.topic == topic && strings.Contains(m.payload, substr) {
			return true
		}
	}
	return false
}

func (rc *rawClient) all() []probeMsg {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]probeMsg(nil), rc.msgs...)
}

// The shipped broker configuration against the attacks it is there to
// stop. A robot (rover-1) runs the patrol over TLS with its two users; an
// operator watches it. After every attack the mission is undisturbed: the
// same mission, still RUNNING, the robot never reconnected (one ONLINE,
// no CONNECTION_BROKEN, each of its two connections opened once and never
// closed by the broker).
func TestFleetBrokerACL(t *testing.T) {
	fb := startFleetBroker(t)
	// rover-1 takes moving commands only signed by alice's key (its
	// configured patrol starts without one).
	_, opsKey, _ := ed25519.GenerateKey(rand.Reader)
	signer := &auth.Signer{KeyID: "alice", Key: opsKey}
	p := fb.startRobot(t, "rover-1", fmt.Sprintf("security:\n  require_signed_missions: true\n  public_keys: [\"alice:%s\"]\n",
		base64.StdEncoding.EncodeToString(opsKey.Public().(ed25519.PublicKey))))
	g, aliceID := fb.operator(t, "alice", true)
	r := &groundRec{g: g}
	if _, err := g.Watch("rover-1", ground.RobotHandlers{
		Connection: func(m protocol.ConnectionMsg) { r.mu.Lock(); r.conn = append(r.conn, m.State); r.mu.Unlock() },
		State:      func(m protocol.StateMsg) { r.mu.Lock(); r.states = append(r.states, m); r.mu.Unlock() },
	}); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "the patrol running", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeRunning && s.Mission != nil && s.Link.GCSOnline
	})
	r.mu.Lock()
	mission := r.lastState().Mission.ID
	r.mu.Unlock()

	undisturbed := func(t *testing.T) {
		t.Helper()
		// Everything queued for the robot's main connection before now
		// (an injected command included) is handled before this request,
		// and the state published for it shows the result.
		r.mu.Lock()
		n := len(r.states)
		r.mu.Unlock()
		if rep := r.send(t, "rover-1", protocol.Command{Op: protocol.OpStateRequest}); !rep.OK {
			t.Fatalf("state.request: %+v", rep.Error)
		}
		r.waitFor(t, "a fresh state", func(r *groundRec) bool { return len(r.states) > n })
		r.mu.Lock()
		defer r.mu.Unlock()
		s := r.lastState()
		if s.Mode != protocol.ModeRunning || s.Mission == nil || s.Mission.ID != mission {
			t.Errorf("mission disturbed: mode %s, mission %+v (want %s RUNNING)", s.Mode, s.Mission, mission)
		}
		online := 0
		for _, c := range r.conn {
			switch c {
			case protocol.ConnOnline:
				online++
			case protocol.ConnBroken, protocol.ConnOffline:
				t.Errorf("the robot's connection went %s", c)
			}
		}
		if online != 1 {
			t.Errorf("the robot came ONLINE %d times, want once (a reconnect)", online)
		}
		log := fb.log.String()
		for _, id := range []string{"rover-1", "rover-1-estop"} {
			if n := strings.Count(log, " as "+id+" ("); n != 1 {
				t.Errorf("the broker saw %s connect %d times, want once", id, n)
			}
			if strings.Contains(log, "Client "+id+" already connected") {
				t.Errorf("the broker closed %s's connection for another client", id)
			}
		}
	}

	t.Run("stranger", func(t *testing.T) {
		for _, c := range []struct {
			what, addr, user, pw string
			tlsOff               bool
		}{
			{"no credentials, robot listener", fb.robots, "", "", false},
			{"no credentials, operator listener", fb.operators, "", "", false},
			{"no credentials, observer listener", fb.observers, "", "", false},
			{"a robot's name, a wrong password", fb.robots, "rover-1", "guess", false},
			{"an operator's name, a wrong password", fb.operators, "alice", "guess", false},
			{"plain TCP to a TLS listener", fb.operators, "alice", fleetPassword("alice"), true},
			{"an operator on the robot listener", fb.robots, "alice", fleetPassword("alice"), false},
			{"a robot on the operator listener", fb.operators, "rover-2", fleetPassword("rover-2"), false},
		} {
			if _, err := fb.dialRaw(t, c.addr, c.user, c.pw, "botd-stranger-"+uuid.NewString()[:8], c.tlsOff); err == nil {
				t.Errorf("%s: the broker let it in", c.what)
			}
		}
		undisturbed(t)
	})

	t.Run("client id takeover", func(t *testing.T) {
		// Refused outright: ids without botd- (a robot's) on the ground
		// listeners.
		for _, c := range []struct{ addr, user, id string }{
			{fb.operators, "alice", "rover-1"},
			{fb.operators, "alice", "rover-1-estop"},
			{fb.observers, "olive", "rover-1"},
			{fb.observers, "olive", "rover-1-estop"},
		} {
			if _, err := fb.dialRaw(t, c.addr, c.user, fleetPassword(c.user), c.id, false); err == nil {
				t.Errorf("%s took client id %s", c.user, c.id)
			}
		}
		// Let in, but under its own id: the broker replaces a robot's
		// client id with its user name, and ground ids keep their botd-.
		for _, c := range []struct{ addr, user, id string }{
			{fb.robots, "rover-2", "botd-rover-1"},
			{fb.robots, "rover-2-estop", "botd-rover-1-estop"},
			{fb.operators, "alice", "botd-rover-1"},
			{fb.operators, "bob", "botd-rover-1-estop"},
		} {
			rc, err := fb.dialRaw(t, c.addr, c.user, fleetPassword(c.user), c.id, false)
			if err != nil {
				t.Errorf("%s as %s: %v", c.user, c.id, err)
				continue
			}
			rc.c.Disconnect(100)
		}
		undisturbed(t)
	})

	t.Run("robot posing as another robot", func(t *testing.T) {
		watcher, err := fb.dialRaw(t, fb.operators, "bob", fleetPassword("bob"), "botd-gcs-bob-watch", false)
		if err != nil {
			t.Fatal(err)
		}
		watcher.sub(t, "botd/v1/rover-1/state", "botd/v1/rover-1/status", "botd/v1/rover-1/reply", "botd/v1/rover-2/state")
		rover2, err := fb.dialRaw(t, fb.robots, "rover-2", fleetPassword("rover-2"), "botd-rover-2", false)
		if err != nil {
			t.Fatal(err)
		}
		rover2.pub(t, "botd/v1/rover-1/state", true, `{"forged":"state"}`)
		rover2.pub(t, "botd/v1/rover-1/status", false, `{"forged":"status"}`)
		rover2.pub(t, "botd/v1/rover-1/cmd", false, `{"id":"forged-abort","op":"mission.abort"}`)
		rover2.pub(t, "botd/v1/rover-1/estop", false, `{"id":"forged-estop"}`)
		// The robot's own topic goes through: once the watcher has it,
		// whatever rover-2 sent before would have arrived too.
		rover2.pub(t, "botd/v1/rover-2/state", false, `{"own":"state"}`)
		waitUntil(t, "rover-2's own state at the watcher", func() bool { return watcher.got("botd/v1/rover-2/state", "own") })
		for _, topic := range []string{"botd/v1/rover-1/state", "botd/v1/rover-1/status"} {
			if watcher.got(topic, "forged") {
				t.Errorf("rover-2 wrote %s", topic)
			}
		}
		undisturbed(t)
		if watcher.got("botd/v1/rover-1/reply", "forged-abort") {
			t.Error("rover-1 answered a command rover-2 sent")
		}
	})

	t.Run("robot posing as a ground station", func(t *testing.T) {
		rover2, err := fb.dialRaw(t, fb.robots, "rover-2", fleetPassword("rover-2"), "botd-rover-2", false)
		if err != nil {
			t.Fatal(err)
		}
		rover2.pub(t, "botd/v1/gcs/botd-gcs-ghost-1/state", true, `{"online":true,"gcs":"ghost"}`)
		rover2.pub(t, "botd/v1/gcs/rover-2/state", true, `{"online":true,"gcs":"rover-2"}`)
		// An operator cannot write another process's presence either.
		bob, err := fb.dialRaw(t, fb.operators, "bob", fleetPassword("bob"), "botd-gcs-bob-1", false)
		if err != nil {
			t.Fatal(err)
		}
		bob.pub(t, "botd/v1/gcs/"+aliceID+"/state", true, `{"online":false,"forged":"bob"}`)
		bob.pub(t, "botd/v1/gcs/botd-gcs-ghost-2/state", true, `{"online":true,"gcs":"ghost"}`)
		// A fresh reader of presence (robots read it) gets what is
		// retained: alice's presence, and nothing forged.
		kept := fb.retainedPresence(t)
		if !has(kept, "botd/v1/gcs/"+aliceID+"/state", `"online":true`) {
			t.Errorf("alice's presence is not retained (or was overwritten): %+v", kept)
		}
		for _, m := range kept {
			if strings.Contains(m.payload, "ghost") || strings.Contains(m.payload, "forged") || strings.Contains(m.topic, "rover-2") {
				t.Errorf("forged presence retained: %s %s", m.topic, m.payload)
			}
		}
		undisturbed(t)
	})

	t.Run("operators do not read each other's commands", func(t *testing.T) {
		bob, err := fb.dialRaw(t, fb.operators, "bob", fleetPassword("bob"), "botd-gcs-bob-2", false)
		if err != nil {
			t.Fatal(err)
		}
		bob.sub(t, "botd/v1/+/cmd", "botd/v1/+/estop", "botd/v1/rover-1/reply")
		id := "alice-" + uuid.NewString()
		if rep := r.send(t, "rover-1", protocol.Command{ID: id, Op: protocol.OpStateRequest}); !rep.OK {
			t.Fatalf("state.request: %+v", rep.Error)
		}
		waitUntil(t, "the reply at bob's", func() bool { return bob.got("botd/v1/rover-1/reply", id) })
		if bob.got("botd/v1/rover-1/cmd", id) {
			t.Error("bob read alice's command")
		}
	})

	t.Run("per-process presence", func(t *testing.T) {
		// A second process of the same operator (watch beside a
		// dashboard): its own id and presence.
		g2, id2 := fb.operator(t, "alice", true)
		if id2 == aliceID {
			t.Fatal("two processes got one id")
		}
		waitUntil(t, "both presences retained", func() bool {
			p := fb.retainedPresence(t)
			return has(p, "botd/v1/gcs/"+aliceID+"/state", `"online":true`) && has(p, "botd/v1/gcs/"+id2+"/state", `"online":true`)
		})
		if err := g2.Close(); err != nil {
			t.Fatal(err)
		}
		// The one that quit is cleared; the other one stays online, and
		// the robot still has its operator link.
		waitUntil(t, "the closed process's presence cleared", func() bool {
			return !has(fb.retainedPresence(t), "botd/v1/gcs/"+id2+"/state", "")
		})
		if p := fb.retainedPresence(t); !has(p, "botd/v1/gcs/"+aliceID+"/state", `"online":true`) {
			t.Errorf("the other process's presence went with it: %+v", p)
		}
		undisturbed(t)
		r.mu.Lock()
		if s := r.lastState(); !s.Link.GCSOnline {
			t.Errorf("the robot lost its operator link when another process quit: %+v", s.Link)
		}
		r.mu.Unlock()
	})

	t.Run("signed commands: an unsigned load, a replay, a changed argument, another robot's envelope", func(t *testing.T) {
		// bob is an operator: the ACL lets him write every robot's cmd
		// topic, so only the robot's signature check stands between his
		// commands and the wheels. The command alice signs is "captured"
		// by the test itself (operators cannot read each other's commands
		// here; a log, a misconfigured broker or a shoulder can leak one).
		bob, _ := fb.operator(t, "bob", false)
		send := func(c protocol.Command) protocol.Reply {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			rep, err := bob.Send(ctx, "rover-1", c)
			if err != nil {
				t.Fatalf("%s: %v", c.Op, err)
			}
			return rep
		}
		code := func(rep protocol.Reply) string {
			if rep.Error == nil {
				return "OK"
			}
			return rep.Error.Code
		}
		other := readMission(t, "hello.json")
		if rep := send(protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: other, Start: true, Replace: true}); code(rep) != protocol.ErrSignatureRequired {
			t.Errorf("an unsigned load with start and replace: %s, want %s", code(rep), protocol.ErrSignatureRequired)
		}
		if rep := send(protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionInject, Slot: "task", Tree: json.RawMessage(`{"type":"Drive","params":{"linear":0.5}}`)}); code(rep) != protocol.ErrSignatureRequired {
			t.Errorf("an unsigned inject: %s, want %s", code(rep), protocol.ErrSignatureRequired)
		}
		undisturbed(t)

		// alice's signed load stores a mission (no start): accepted.
		signed := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: other}
		if err := signer.Sign("rover-1", &signed); err != nil {
			t.Fatal(err)
		}
		if rep := r.send(t, "rover-1", signed); !rep.OK {
			t.Fatalf("alice's signed load: %+v", rep.Error)
		}
		for _, c := range []struct {
			what string
			edit func(*protocol.Command)
			want string
		}{
			{"the captured command under a new id", func(*protocol.Command) {}, protocol.ErrReplayed},
			{"with start and replace added", func(c *protocol.Command) { c.Start, c.Replace = true, true }, protocol.ErrBadSignature},
			{"as a mission.start", func(c *protocol.Command) { c.Op, c.Mission, c.MissionID = protocol.OpMissionStart, nil, "x" }, protocol.ErrBadSignature},
		} {
			replay := signed
			replay.ID = uuid.NewString()
			c.edit(&replay)
			if rep := send(replay); code(rep) != c.want {
				t.Errorf("%s: %s, want %s", c.what, code(rep), c.want)
			}
		}
		elsewhere := protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: other, Start: true, Replace: true}
		if err := signer.Sign("rover-2", &elsewhere); err != nil {
			t.Fatal(err)
		}
		if rep := send(elsewhere); code(rep) != protocol.ErrWrongRobot {
			t.Errorf("rover-2's envelope sent to rover-1: %s, want %s", code(rep), protocol.ErrWrongRobot)
		}
		undisturbed(t)
	})

	t.Run("the last operator leaving is seen", func(t *testing.T) {
		// The positive control of the link: with no ground station left,
		// the robot says so.
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		w, _ := fb.operator(t, "bob", false)
		seen := make(chan protocol.StateMsg, 64)
		if _, err := w.Watch("rover-1", ground.RobotHandlers{State: func(m protocol.StateMsg) {
			select {
			case seen <- m:
			default:
			}
		}}); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(20 * time.Second)
		for {
			select {
			case m := <-seen:
				if !m.Link.GCSOnline {
					if m.Mode != protocol.ModeRunning || m.Mission == nil || m.Mission.ID != mission {
						t.Errorf("mission disturbed: %s %+v", m.Mode, m.Mission)
					}
					p.stop(t)
					return
				}
			case <-deadline:
				t.Fatal("the robot never saw its last ground station leave")
			}
		}
	})
}
