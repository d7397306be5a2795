package multicopter

import (
	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// simDialect is what the simulated vehicle decodes and encodes: the messages it sends and the
// commands, setpoints and mission protocol it answers. Anything else a ground station sends
// (a stream request) arrives as a raw frame and is ignored, as PX4 ignores what it does not
// implement. Naming these rather than linking gomavlib's whole common dialect lets the linker
// leave MAVLink's other message types and enums out of every botd binary.
var simDialect = &dialect.Dialect{Version: 3, Messages: []message.Message{
	&mav.MessageHeartbeat{},
	&mav.MessageSysStatus{},
	&mav.MessageBatteryStatus{},
	&mav.MessageGpsRawInt{},
	&mav.MessageAttitude{},
	&mav.MessageLocalPositionNed{},
	&mav.MessageGlobalPositionInt{},
	&mav.MessageExtendedSysState{},
	&mav.MessageStatustext{},
	&mav.MessageCommandLong{},
	&mav.MessageCommandInt{},
	&mav.MessageCommandAck{},
	&mav.MessageSetPositionTargetLocalNed{},
	&mav.MessageSetPositionTargetGlobalInt{},
	&mav.MessageMissionCount{},
	&mav.MessageMissionItemInt{},
	&mav.MessageMissionRequest{},
	&mav.MessageMissionRequestInt{},
	&mav.MessageMissionRequestList{},
	&mav.MessageMissionClearAll{},
	&mav.MessageMissionAck{},
	&mav.MessageMissionCurrent{},
	&mav.MessageMissionItemReached{},
}}
