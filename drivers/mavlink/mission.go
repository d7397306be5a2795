package mavlink

import (
	"errors"
	"fmt"
	"math"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// The MAVLink mission protocol (upload): botd sends MISSION_COUNT, the vehicle asks for each
// item with MISSION_REQUEST_INT (or the older MISSION_REQUEST), botd answers with
// MISSION_ITEM_INT, and the vehicle ends with MISSION_ACK. A silence of ack_timeout_ms makes
// botd send its last message again, up to retries times.

// maxMissionItems bounds what botd uploads (an autopilot holds a few hundred to a few
// thousand; a mission document is bounded anyway).
const maxMissionItems = 1000

// upload is a mission, fence or rally transfer; next, when set, is sent once the autopilot
// accepted this one (UploadPlan's three).
type upload struct {
	mtype mav.MAV_MISSION_TYPE
	items []mav.MessageMissionItemInt
	next  *upload
}

// Waypoint is one point of a mission: degrees, and m above home.
type Waypoint struct {
	Lat, Lon, Alt float64
}

// MissionError is an upload the autopilot refused, with its MAV_MISSION_RESULT.
type MissionError struct {
	Result mav.MAV_MISSION_RESULT
	// Type is what was refused: MAV_MISSION_TYPE_MISSION, _FENCE or _RALLY.
	Type mav.MAV_MISSION_TYPE
}

func (e *MissionError) Error() string {
	return fmt.Sprintf("the autopilot refused the %s upload: %s", missionTypeName(e.Type), e.Result)
}

func missionTypeName(t mav.MAV_MISSION_TYPE) string {
	switch t {
	case mav.MAV_MISSION_TYPE_FENCE:
		return "fence"
	case mav.MAV_MISSION_TYPE_RALLY:
		return "rally"
	}
	return "mission"
}

// missionItems makes a flight plan: take off (when takeoffAlt > 0), the waypoints, and a
// return home when rtl.
func missionItems(wps []Waypoint, takeoffAlt, radius float64, rtl bool) ([]mav.MessageMissionItemInt, error) {
	if len(wps) == 0 {
		return nil, errors.New("no waypoints")
	}
	var items []mav.MessageMissionItemInt
	add := func(it mav.MessageMissionItemInt) {
		it.Seq, it.Autocontinue = uint16(len(items)), 1
		it.MissionType = mav.MAV_MISSION_TYPE_MISSION
		items = append(items, it)
	}
	nan := float32(math.NaN())
	if takeoffAlt > 0 {
		add(mav.MessageMissionItemInt{Frame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, Command: mav.MAV_CMD_NAV_TAKEOFF,
			Param4: nan, X: deg7(wps[0].Lat), Y: deg7(wps[0].Lon), Z: float32(takeoffAlt)})
	}
	for _, w := range wps {
		if !(w.Lat >= -90 && w.Lat <= 90 && w.Lon >= -180 && w.Lon <= 180) || math.IsNaN(w.Alt) {
			return nil, fmt.Errorf("waypoint (%v, %v, %v) is not a place", w.Lat, w.Lon, w.Alt)
		}
		add(mav.MessageMissionItemInt{Frame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, Command: mav.MAV_CMD_NAV_WAYPOINT,
			Param2: float32(radius), Param4: nan, X: deg7(w.Lat), Y: deg7(w.Lon), Z: float32(w.Alt)})
	}
	if rtl {
		add(mav.MessageMissionItemInt{Frame: mav.MAV_FRAME_MISSION, Command: mav.MAV_CMD_NAV_RETURN_TO_LAUNCH})
	}
	if len(items) > maxMissionItems {
		return nil, fmt.Errorf("%d items: at most %d", len(items), maxMissionItems)
	}
	return items, nil
}

func deg7(d float64) int32 { return int32(math.Round(d * 1e7)) }

// fenceItems makes a keep-in polygon of lat/lon vertices.
func fenceItems(vertices [][2]float64) ([]mav.MessageMissionItemInt, error) {
	if len(vertices) < 3 {
		return nil, fmt.Errorf("a fence needs at least 3 vertices, got %d", len(vertices))
	}
	if len(vertices) > maxMissionItems {
		return nil, fmt.Errorf("%d vertices: at most %d", len(vertices), maxMissionItems)
	}
	items := make([]mav.MessageMissionItemInt, len(vertices))
	for i, p := range vertices {
		if !(p[0] >= -90 && p[0] <= 90 && p[1] >= -180 && p[1] <= 180) {
			return nil, fmt.Errorf("vertex %d (%v, %v) is not a latitude and longitude", i, p[0], p[1])
		}
		items[i] = mav.MessageMissionItemInt{Seq: uint16(i), Frame: mav.MAV_FRAME_GLOBAL, Command: mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
			Param1: float32(len(vertices)), X: deg7(p[0]), Y: deg7(p[1]), Autocontinue: 1, MissionType: mav.MAV_MISSION_TYPE_FENCE}
	}
	return items, nil
}

func (v *Vehicle) uploadOp(what string, mtype mav.MAV_MISSION_TYPE, items []mav.MessageMissionItemInt) *vehicleOp {
	if _, err := v.ready(); err != nil {
		return failedOp(what, err)
	}
	op := newOp(what)
	op.keep = true
	op.upload = &upload{mtype: mtype, items: items}
	return op
}

// UploadMission replaces the vehicle's mission with a flight plan: a take-off to takeoffAlt m
// (none when 0), the waypoints (each reached within radius m), and a return home when rtl.
func (v *Vehicle) UploadMission(wps []Waypoint, takeoffAlt, radius float64, rtl bool) error {
	items, err := missionItems(wps, takeoffAlt, radius, rtl)
	if err != nil {
		return fmt.Errorf("upload mission: %w", err)
	}
	return v.wait(v.submit(v.uploadOp("upload mission", mav.MAV_MISSION_TYPE_MISSION, items)))
}

// UploadFence replaces the vehicle's fence with a keep-in polygon of (latitude, longitude)
// vertices in degrees. The autopilot's own fence parameters (PX4 GF_ACTION, ArduPilot
// FENCE_ENABLE and FENCE_ACTION) decide what it does on a breach.
func (v *Vehicle) UploadFence(vertices [][2]float64) error {
	items, err := fenceItems(vertices)
	if err != nil {
		return fmt.Errorf("upload fence: %w", err)
	}
	return v.wait(v.submit(v.uploadOp("upload fence", mav.MAV_MISSION_TYPE_FENCE, items)))
}

// startUpload sends MISSION_COUNT for the op in flight.
func (w *linkWorker) startUpload() {
	if w.cur.upload.mtype == mav.MAV_MISSION_TYPE_MISSION {
		w.v.mu.Lock()
		w.v.missionCount, w.v.missionReached = -1, -1
		w.v.mu.Unlock()
	}
	w.tries = 0
	w.sendCount()
}

func (w *linkWorker) sendCount() {
	u := w.cur.upload
	st, _ := w.v.snapshot()
	_ = w.node.WriteMessageAll(&mav.MessageMissionCount{TargetSystem: st.sysID, TargetComponent: st.compID,
		Count: uint16(len(u.items)), MissionType: u.mtype})
	w.lastItem = -1
	w.deadline = time.Now().Add(time.Duration(w.v.cfg.AckTimeoutMs * float64(time.Millisecond)))
}

func (w *linkWorker) sendItem(seq int) {
	u := w.cur.upload
	st, _ := w.v.snapshot()
	it := u.items[seq]
	it.TargetSystem, it.TargetComponent = st.sysID, st.compID
	_ = w.node.WriteMessageAll(&it)
	w.lastItem = seq
	w.deadline = time.Now().Add(time.Duration(w.v.cfg.AckTimeoutMs * float64(time.Millisecond)))
}

// missionRequest answers the vehicle's request for item seq.
func (w *linkWorker) missionRequest(seq int, mtype mav.MAV_MISSION_TYPE) {
	if w.cur == nil || w.cur.upload == nil || mtype != w.cur.upload.mtype {
		return
	}
	if seq < 0 || seq >= len(w.cur.upload.items) {
		return // a request for an item botd did not announce: ignore it, the vehicle will time out or ask again
	}
	w.tries = 0
	w.sendItem(seq)
}

func (w *linkWorker) missionAck(res mav.MAV_MISSION_RESULT, mtype mav.MAV_MISSION_TYPE) {
	if w.cur == nil || w.cur.upload == nil || mtype != w.cur.upload.mtype {
		return
	}
	if res != mav.MAV_MISSION_ACCEPTED {
		w.finish(&MissionError{Result: res, Type: mtype})
		return
	}
	if w.cur.upload.mtype == mav.MAV_MISSION_TYPE_MISSION {
		w.v.mu.Lock()
		w.v.missionCount = len(w.cur.upload.items)
		w.v.mu.Unlock()
	}
	if next := w.cur.upload.next; next != nil {
		w.cur.upload = next
		w.startUpload()
		return
	}
	w.finish(nil)
}

// uploadTimeout sends the last message again, or gives up.
func (w *linkWorker) uploadTimeout() {
	if w.tries >= w.v.cfg.Retries {
		what := "no MISSION_REQUEST"
		if w.lastItem >= 0 {
			what = fmt.Sprintf("nothing after item %d", w.lastItem)
		}
		w.finish(fmt.Errorf("%s upload: %s after %d tries of %v ms", missionTypeName(w.cur.upload.mtype), what, w.tries+1, w.v.cfg.AckTimeoutMs))
		return
	}
	w.tries++
	if w.lastItem < 0 {
		w.sendCount()
	} else {
		w.sendItem(w.lastItem)
	}
}

// runMissionOp starts the mission botd uploaded last.
func (v *Vehicle) runMissionOp() *vehicleOp {
	const what = "run mission"
	st, err := v.ready()
	if err != nil {
		return failedOp(what, err)
	}
	count, _ := v.missionProgress()
	if count <= 0 {
		return failedOp(what, errors.New("botd has uploaded no mission to the vehicle (UploadMission first)"))
	}
	c, err := setModeCmd(st.autopilot, modeMission)
	if err != nil {
		return failedOp(what, err)
	}
	v.mu.Lock()
	v.missionReached = -1
	v.mu.Unlock()
	steps := []mavCmd{c}
	if st.autopilot == apArduPilot {
		// ArduCopter on the ground waits in Auto for this (or for the throttle).
		steps = append(steps, mavCmd{cmd: mav.MAV_CMD_MISSION_START, p: [7]float32{0, float32(count - 1)}})
	}
	return newOp(what, steps...)
}

// missionProgress is the uploaded mission's item count and the last item reached (-1: none).
func (v *Vehicle) missionProgress() (count, reached int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.missionCount, v.missionReached
}
