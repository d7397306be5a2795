package drivers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// piHeader maps the GPIO pins of the 40-pin Raspberry Pi header (board revision 3: every Pi since
// the B+) to their BCM numbers. Gobot's raspi adaptor names pins by header number, so "11" is
// BCM 17.
var piHeader = map[string]int{
	"3": 2, "5": 3, "7": 4, "8": 14, "10": 15, "11": 17, "12": 18, "13": 27, "15": 22, "16": 23,
	"18": 24, "19": 10, "21": 9, "22": 25, "23": 11, "24": 8, "26": 7, "29": 5, "31": 6, "32": 12,
	"33": 13, "35": 19, "36": 16, "37": 26, "38": 20, "40": 21,
}

// boardRules says which pins and buses a board has.
type boardRules interface {
	checkPin(mode PinMode, pin string) string // "" when the board can do mode on pin
	checkBus(bus int) string
}

func rulesFor(a *AdaptorConfig) boardRules {
	switch a.Kind {
	case BoardRaspi:
		return raspiRules{pwm: a.PWM}
	case BoardFirmata:
		return firmataRules{}
	}
	return simRules{}
}

// DefaultBus is the i2c bus a device on a board of the kind uses unless its section names one.
func DefaultBus(board string) int {
	if board == BoardFirmata {
		return 0
	}
	return 1
}

// BoardLimited is a Spec whose kind some boards cannot host.
type BoardLimited interface {
	Spec
	// BoardProblem says why a board of the kind ("sim", "raspi", "firmata") cannot host the
	// device, or "".
	BoardProblem(board string) string
}

// boardSupports returns why a board cannot host a device, or "".
func boardSupports(a *AdaptorConfig, s Spec) string {
	if bl, ok := s.(BoardLimited); ok {
		return bl.BoardProblem(a.Kind)
	}
	return ""
}

func checkPiHeader(pin string) string {
	if _, ok := piHeader[pin]; ok {
		return ""
	}
	msg := fmt.Sprintf("%q is not a GPIO pin of the Pi header (gobot's raspi names pins by header number: %s)", pin, strings.Join(headerPins(), ", "))
	if n, err := strconv.Atoi(pin); err == nil {
		for h, bcm := range piHeader {
			if bcm == n {
				msg += fmt.Sprintf("; BCM %d is header pin %s", n, h)
			}
		}
	}
	return msg
}

func headerPins() []string {
	out := make([]string, 0, len(piHeader))
	for p := range piHeader {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i])
		b, _ := strconv.Atoi(out[j])
		return a < b
	})
	return out
}

// simRules: the simulated board is Pi-shaped (its default wiring uses header numbers), so its
// digital pins are the Pi header's, and its analog inputs are A0..A7.
type simRules struct{}

func (simRules) checkPin(mode PinMode, pin string) string {
	if mode == PinAnalog {
		if len(pin) == 2 && pin[0] == 'A' && pin[1] >= '0' && pin[1] <= '7' {
			return ""
		}
		return fmt.Sprintf("%q is not an analog input of the sim board (A0..A7)", pin)
	}
	return checkPiHeader(pin)
}

func (simRules) checkBus(bus int) string {
	if bus < 0 {
		return fmt.Sprintf("i2c bus %d: must be >= 0", bus)
	}
	return ""
}

type raspiRules struct{ pwm string }

func (r raspiRules) checkPin(mode PinMode, pin string) string {
	switch mode {
	case PinAnalog:
		return "the Raspberry Pi has no analog inputs: put an i2c ADC in front (adc: {kind: ads1115})"
	case PinPWM, PinServo:
		if r.pwm == "sysfs" {
			if pin == "pwm0" || pin == "pwm1" {
				return ""
			}
			return fmt.Sprintf("%q: with pwm: sysfs only the hardware channels pwm0 and pwm1 can do PWM (or use pwm: pi-blaster)", pin)
		}
	}
	return checkPiHeader(pin)
}

func (raspiRules) checkBus(bus int) string {
	if bus != 0 && bus != 1 {
		return fmt.Sprintf("i2c bus %d: the Raspberry Pi has buses 0 and 1", bus)
	}
	return ""
}

// firmataRules are an Arduino Uno's: digital pins 2..19 (0 and 1 carry the firmata serial link,
// 14..19 are A0..A5), PWM on 3, 5, 6, 9, 10 and 11, analog inputs 0..5, i2c bus 0.
type firmataRules struct{}

func (firmataRules) checkPin(mode PinMode, pin string) string {
	n, err := strconv.Atoi(pin)
	switch {
	case mode == PinEncoder:
		return "the firmata adaptor has no DigitalPin access with edge events, which wheel encoders need (use dead reckoning: leave encoders out)"
	case err != nil:
		return fmt.Sprintf("%q: firmata pins are numbers", pin)
	case mode == PinAnalog:
		if n < 0 || n > 5 {
			return fmt.Sprintf("%q is not an analog input of an Arduino Uno (0..5)", pin)
		}
	case mode == PinPWM:
		switch n {
		case 3, 5, 6, 9, 10, 11:
		default:
			return fmt.Sprintf("%q cannot do PWM on an Arduino Uno (3, 5, 6, 9, 10, 11)", pin)
		}
	case n < 2 || n > 19:
		return fmt.Sprintf("%q is not a digital pin of an Arduino Uno (2..19; 0 and 1 carry the firmata link)", pin)
	}
	return ""
}

func (firmataRules) checkBus(bus int) string {
	if bus != 0 {
		return fmt.Sprintf("i2c bus %d: firmata boards have bus 0 only", bus)
	}
	return ""
}
