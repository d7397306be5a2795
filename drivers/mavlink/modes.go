package mavlink

import (
	"fmt"
	"strings"
)

// Flight modes, named the same for PX4 and ArduPilot. The number is what a vehicle writes to
// <key>.mode (the blackboard holds numbers); the name is what SetMode takes and events say.
type flightMode uint8

const (
	modeUnknown flightMode = iota
	modeManual
	modeStabilized
	modeAltitude
	modePosition
	modeHold
	modeMission
	modeReturn
	modeLand
	modeTakeoff
	modeGuided // PX4 offboard, ArduPilot guided: botd's position targets fly the vehicle
	modeAcro
	modeOther
)

var flightModeNames = [...]string{"unknown", "manual", "stabilized", "altitude", "position", "hold",
	"mission", "return", "land", "takeoff", "guided", "acro", "other"}

func (m flightMode) String() string {
	if int(m) < len(flightModeNames) {
		return flightModeNames[m]
	}
	return "unknown"
}

// settableModes are the modes SetMode can ask for.
var settableModes = []string{"manual", "stabilized", "altitude", "position", "hold", "mission", "return", "land", "takeoff", "guided", "acro"}

func parseFlightMode(s string) (flightMode, bool) {
	s = strings.ToLower(s)
	switch s {
	case "offboard":
		return modeGuided, true
	case "loiter":
		return modeHold, true
	case "rtl":
		return modeReturn, true
	case "auto":
		return modeMission, true
	}
	for i, n := range flightModeNames {
		if n == s && flightMode(i) != modeUnknown && flightMode(i) != modeOther {
			return flightMode(i), true
		}
	}
	return modeUnknown, false
}

// Autopilots.
const (
	apPX4       = "px4"
	apArduPilot = "ardupilot"
)

// PX4 custom modes: main mode in bits 16..23, sub mode in bits 24..31 (px4_custom_mode.h).
const (
	px4Manual     = 1
	px4AltCtl     = 2
	px4PosCtl     = 3
	px4Auto       = 4
	px4Acro       = 5
	px4Offboard   = 6
	px4Stabilized = 7

	px4AutoTakeoff = 2
	px4AutoLoiter  = 3
	px4AutoMission = 4
	px4AutoRTL     = 5
	px4AutoLand    = 6
)

// ArduPilot copter modes (ArduCopter mode.h).
const (
	apmStabilize = 0
	apmAcro      = 1
	apmAltHold   = 2
	apmAuto      = 3
	apmGuided    = 4
	apmLoiter    = 5
	apmRTL       = 6
	apmLand      = 9
	apmPosHold   = 16
	apmBrake     = 17
	apmSmartRTL  = 21
)

// decodeMode turns a heartbeat's custom mode into a flight mode.
func decodeMode(autopilot string, custom uint32) flightMode {
	switch autopilot {
	case apPX4:
		main, sub := (custom>>16)&0xff, (custom>>24)&0xff
		switch main {
		case px4Manual:
			return modeManual
		case px4AltCtl:
			return modeAltitude
		case px4PosCtl:
			return modePosition
		case px4Acro:
			return modeAcro
		case px4Offboard:
			return modeGuided
		case px4Stabilized:
			return modeStabilized
		case px4Auto:
			switch sub {
			case px4AutoTakeoff:
				return modeTakeoff
			case px4AutoLoiter:
				return modeHold
			case px4AutoMission:
				return modeMission
			case px4AutoRTL:
				return modeReturn
			case px4AutoLand:
				return modeLand
			}
		}
		return modeOther
	case apArduPilot:
		switch custom {
		case apmStabilize:
			return modeStabilized
		case apmAcro:
			return modeAcro
		case apmAltHold:
			return modeAltitude
		case apmAuto:
			return modeMission
		case apmGuided:
			return modeGuided
		case apmLoiter, apmBrake:
			return modeHold
		case apmRTL, apmSmartRTL:
			return modeReturn
		case apmLand:
			return modeLand
		case apmPosHold:
			return modePosition
		}
		return modeOther
	}
	return modeUnknown
}

// encodeMode gives MAV_CMD_DO_SET_MODE's custom mode and sub mode (params 2 and 3) for a mode.
func encodeMode(autopilot string, m flightMode) (custom, sub float32, err error) {
	switch autopilot {
	case apPX4:
		switch m {
		case modeManual:
			return px4Manual, 0, nil
		case modeStabilized:
			return px4Stabilized, 0, nil
		case modeAltitude:
			return px4AltCtl, 0, nil
		case modePosition:
			return px4PosCtl, 0, nil
		case modeAcro:
			return px4Acro, 0, nil
		case modeGuided:
			return px4Offboard, 0, nil
		case modeHold:
			return px4Auto, px4AutoLoiter, nil
		case modeMission:
			return px4Auto, px4AutoMission, nil
		case modeReturn:
			return px4Auto, px4AutoRTL, nil
		case modeLand:
			return px4Auto, px4AutoLand, nil
		case modeTakeoff:
			return px4Auto, px4AutoTakeoff, nil
		}
	case apArduPilot:
		switch m {
		case modeStabilized:
			return apmStabilize, 0, nil
		case modeAcro:
			return apmAcro, 0, nil
		case modeAltitude:
			return apmAltHold, 0, nil
		case modePosition:
			return apmPosHold, 0, nil
		case modeGuided, modeTakeoff:
			return apmGuided, 0, nil
		case modeHold:
			return apmLoiter, 0, nil
		case modeMission:
			return apmAuto, 0, nil
		case modeReturn:
			return apmRTL, 0, nil
		case modeLand:
			return apmLand, 0, nil
		}
	default:
		return 0, 0, fmt.Errorf("the vehicle's autopilot is not known yet (no heartbeat)")
	}
	return 0, 0, fmt.Errorf("%s has no %s mode", autopilot, m)
}
