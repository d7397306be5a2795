package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/gpio"
	"github.com/botd-project/botd/drivers/gps"
)

// What a first-time Pi user trips on before a device is ever opened: an
// interface left off in raspi-config, a user not in the group that owns
// the device files, a daemon still running and holding the pins, the
// wrong binary for the OS. hwcheck finds them from the device files and
// /proc, and says what to do (docs/HARDWARE.md, "Setting up the Pi").

// hostView is the machine hwtest checks: a root directory (/ on the
// robot, a directory of files in tests), the process's ids and groups.
type hostView struct {
	root   string
	euid   int
	groups []int // the process's group ids, the primary one included
	self   int   // this process's pid (not another botd)
}

func thisHost() hostView {
	groups, _ := os.Getgroups()
	return hostView{root: "/", euid: os.Geteuid(), groups: append(groups, os.Getegid()), self: os.Getpid()}
}

func (h hostView) path(p string) string { return filepath.Join(h.root, p) }

// hwNote is one finding: a problem (something will fail) or a hint.
type hwNote struct {
	Problem bool   `json:"problem"`
	What    string `json:"what"`
	Fix     string `json:"fix,omitempty"`
	// stop: hwtest must not open the devices (another daemon holds them)
	stop bool
}

func (n hwNote) String() string {
	s := "note: "
	if n.Problem {
		s = "problem: "
	}
	s += n.What
	if n.Fix != "" {
		s += "\n    fix: " + n.Fix
	}
	return s
}

// hwNeeds are the device files a hardware config opens on a Pi.
type hwNeeds struct {
	raspi     bool
	pwm       map[string]bool // "pi-blaster", "sysfs"
	i2cBuses  []int
	serial    []string // serial ports (GPS, a MAVLink vehicle on a serial port)
	realBoard bool     // any board but the simulator
}

// needsOf reads them from the hardware YAML. It reads the file as plain
// YAML rather than drivers' types: only the fields that name device files
// (an adaptor's kind and pwm, a device's adaptor, bus, adc.bus, port and a
// serial connection), whichever package a kind's config lives in.
func needsOf(hwYAML []byte) hwNeeds {
	var doc struct {
		Adaptors map[string]struct {
			Kind string `yaml:"kind"`
			PWM  string `yaml:"pwm"`
		} `yaml:"adaptors"`
		Devices []struct {
			Kind    string `yaml:"kind"`
			Adaptor string `yaml:"adaptor"`
			Bus     *int   `yaml:"bus"`
			ADC     *struct {
				Bus *int `yaml:"bus"`
			} `yaml:"adc"`
			Port       string `yaml:"port"`
			Connection string `yaml:"connection"`
		} `yaml:"devices"`
	}
	n := hwNeeds{pwm: map[string]bool{}}
	if yaml.Unmarshal(hwYAML, &doc) != nil {
		return n // drivers reports what is wrong with the file
	}
	only := ""
	for _, a := range doc.Adaptors {
		only = a.Kind
		if a.Kind == drivers.BoardRaspi {
			n.raspi = true
			pwm := a.PWM
			if pwm == "" {
				pwm = "pi-blaster"
			}
			n.pwm[pwm] = true
		}
		if a.Kind != drivers.BoardSim {
			n.realBoard = true
		}
	}
	for _, d := range doc.Devices {
		board := doc.Adaptors[d.Adaptor].Kind
		if d.Adaptor == "" && len(doc.Adaptors) == 1 {
			board = only
		}
		bus := func(b *int) {
			if board != drivers.BoardRaspi {
				return
			}
			v := 1 // the Pi's default bus, on header pins 3 and 5
			if b != nil {
				v = *b
			}
			if !slices.Contains(n.i2cBuses, v) {
				n.i2cBuses = append(n.i2cBuses, v)
			}
		}
		switch d.Kind {
		case gpio.KindIMU:
			bus(d.Bus)
		case gpio.KindBattery:
			if d.ADC != nil {
				bus(d.ADC.Bus)
			}
		case gps.Kind:
			if board != drivers.BoardSim {
				p := d.Port
				if p == "" {
					p = "/dev/serial0"
				}
				n.serial = append(n.serial, p)
			}
		}
		if rest, ok := strings.CutPrefix(d.Connection, "serial://"); ok {
			if i := strings.LastIndexByte(rest, ':'); i > 0 {
				rest = rest[:i]
			}
			n.serial = append(n.serial, rest)
			n.realBoard = true
		}
	}
	return n
}

