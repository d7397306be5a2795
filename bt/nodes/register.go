package nodes

import "github.com/botd-project/botd/bt"

// Types are the catalog's node types.
func Types() []bt.NodeType {
	return []bt.NodeType{
		// composites
		parallelType, randomSequenceType, randomPriorityType,
		// decorators
		inverterType, succeederType, failerType,
		repeaterType, repeatUntilFailureType, repeatUntilSuccessType,
		limiterType, maxTimeType, delayType, regulatorType, runOnceType,
		cooldownType, gateType,
		// leaves
		succeedType, failType, runningType, errorType, logType,
		// synchronization
		barrierType,
	}
}

// Register adds the catalog to r. Its nodes report every failure as a
// status, so they run without a panic guard of their own (Trusted).
func Register(r *bt.Registry) {
	for _, t := range Types() {
		t.Trusted = true
		r.Register(t)
	}
}
