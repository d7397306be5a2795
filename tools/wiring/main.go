// Command wiring draws docs/wiring/KIND.svg: how each device kind botd
// drives is wired to a Raspberry Pi's 40-pin header, one diagram per
// kind, from the table below. The pins of the kinds the reference rover
// has are that rover's (configs/rover-raspi.yaml; the test checks them);
// the others use header pins the rover leaves free.
//
//	go run ./tools/wiring            # rewrite docs/wiring/*.svg
//	go run ./tools/wiring -check     # fail if a file differs from what it would write
package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// A wire joins a pin of the Pi's header to a pin of the module.
type wire struct {
	header int    // header pin number, 1-40
	module string // the module's pin
	role   string // power3, power5, ground, i2c, signal, pwm, uart
	via    string // a part on the way (a resistor, a level shifter), or ""
}

// A diagram is one kind's wiring.
type diagram struct {
	kind   string
	module string   // the part wired
	wires  []wire   // to the Pi's header
	off    []string // the module's other connections, off the Pi
	notes  []string
}

// bcm is the Broadcom GPIO number of each GPIO pin of the 40-pin header.
var bcm = map[int]int{3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10,
	21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}

// power names the header's other pins.
var power = map[int]string{1: "3V3", 17: "3V3", 2: "5V", 4: "5V", 6: "GND", 9: "GND", 14: "GND", 20: "GND", 25: "GND", 30: "GND", 34: "GND", 39: "GND"}

func pinName(h int) string {
	if p, ok := power[h]; ok {
		return fmt.Sprintf("pin %d · %s", h, p)
	}
	if b, ok := bcm[h]; ok {
		switch b {
		case 2:
			return fmt.Sprintf("pin %d · GPIO%d (SDA1)", h, b)
		case 3:
			return fmt.Sprintf("pin %d · GPIO%d (SCL1)", h, b)
		case 14:
			return fmt.Sprintf("pin %d · GPIO%d (TXD)", h, b)
		case 15:
			return fmt.Sprintf("pin %d · GPIO%d (RXD)", h, b)
		}
		return fmt.Sprintf("pin %d · GPIO%d", h, b)
	}
	return fmt.Sprintf("pin %d", h)
}

var colours = map[string]string{
	"power3": "#e67e22", "power5": "#c0392b", "ground": "#222222", "i2c": "#2471a3",
	"signal": "#1e8449", "pwm": "#7d3c98", "uart": "#17a589",
}