// groupName is the name of group gid in the host's /etc/group, or its number.
func (h hostView) groupName(gid int) string {
	f, err := os.Open(h.path("/etc/group"))
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Split(sc.Text(), ":")
			if len(fields) >= 3 && fields[2] == strconv.Itoa(gid) {
				return fields[0]
			}
		}
	}
	return strconv.Itoa(gid)
}

// checkDevice says what keeps this process from opening a device file:
// missing (missing says why and how to turn it on) or not readable and
// writable by this user (then the group to join).
func (h hostView) checkDevice(dev, missing, enable string) []hwNote {
	fi, err := os.Stat(h.path(dev))
	if err != nil {
		return []hwNote{{Problem: true, What: fmt.Sprintf("%s does not exist: %s", dev, missing), Fix: enable}}
	}
	uid, gid, ok := fileOwner(fi)
	if !ok || h.euid == 0 {
		return nil
	}
	mode := fi.Mode().Perm()
	switch {
	case uid == h.euid && mode&0o600 == 0o600,
		slices.Contains(h.groups, gid) && mode&0o060 == 0o060,
		mode&0o006 == 0o006:
		return nil
	}
	group := h.groupName(gid)
	if mode&0o060 != 0o060 {
		return []hwNote{{Problem: true, What: fmt.Sprintf("%s is not readable and writable by this user (mode %v)", dev, mode),
			Fix: "run hwtest as the user the daemon runs as (botd), or fix the device's udev rule"}}
	}
	return []hwNote{{Problem: true, What: fmt.Sprintf("%s belongs to group %s, and this process is not in it", dev, group),
		Fix: fmt.Sprintf("sudo usermod -aG %s $USER, then log out and in again (a new group counts only in a new login; the botd package's user is in it already)", group)}}
}

// hwPreflight checks the machine for what hw needs, before any device is
// opened.
func hwPreflight(h hostView, hwYAML []byte) []hwNote {
	n := needsOf(hwYAML)
	var notes []hwNote
	if n.realBoard {
		notes = append(notes, h.otherBotd()...)
	}
	if n.raspi {
		notes = append(notes, h.archNote()...)
		notes = append(notes, h.checkDevice("/dev/gpiochip0",
			"botd drives the header's GPIO through the kernel's GPIO character device, which every Raspberry Pi OS image has: is this a Raspberry Pi?",
			"use a Raspberry Pi OS (or Debian/Ubuntu for the Pi) image with a kernel of 5.10 or later")...)
		if n.pwm["pi-blaster"] {
			if _, err := os.Stat(h.path("/dev/pi-blaster")); err != nil {
				notes = append(notes, hwNote{Problem: true, What: "/dev/pi-blaster does not exist: the pi-blaster daemon, which makes the PWM (motor speed, servos), is not running",
					Fix: "install pi-blaster and start it for the config's PWM pins by BCM number, e.g. sudo pi-blaster --gpio 12,13,18 (or set the adaptor's pwm: sysfs)"})
			}
		}
		if n.pwm["sysfs"] {
			notes = append(notes, h.checkDevice("/sys/class/pwm/pwmchip0",
				"the hardware PWM channels are off",
				"add dtoverlay=pwm-2chan to /boot/firmware/config.txt (/boot/config.txt on older images) and reboot")...)
		}
		for _, b := range n.i2cBuses {
			notes = append(notes, h.checkDevice(fmt.Sprintf("/dev/i2c-%d", b),
				fmt.Sprintf("I2C bus %d is off (Raspberry Pi OS ships with I2C disabled)", b),
				"sudo raspi-config nonint do_i2c 0 (or raspi-config, Interface Options, I2C, Yes), then reboot; i2cdetect -y 1 lists what answers")...)
		}
	}
	for _, p := range n.serial {
		notes = append(notes, h.checkDevice(p,
			"the serial port is off (on a Pi the UART on header pins 8 and 10 is /dev/serial0, off by default)",
			"raspi-config, Interface Options, Serial Port: login shell No, serial hardware Yes; then reboot")...)
		if strings.HasPrefix(p, "/dev/serial0") || strings.HasPrefix(p, "/dev/ttyAMA0") || strings.HasPrefix(p, "/dev/ttyS0") {
			if cmdline, err := os.ReadFile(h.path("/proc/cmdline")); err == nil {
				for _, f := range strings.Fields(string(cmdline)) {
					if c, ok := strings.CutPrefix(f, "console="); ok && (strings.HasPrefix(c, "serial0") || strings.HasPrefix(c, "ttyAMA0") || strings.HasPrefix(c, "ttyS0")) {
						notes = append(notes, hwNote{Problem: true, What: "the kernel's serial console is on the UART (" + f + " in /proc/cmdline): a login shell would talk over the GPS or autopilot",
							Fix: "raspi-config, Interface Options, Serial Port: login shell No, serial hardware Yes; then reboot"})
						break
					}
				}
			}
		}
	}
	return notes
}

