package multicopter

import (
	"math"
	"testing"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
)

// fenceItem is a fence item at n, e metres from home.
func fenceItem(v *Vehicle, c mav.MAV_CMD, p1 float32, n, e float64) mav.MessageMissionItemInt {
	lat, lon := v.toLatLon(n, e)
	return mav.MessageMissionItemInt{Frame: mav.MAV_FRAME_GLOBAL, Command: c, Param1: p1,
		X: int32(math.Round(lat * 1e7)), Y: int32(math.Round(lon * 1e7))}
}

// A fence of an inclusion polygon and an exclusion circle, and a rally point: what a ground
// station uploads it downloads again, item for item; a polygon whose corners disagree on their
// count is refused; flying into the exclusion circle is a breach, and the vehicle holds.
func TestMulticopterZonesRallyAndDownload(t *testing.T) {
	v, g := newVehicle(t, Config{})
	incl := mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION
	fence := []mav.MessageMissionItemInt{
		fenceItem(v, incl, 4, -100, -100), fenceItem(v, incl, 4, -100, 100), fenceItem(v, incl, 4, 100, 100), fenceItem(v, incl, 4, 100, -100),
		fenceItem(v, mav.MAV_CMD_NAV_FENCE_CIRCLE_EXCLUSION, 10, 30, 0),
	}
	bad := append([]mav.MessageMissionItemInt(nil), fence...)
	bad[2].Param1 = 3
	if r := g.upload(mav.MAV_MISSION_TYPE_FENCE, bad); r != mav.MAV_MISSION_INVALID_PARAM1 {
		t.Fatalf("a polygon whose corners disagree: %v", r)
	}
	if r := g.upload(mav.MAV_MISSION_TYPE_FENCE, fence); r != mav.MAV_MISSION_ACCEPTED {
		t.Fatalf("fence: %v", r)
	}
	rally := []mav.MessageMissionItemInt{fenceItem(v, mav.MAV_CMD_NAV_RALLY_POINT, 0, -20, 20)}
	rally[0].Frame, rally[0].Z = mav.MAV_FRAME_GLOBAL_RELATIVE_ALT, 15
	if r := g.upload(mav.MAV_MISSION_TYPE_RALLY, rally); r != mav.MAV_MISSION_ACCEPTED {
		t.Fatalf("rally: %v", r)
	}
	if s := v.State(); s.FenceItems != 5 || s.FenceZones != 2 || s.RallyPoints != 1 {
		t.Fatalf("stored: %+v", s)
	}
	for typ, want := range map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt{mav.MAV_MISSION_TYPE_FENCE: fence, mav.MAV_MISSION_TYPE_RALLY: rally} {
		g.write(&mav.MessageMissionRequestList{TargetSystem: 1, TargetComponent: 1, MissionType: typ})
		c := g.wait("MISSION_COUNT", func(m message.Message) bool {
			c, ok := m.(*mav.MessageMissionCount)
			return ok && c.MissionType == typ
		}, nil).(*mav.MessageMissionCount)
		if int(c.Count) != len(want) {
			t.Fatalf("%v: count %d, want %d", typ, c.Count, len(want))
		}
		for i, w := range want {
			g.write(&mav.MessageMissionRequestInt{TargetSystem: 1, TargetComponent: 1, Seq: uint16(i), MissionType: typ})
			got := g.wait("MISSION_ITEM_INT", func(m message.Message) bool {
				it, ok := m.(*mav.MessageMissionItemInt)
				return ok && it.MissionType == typ && int(it.Seq) == i
			}, nil).(*mav.MessageMissionItemInt)
			if got.Command != w.Command || got.Frame != w.Frame || got.Param1 != w.Param1 || got.X != w.X || got.Y != w.Y || got.Z != w.Z {
				t.Errorf("%v item %d: downloaded %+v, uploaded %+v", typ, i, got, w)
			}
		}
	}
	g.write(&mav.MessageMissionRequestInt{TargetSystem: 1, TargetComponent: 1, Seq: 9, MissionType: mav.MAV_MISSION_TYPE_RALLY})
	g.wait("INVALID_SEQUENCE", func(m message.Message) bool {
		a, ok := m.(*mav.MessageMissionAck)
		return ok && a.Type == mav.MAV_MISSION_INVALID_SEQUENCE
	}, nil)

	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	if r := g.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, home+5); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("take-off: %v", r)
	}
	stepUntil(t, v, g, "the take-off", 30*time.Second, func(s Snapshot) bool { return s.Mode == "AUTO.LOITER" && s.InAir })
	if v.State().FenceBreached {
		t.Fatal("a breach at home")
	}
	g.write(&mav.MessageSetPositionTargetLocalNed{TargetSystem: 1, TargetComponent: 1, CoordinateFrame: mav.MAV_FRAME_LOCAL_NED, X: 40, Z: -5,
		TypeMask: mav.POSITION_TARGET_TYPEMASK_YAW_IGNORE})
	waitState(t, v, "the target", func(s Snapshot) bool { return s.Setpoints > 0 })
	if r := g.setMode(PX4Offboard, 0); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("offboard: %v", r)
	}
	s := stepUntil(t, v, g, "the breach", 30*time.Second, func(s Snapshot) bool { return s.FenceBreached })
	if s.Mode != "AUTO.LOITER" || s.N < 20 || s.N > 21 {
		t.Fatalf("at the breach: %+v, want AUTO.LOITER just inside the exclusion circle (N 20)", s)
	}
}