var diagrams = []diagram{
	{kind: "diff_drive", module: "TB6612FNG motor driver", wires: []wire{
		{32, "PWMA", "pwm", ""}, {29, "AIN1", "signal", ""}, {31, "AIN2", "signal", ""},
		{33, "PWMB", "pwm", ""}, {35, "BIN1", "signal", ""}, {37, "BIN2", "signal", ""},
		{1, "VCC", "power3", ""}, {17, "STBY", "power3", ""}, {6, "GND", "ground", ""},
	}, off: []string{"VM ← battery + (through the power switch)", "AO1, AO2 → left motor", "BO1, BO2 → right motor", "GND ← battery −"},
		notes: []string{"PWM by pi-blaster: sudo pi-blaster --gpio 12,13", "config: left {speed: \"32\", forward: \"29\", backward: \"31\"}, right {speed: \"33\", forward: \"35\", backward: \"37\"}", "An L298N: ENA/IN1/IN2 and ENB/IN3/IN4 on the same pins, jumpers off"}},
	{kind: "servo", module: "SG90 micro servo", wires: []wire{
		{12, "signal (orange)", "pwm", ""}, {14, "GND (brown)", "ground", ""},
	}, off: []string{"+5 V (red) ← the buck converter's 5 V, not the Pi's header"},
		notes: []string{"PWM by pi-blaster: sudo pi-blaster --gpio 18", "config: pin: \"12\""}},
	{kind: "led", module: "LED", wires: []wire{
		{7, "anode (long leg)", "signal", "330 Ω"}, {9, "cathode", "ground", ""},
	}, notes: []string{"config: pin: \"7\"", "330 Ω keeps the current near 4 mA at 3.3 V"}},
	{kind: "relay", module: "relay module (5 V coil, optocoupled)", wires: []wire{
		{22, "IN", "signal", ""}, {2, "VCC", "power5", ""}, {25, "GND", "ground", ""},
	}, off: []string{"COM, NO → the load's circuit"},
		notes: []string{"config: pin: \"22\" (most modules switch on a low input: active_low: true)", "a free pin of the rover; any GPIO pin will do"}},
	{kind: "buzzer", module: "active buzzer (3.3 V)", wires: []wire{
		{36, "+", "signal", ""}, {34, "−", "ground", ""},
	}, notes: []string{"config: pin: \"36\"", "a buzzer drawing over 16 mA needs a transistor (NPN, base through 1 kΩ)"}},
	{kind: "digital_out", module: "logic-level MOSFET module", wires: []wire{
		{26, "SIG", "signal", ""}, {30, "GND", "ground", ""},
	}, off: []string{"V+, V− ← the load's supply", "OUT+, OUT− → the load"},
		notes: []string{"config: pin: \"26\"", "a free pin of the rover; any GPIO pin will do"}},
	{kind: "pwm_out", module: "logic-level MOSFET module (a fan, a lamp)", wires: []wire{
		{19, "PWM", "pwm", ""}, {20, "GND", "ground", ""},
	}, off: []string{"V+, V− ← the load's supply", "OUT+, OUT− → the load"},
		notes: []string{"PWM by pi-blaster: sudo pi-blaster --gpio 10", "config: pin: \"19\""}},
	{kind: "range", module: "HC-SR04 ultrasonic range finder", wires: []wire{
		{16, "TRIG", "signal", ""}, {18, "ECHO", "signal", "level shifter 5 V → 3.3 V"},
		{4, "VCC", "power5", ""}, {6, "GND", "ground", ""},
	}, notes: []string{"ECHO is 5 V: through a level shifter (BSS138) or a 1 kΩ / 2 kΩ divider, never straight", "config: trig: \"16\", echo: \"18\""}},
	{kind: "battery", module: "ADS1115 ADC", wires: []wire{
		{3, "SDA", "i2c", ""}, {5, "SCL", "i2c", ""}, {1, "VDD", "power3", ""}, {9, "GND, ADDR", "ground", ""},
	}, off: []string{"A0 ← pack + through 100 kΩ, A0 → 27 kΩ → GND"},
		notes: []string{"I2C bus 1, address 0x48 (ADDR to GND): enable I2C in raspi-config", "config: adc: {kind: ads1115, bus: 1, address: 0x48}, pin: \"0\", scale: {raw_max: 32767, volts_max: 19.27}"}},
	{kind: "imu", module: "MPU6050 (GY-521)", wires: []wire{
		{3, "SDA", "i2c", ""}, {5, "SCL", "i2c", ""}, {1, "VCC", "power3", ""}, {9, "GND, AD0", "ground", ""},
	}, notes: []string{"I2C bus 1, address 0x68 (AD0 to GND): enable I2C in raspi-config", "config: bus: 1, address: 0x68"}},
	{kind: "bump", module: "microswitch (bumper)", wires: []wire{
		{11, "C", "signal", ""}, {14, "NO", "ground", ""},
	}, notes: []string{"the pin's pull-up holds it high; pressed reads low", "config: pin: \"11\", active_low: true"}},
	{kind: "odometry", module: "two quadrature Hall encoders", wires: []wire{
		{13, "left A", "signal", ""}, {15, "left B", "signal", ""}, {38, "right A", "signal", ""}, {40, "right B", "signal", ""},
		{1, "VCC (both)", "power3", ""}, {39, "GND (both)", "ground", ""},
	}, notes: []string{"powered from 3.3 V, so their outputs never exceed what the pins take", "config: encoders: {left: {a: \"13\", b: \"15\"}, right: {a: \"38\", b: \"40\"}, pull_up: true}"}},
	{kind: "gps", module: "GPS receiver (u-blox NEO-6M/M8N)", wires: []wire{
		{8, "RX", "uart", ""}, {10, "TX", "uart", ""}, {17, "VCC", "power3", ""}, {6, "GND", "ground", ""},
	}, notes: []string{"the UART is /dev/serial0: raspi-config, Serial Port: login shell No, hardware Yes", "config: port: /dev/serial0, baud: 9600"}},
	{kind: "mavlink_vehicle", module: "flight controller (TELEM2 port)", wires: []wire{
		{8, "RX", "uart", ""}, {10, "TX", "uart", ""}, {6, "GND", "ground", ""},
	}, notes: []string{"TELEM2 at 57600 baud, MAVLink 2; leave its 5 V unconnected", "config: connection: serial:///dev/serial0:57600 (or serial:///dev/ttyACM0:57600 over USB)"}},
}

