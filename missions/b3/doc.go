// Package b3 reads and writes Behavior3 trees as botd missions: the
// Behavior3 Editor 0.3 (behavior3js) project and tree exports, format
// "b3", and the current editor's tree files and workspaces (behavior3editor,
// behavior3-ts, vscode-behavior3; subtrees by path, version 2's variables,
// overrides and uuids), format "b3tree". MISSIONS.md says how their nodes
// map to botd's.
//
// The package registers both formats with missions.RegisterFormat when it
// is linked (missions/formats links it for botd and botctl); it reads
// through missions' format kit (missions.Source, missions.Object,
// missions.Problems) and imports nothing of missions' internals.
package b3
