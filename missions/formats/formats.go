// Package formats links in every mission format botd reads and writes
// that lives in a package of its own: a program that imports it (botd,
// botctl) decodes and exports them all through missions' format registry.
// It is the one list of those packages, one import each; a format
// package registers its formats with missions.RegisterFormat when it is
// linked, and missions itself imports none of them.
//
// botd's own formats (JSON and YAML) are missions' own.
package formats

import (
	_ "github.com/botd-project/botd/missions/b3"    // Behavior3: b3, b3tree
	_ "github.com/botd-project/botd/missions/btcpp" // BehaviorTree.CPP v4 XML: btcpp
	_ "github.com/botd-project/botd/missions/plan"  // QGroundControl and Mission Planner: plan
)