const (
	width   = 860
	rowH    = 34
	top     = 92
	piX     = 30
	piW     = 230
	modX    = 560
	modW    = 270
	padW    = 14
	fontCSS = `font-family="DejaVu Sans, Arial, sans-serif"`
)

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// svg draws one diagram.
func svg(d diagram) []byte {
	rows := len(d.wires)
	boxH := rows*rowH + 20
	legendY := top + boxH + 24
	textY := legendY + 34
	height := textY + 22*(len(d.off)+len(d.notes)) + 20
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="14">`+"\n", width, height, width, height, fontCSS)
	fmt.Fprintf(&b, "<title>%s: wiring to a Raspberry Pi</title>\n", esc(d.kind))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="32" font-size="20" font-weight="bold">%s</text>`+"\n", piX, esc(d.kind+": "+d.module))
	fmt.Fprintf(&b, `<text x="%d" y="54" fill="#555555">Raspberry Pi 40-pin header (pin numbers as in the config) → %s</text>`+"\n", piX, esc(d.module))
	// the two boxes
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#e9f7ef" stroke="#1e8449" stroke-width="2"/>`+"\n", piX, top, piW, boxH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">Raspberry Pi</text>`+"\n", piX+10, top-6)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#eaf2f8" stroke="#2471a3" stroke-width="2"/>`+"\n", modX, top, modW, boxH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", modX+10, top-6, esc(d.module))
	for i, w := range d.wires {
		y := top + 20 + i*rowH + rowH/2 - 4
		c := colours[w.role]
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", piX+12, y+5, esc(pinName(w.header)))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", piX+piW-padW/2, y-padW/2, padW, padW, c)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", modX-padW/2, y-padW/2, padW, padW, c)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", modX+14, y+5, esc(w.module))
		x1, x2 := piX+piW+padW/2, modX-padW/2
		if w.via == "" {
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", x1, y, x2, y, c)
			continue
		}
		// the part sits in the middle of the wire
		mid := (x1 + x2) / 2
		pw := 9*len([]rune(w.via)) + 16
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", x1, y, mid-pw/2, y, c)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", mid+pw/2, y, x2, y, c)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="22" rx="4" fill="#fdf2e9" stroke="#7e5109"/>`+"\n", mid-pw/2, y-11, pw)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="13">%s</text>`+"\n", mid, y+5, esc(w.via))
	}
	y := textY
	for _, o := range d.off {
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", piX, y, esc("• "+o))
		y += 22
	}
	for _, n := range d.notes {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555555">%s</text>`+"\n", piX, y, esc(n))
		y += 22
	}
	// legend
	roles := []string{"power5", "power3", "ground", "signal", "pwm", "i2c", "uart"}
	names := map[string]string{"power5": "5 V", "power3": "3.3 V", "ground": "GND", "signal": "GPIO", "pwm": "PWM", "i2c": "I2C", "uart": "UART"}
	x := piX
	for _, r := range roles {
		if !slices.ContainsFunc(d.wires, func(w wire) bool { return w.role == r }) {
			continue
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>`+"\n", x, legendY-11, colours[r], x+16, legendY, names[r])
		x += 70
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// gpioPins are the diagram's header pins that are GPIOs (not power or ground).
func (d diagram) gpioPins() []string {
	var out []string
	for _, w := range d.wires {
		if _, ok := bcm[w.header]; ok && w.role != "i2c" && w.role != "uart" {
			out = append(out, strconv.Itoa(w.header))
		}
	}
	slices.Sort(out)
	return out
}

func main() {
	dir := flag.String("dir", "docs/wiring", "where the diagrams go")
	check := flag.Bool("check", false, "only check that the files are up to date")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil && !*check {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stale := 0
	for _, d := range diagrams {
		p := filepath.Join(*dir, d.kind+".svg")
		want := svg(d)
		if *check {
			if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
				fmt.Fprintln(os.Stderr, "out of date:", p)
				stale++
			}
			continue
		}
		if err := os.WriteFile(p, want, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if stale > 0 {
		fmt.Fprintln(os.Stderr, "run: go run ./tools/wiring")
		os.Exit(1)
	}
}
