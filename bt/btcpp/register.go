package btcpp

import "github.com/botd-project/botd/bt"

// Types are the catalog's node types.
func Types() []bt.NodeType {
	ts := []bt.NodeType{
		seqWithMemoryType, btParallelType, parallelAllType, ifThenElseType, whileDoElseType,
		btRepeatType, btRetryType, keepRunningType, timeoutType, preconditionType,
		waitValueUpdateType, skipUnlessUpdatedType, prePostType, tryCatchType,
		unsetType, entryUpdatedType, testNodeType,
	}
	ts = append(ts, switchTypes...)
	ts = append(ts, loopTypes...)
	return append(ts, btcppExtraTypes...)
}

// Register adds the catalog to r. Its nodes report every failure as a
// status, so they run without a panic guard of their own (Trusted), but
// for TestNode, which runs a mission's scripts.
func Register(r *bt.Registry) {
	for _, t := range Types() {
		t.Trusted = t.Name != "TestNode"
		r.Register(t)
	}
}