// otherBotd finds other botd processes: a daemon holding the pins makes
// every device fail to open, or worse, both drive them.
func (h hostView) otherBotd() []hwNote {
	entries, err := os.ReadDir(h.path("/proc"))
	if err != nil {
		return nil
	}
	var notes []hwNote
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == h.self {
			continue
		}
		comm, err := os.ReadFile(h.path(fmt.Sprintf("/proc/%d/comm", pid)))
		if err != nil || strings.TrimSpace(string(comm)) != "botd" {
			continue
		}
		cmd, _ := os.ReadFile(h.path(fmt.Sprintf("/proc/%d/cmdline", pid)))
		args := strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(args) > 1 && args[1] == "hwtest" {
			continue
		}
		notes = append(notes, hwNote{Problem: true, stop: true,
			What: fmt.Sprintf("botd is running (pid %d: %s) and may hold the pins this test opens", pid, strings.Join(args, " ")),
			Fix:  "stop it first (sudo systemctl stop botd), run hwtest, then start it again (sudo systemctl start botd)"})
	}
	return notes
}

// archNote says which of the release binaries fits this Pi, when this one
// is not it.
func (h hostView) archNote() []hwNote {
	model, _ := os.ReadFile(h.path("/proc/device-tree/model"))
	m := strings.TrimRight(string(model), "\x00\n")
	machine := ""
	if h.root == "/" {
		machine = unameMachine()
	}
	if machine == "" {
		if b, err := os.ReadFile(h.path("/proc/sys/kernel/arch")); err == nil {
			machine = strings.TrimSpace(string(b))
		}
	}
	goarm := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOARM" {
				goarm = s.Value
			}
		}
	}
	return archAdvice(m, machine, runtime.GOARCH, goarm)
}

// archAdvice compares the machine (uname -m: aarch64, armv7l, armv6l)
// with the binary (GOARCH, GOARM).
func archAdvice(model, machine, goarch, goarm string) []hwNote {
	if machine == "" {
		return nil
	}
	if model == "" {
		model = "this machine"
	}
	bin := goarch
	if goarch == "arm" {
		bin = "armv" + strings.SplitN(goarm, ",", 2)[0]
	}
	switch {
	case machine == "aarch64" && goarch == "arm":
		return []hwNote{{What: fmt.Sprintf("%s runs a 64-bit OS (aarch64) and this is the 32-bit %s binary: it works, but botd-linux-arm64 (or the arm64 .deb) is the one for this OS", model, bin)}}
	case (machine == "armv7l" || machine == "armv8l") && goarch == "arm" && goarm != "" && goarm[0] == '6':
		return []hwNote{{What: fmt.Sprintf("%s runs a 32-bit ARMv7 OS and this is the armv6 binary: it works (the armhf .deb carries it for every 32-bit Pi); botd-linux-armv7 is built for this CPU", model)}}
	}
	return nil
}
