// Package plan reads QGroundControl plans (.plan JSON: fileType Plan,
// version 1, mission version 2) and Mission Planner waypoint files (QGC
// WPL 110) into botd trees, and writes a UAV mission's flight back as a
// .plan.
//
// An import has two layers. Parse reads the file into the raw mission
// items an autopilot would be sent (command, frame, params, latitude and
// longitude; survey and corridor scans flattened into their generated
// items, as MAVSDK's importer does), each located by the JSON pointer of
// the plan item it came from. Tree turns those items into a tree of botd's
// UAV leaves (Takeoff, GoTo, Wait, Land, ReturnHome, ...): botd flies the
// plan, one leaf per item (or a few), each named after its item ("item 3:
// NAV_WAYPOINT (16)"), so the geofence and the failsafes act between items
// and Export can write the items back as they were. A .plan whose
// optional top-level "fly" member is "autopilot" gets AutopilotTree
// instead (Generate picks; a plan without "fly" takes the loader's
// default, missions.Options.Imports, the daemon config's plan.fly): GpsFix, UploadPlan carrying the mission, fence
// and rally items as MISSION_ITEM_INT would (AutopilotItems), Arm and
// RunMission, so the vehicle's autopilot flies the same checked plan in its
// mission mode. The plan's geoFence
// (inclusion and exclusion polygons and circles, each named) and rally
// points are checked (fence.go: NaN, too few corners, a polygon crossing
// itself, a radius of 0, a zone that leaves the home outside, bounded
// counts) and go on the mission's blackboard (FenceKey, RallyKey), from
// where Export writes them back. An item botd cannot represent is a
// problem naming the item's index and its MAV_CMD number, and nothing is
// imported then.
//
// The package knows documents only: it imports bt for the node and problem
// types and drivers/geofence for the zones' geometry, nothing else of
// botd, so the missions package can call it where it detects the other
// formats. It never talks MAVLink.
package plan
