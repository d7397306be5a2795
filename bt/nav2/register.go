package nav2

import "github.com/botd-project/botd/bt"

// Types are the catalog's node types.
func Types() []bt.NodeType {
	return []bt.NodeType{
		pipelineSequenceType, recoveryType, roundRobinType,
		nonblockingSequenceType, persistentSequenceType,
		rateControllerType, distanceControllerType, speedControllerType, singleTriggerType,
		goalUpdatedControllerType, goalUpdaterType,
		goalUpdatedType, globalUpdatedGoalType, timeExpiredType, pathExpiringTimerType,
		isBatteryLowType, isBatteryChargingType,
		pauseResumeType, pathLongerType,
	}
}

// Register adds the catalog to r. Its leaves report every failure as a
// status, so they run without a panic guard of their own (Trusted).
func Register(r *bt.Registry) {
	for _, t := range Types() {
		t.Trusted = true
		r.Register(t)
	}
}
