package web

// The formats an upload may be in, as botctl links them (its main
// imports missions/formats): BehaviorTree.CPP XML, Behavior3, plans.
import _ "github.com/botd-project/botd/missions/formats"
