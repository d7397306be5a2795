package plan

import "fmt"

// MAV_CMD numbers of the items a plan may hold (MAVLink common.xml).
const (
	CmdNavWaypoint      = 16
	CmdNavLoiterUnlim   = 17
	CmdNavLoiterTurns   = 18
	CmdNavLoiterTime    = 19
	CmdNavReturnHome    = 20
	CmdNavLand          = 21
	CmdNavTakeoff       = 22
	CmdDoJump           = 177
	CmdDoChangeSpeed    = 178
	CmdDoSetServo       = 183
	CmdDoDigicamControl = 203
	CmdDoSetCamTrigDist = 206
	CmdDoSetCamTrigIntv = 214
	CmdSetCameraMode    = 530
	CmdImageStart       = 2000
	CmdImageStop        = 2001
	CmdVideoStart       = 2500
	CmdVideoStop        = 2501
)

// MAV_FRAME numbers.
const (
	FrameGlobal            = 0  // altitude above mean sea level
	FrameMission           = 2  // not a position: a DO_ or camera command
	FrameGlobalRelative    = 3  // altitude above home
	FrameGlobalInt         = 5  // as FrameGlobal
	FrameGlobalRelativeInt = 6  // as FrameGlobalRelative
	FrameGlobalTerrain     = 10 // above terrain: botd has no terrain data
	FrameGlobalTerrainInt  = 11
)

// cmdNames are the short MAV_CMD names botd uses in node names and
// messages.
var cmdNames = map[int]string{
	CmdNavWaypoint: "NAV_WAYPOINT", CmdNavLoiterUnlim: "NAV_LOITER_UNLIM", CmdNavLoiterTurns: "NAV_LOITER_TURNS",
	CmdNavLoiterTime: "NAV_LOITER_TIME", CmdNavReturnHome: "NAV_RETURN_TO_LAUNCH", CmdNavLand: "NAV_LAND",
	CmdNavTakeoff: "NAV_TAKEOFF", CmdDoJump: "DO_JUMP", CmdDoChangeSpeed: "DO_CHANGE_SPEED",
	CmdDoSetServo: "DO_SET_SERVO", CmdDoDigicamControl: "DO_DIGICAM_CONTROL", CmdDoSetCamTrigDist: "DO_SET_CAM_TRIGG_DIST",
	CmdDoSetCamTrigIntv: "DO_SET_CAM_TRIGG_INTERVAL", CmdSetCameraMode: "SET_CAMERA_MODE",
	CmdImageStart: "IMAGE_START_CAPTURE", CmdImageStop: "IMAGE_STOP_CAPTURE",
	CmdVideoStart: "VIDEO_START_CAPTURE", CmdVideoStop: "VIDEO_STOP_CAPTURE",
}

// passThrough are the commands botd does not fly itself but hands to the
// vehicle unchanged: they become MAVCommand leaves (see Tree).
var passThrough = map[int]bool{
	CmdDoSetServo: true, CmdDoDigicamControl: true, CmdDoSetCamTrigDist: true, CmdDoSetCamTrigIntv: true,
	CmdSetCameraMode: true, CmdImageStart: true, CmdImageStop: true, CmdVideoStart: true, CmdVideoStop: true,
}

// cmdName names a command for people: "NAV_WAYPOINT (16)".
func cmdName(c int) string {
	if n, ok := cmdNames[c]; ok {
		return fmt.Sprintf("MAV_CMD_%s (%d)", n, c)
	}
	return fmt.Sprintf("MAV_CMD %d", c)
}

// isNav reports whether a command takes a position (params 5 to 7).
func isNav(c int) bool {
	switch c {
	case CmdNavWaypoint, CmdNavLoiterUnlim, CmdNavLoiterTurns, CmdNavLoiterTime, CmdNavLand, CmdNavTakeoff:
		return true
	}
	return false
}

// frameKind classifies a frame: "rel" (above home), "amsl", "none"
// (FrameMission), or "" for a frame botd does not take.
func frameKind(f int) string {
	switch f {
	case FrameGlobalRelative, FrameGlobalRelativeInt:
		return "rel"
	case FrameGlobal, FrameGlobalInt:
		return "amsl"
	case FrameMission:
		return "none"
	}
	return ""
}

func frameName(f int) string {
	switch f {
	case FrameGlobal:
		return "MAV_FRAME_GLOBAL (0)"
	case FrameMission:
		return "MAV_FRAME_MISSION (2)"
	case FrameGlobalRelative:
		return "MAV_FRAME_GLOBAL_RELATIVE_ALT (3)"
	case FrameGlobalInt:
		return "MAV_FRAME_GLOBAL_INT (5)"
	case FrameGlobalRelativeInt:
		return "MAV_FRAME_GLOBAL_RELATIVE_ALT_INT (6)"
	case FrameGlobalTerrain:
		return "MAV_FRAME_GLOBAL_TERRAIN_ALT (10)"
	case FrameGlobalTerrainInt:
		return "MAV_FRAME_GLOBAL_TERRAIN_ALT_INT (11)"
	}
	return fmt.Sprintf("MAV_FRAME %d", f)
}
