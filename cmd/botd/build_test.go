package main

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A daemon that fails to start closes what it had opened: here telemetry
// refuses the topic prefix after the embedded broker is already listening,
// and the broker's port is free again when build returns.
func TestFailedStartClosesWhatItOpened(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	f := filepath.Join(dir, "botd.yaml")
	os.WriteFile(f, []byte("robot: r\nhardware: "+mustAbs(t, "../../configs/sim.yaml")+"\nstate_dir: "+dir+
		"\nbroker: {topic_prefix: 'a/+/b', embedded: {listen: '"+addr+"'}}\n"), 0o644)
	cfg, err := loadConfig(f)
	if err != nil {
		t.Skipf("the config itself is refused (%v); nothing to test past it", err)
	}
	s, err := build(cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		s.close()
		t.Fatal("built with a topic prefix holding a wildcard")
	}
	l, lerr := net.Listen("tcp", addr)
	if lerr != nil {
		t.Fatalf("the embedded broker still holds %s after a failed start (%v): %v", addr, err, lerr)
	}
	l.Close()
}

// The configured mission is validated before anything starts: the daemon
// refuses to run and says where the mission is wrong.
func TestDaemonRefusesABadConfiguredMission(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.json"), []byte(`{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Drive","params":{"linear":5}}}}`), 0o644)
	addr := freeAddr(t)
	f := filepath.Join(dir, "botd.yaml")
	os.WriteFile(f, []byte("robot: r\nhardware: "+mustAbs(t, "../../configs/sim.yaml")+"\nstate_dir: "+dir+
		"\nmission: m.json\nbroker: {embedded: {listen: '"+addr+"'}}\n"), 0o644)
	code, _, stderr := runCmd(t, "-config", f)
	if code == 0 || !strings.Contains(stderr, "/trees/m/params/linear") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the broker was started for a config that cannot run: %v", err)
	}
	l.Close()
}
