package mavlink

import (
	"github.com/bluenviron/gomavlib/v3/pkg/dialect"
	"github.com/bluenviron/gomavlib/v3/pkg/message"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// linkDialect is what the link decodes and encodes: the messages botd sends to a vehicle or
// reads from it, HEARTBEAT and REQUEST_DATA_STREAM for gomavlib's own heartbeat and stream
// requests (ArduPilot streams its telemetry only when asked). A message outside it arrives as
// a raw frame, which the link counts and ignores, as it ignores the decoded messages it has no
// use for. Naming these rather than linking gomavlib's whole ardupilotmega dialect lets the
// linker leave every other message type and enum of MAVLink out of the binary (0.93 MB of the
// stripped amd64 daemon) and skips building their tables at start-up.
//
// A message the link starts to send or read must be added here: the tests against the
// scripted autopilot (internal/mavtest, which speaks the full dialect) fail without it.
var linkDialect = &dialect.Dialect{Version: 3, Messages: []message.Message{
	&mav.MessageHeartbeat{},
	&mav.MessageRequestDataStream{},
	&mav.MessageSysStatus{},
	&mav.MessageGpsRawInt{},
	&mav.MessageAttitude{},
	&mav.MessageLocalPositionNed{},
	&mav.MessageGlobalPositionInt{},
	&mav.MessageExtendedSysState{},
	&mav.MessageStatustext{},
	&mav.MessageCommandLong{},
	&mav.MessageCommandAck{},
	&mav.MessageSetPositionTargetLocalNed{},
	&mav.MessageSetPositionTargetGlobalInt{},
	&mav.MessageMissionCount{},
	&mav.MessageMissionItemInt{},
	&mav.MessageMissionRequest{},
	&mav.MessageMissionRequestInt{},
	&mav.MessageMissionAck{},
	&mav.MessageMissionCurrent{},
	&mav.MessageMissionItemReached{},
}}
