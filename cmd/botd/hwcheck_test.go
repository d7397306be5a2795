package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeHost builds a machine's files under a temporary root: path ->
// content, with mode 0o660 unless modes says otherwise. The files'
// group is the test's own; /etc/group names it as group.
func fakeHost(t *testing.T, group string, files map[string]string, modes map[string]os.FileMode) hostView {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o660)
		if m, ok := modes[p]; ok {
			mode = m
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	gid := int(fi.Sys().(*syscall.Stat_t).Gid)
	_ = os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "etc/group"), []byte(group+":x:"+strconv.Itoa(gid)+":pi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// not root, and not in the files' group
	return hostView{root: root, euid: 4242, groups: []int{4243}, self: 1}
}

const piHardware = `adaptors:
  pi: {kind: raspi}
devices:
  - {name: imu, kind: imu, address: 0x68}
  - {name: battery, kind: battery, adc: {address: 0x48, bus: 3}}
  - {name: gps, kind: gps}
`

// A Pi as a first-time user leaves it: I2C off, the user not in dialout,
// the serial console on the UART, pi-blaster not started, the daemon
// still running. Each is found and comes with what to do; the GPIO chip,
// open to everyone, is no problem.
func TestHWPreflightFreshPi(t *testing.T) {
	h := fakeHost(t, "dialout", map[string]string{
		"/dev/gpiochip0":          "",
		"/dev/serial0":            "",
		"/dev/i2c-3":              "",
		"/proc/cmdline":           "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4",
		"/proc/77/comm":           "botd\n",
		"/proc/77/cmdline":        "/usr/bin/botd\x00-config\x00/etc/botd/botd.yaml\x00",
		"/proc/78/comm":           "botd\n",
		"/proc/78/cmdline":        "botd\x00hwtest\x00",
		"/proc/device-tree/model": "Raspberry Pi 4 Model B Rev 1.4\x00",
	}, map[string]os.FileMode{"/dev/gpiochip0": 0o666, "/dev/i2c-3": 0o666, "/proc/cmdline": 0o644})
	notes := hwPreflight(h, []byte(piHardware))
	var text []string
	stops := 0
	for _, n := range notes {
		text = append(text, n.String())
		if n.stop {
			stops++
		}
	}
	all := strings.Join(text, "\n")
	t.Logf("\n%s", all)
	for _, want := range []string{
		"problem: botd is running (pid 77: /usr/bin/botd -config /etc/botd/botd.yaml)", "sudo systemctl stop botd",
		"/dev/pi-blaster does not exist", "pi-blaster --gpio",
		"/dev/i2c-1 does not exist: I2C bus 1 is off", "raspi-config nonint do_i2c 0",
		"/dev/serial0 belongs to group dialout, and this process is not in it", "sudo usermod -aG dialout $USER",
		"serial console is on the UART (console=serial0,115200", "login shell No",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, not := range []string{"gpiochip0", "i2c-3", "pid 78"} {
		if strings.Contains(all, not) {
			t.Errorf("%q is no problem here", not)
		}
	}
	if stops != 1 {
		t.Errorf("%d notes stop the test, want 1 (the running daemon)", stops)
	}

	// The user joined the group (and logged in again): the port is fine.
	h.groups = append(h.groups, groupOf(t, h.path("/dev/serial0")))
	for _, n := range hwPreflight(h, []byte(piHardware)) {
		if strings.Contains(n.What, "serial0 belongs") {
			t.Errorf("in the group, still: %v", n)
		}
	}
	// root opens anything
	h.euid = 0
	for _, n := range hwPreflight(h, []byte(piHardware)) {
		if strings.Contains(n.What, "belongs to group") {
			t.Errorf("as root: %v", n)
		}
	}
}

func groupOf(t *testing.T, p string) int {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Gid)
}

// The simulated rover needs nothing of the machine, and a running
// daemon of its own holds no pins.
func TestHWPreflightSim(t *testing.T) {
	h := fakeHost(t, "gpio", map[string]string{"/proc/77/comm": "botd\n", "/proc/77/cmdline": "botd\x00"}, nil)
	sim, err := os.ReadFile("../../configs/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if notes := hwPreflight(h, sim); len(notes) != 0 {
		t.Errorf("notes for the simulator: %v", notes)
	}
}

func TestNeedsOfRoverConfig(t *testing.T) {
	data, err := os.ReadFile("../../configs/rover-raspi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := needsOf(data)
	if !n.raspi || !n.realBoard || !n.pwm["pi-blaster"] || !slices.Equal(n.i2cBuses, []int{1}) || len(n.serial) != 0 {
		t.Errorf("%+v", n)
	}
	n = needsOf([]byte("adaptors: {pi: {kind: raspi, pwm: sysfs}}\ndevices:\n  - {name: v, kind: mavlink_vehicle, connection: 'serial:///dev/ttyACM0:57600'}\n"))
	if !n.pwm["sysfs"] || !slices.Equal(n.serial, []string{"/dev/ttyACM0"}) {
		t.Errorf("%+v", n)
	}
}

func TestArchAdvice(t *testing.T) {
	for _, c := range []struct{ model, machine, goarch, goarm, want string }{
		{"Raspberry Pi 4 Model B", "aarch64", "arm", "7", "botd-linux-arm64"},
		{"Raspberry Pi 3 Model B", "armv7l", "arm", "6,softfloat", "botd-linux-armv7"},
		{"Raspberry Pi Zero W", "armv6l", "arm", "6", ""},
		{"Raspberry Pi 5", "aarch64", "arm64", "", ""},
		{"Raspberry Pi 3 Model B", "armv7l", "arm", "7", ""},
	} {
		notes := archAdvice(c.model, c.machine, c.goarch, c.goarm)
		got := ""
		if len(notes) == 1 && !notes[0].Problem {
			got = notes[0].What
		}
		if (c.want == "") != (len(notes) == 0) || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %v", c, notes)
		}
	}
}

// hwtest refuses to open the devices while botd runs: another process,
// or the daemon of the same config (its state directory's lock).
func TestHWTestRefusesWhileDaemonRuns(t *testing.T) {
	skipHWTestOffLinux(t)
	old := testHost
	t.Cleanup(func() { testHost = old })
	dir := t.TempDir()
	conf := filepath.Join(dir, "botd.yaml")
	os.WriteFile(conf, []byte("robot: r1\nstate_dir: "+dir+"/state\nhardware: "+mustAbs(t, "../../configs/rover-raspi.yaml")+"\n"), 0o644)

	testHost = fakeHost(t, "gpio", map[string]string{"/proc/77/comm": "botd\n", "/proc/77/cmdline": "botd\x00"}, nil)
	code, out, stderr := runCmd(t, "hwtest", "-hardware", "../../configs/rover-raspi.yaml", "-wait", "100ms")
	if code != 1 || !strings.Contains(out, "botd is running (pid 77: botd)") || !strings.Contains(stderr, "not testing") || strings.Contains(out, "DEVICE") {
		t.Errorf("another botd: exit %d\n%s\n%s", code, out, stderr)
	}

	testHost = fakeHost(t, "gpio", nil, nil)
	os.MkdirAll(dir+"/state", 0o700)
	lock, err := lockStateDir(dir+"/state", "r1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCmd(t, "hwtest", "-config", conf, "-wait", "100ms")
	lock.Close()
	if code != 1 || !strings.Contains(out, "the daemon of this config is running") || !strings.Contains(stderr, "not testing") || strings.Contains(out, "DEVICE") {
		t.Errorf("the config's daemon: exit %d\n%s\n%s", code, out, stderr)
	}
}
