// Package btcpp is the catalog of BehaviorTree.CPP's nodes ported to
// botd's engine with BT.CPP's semantics, under BT.CPP's names:
// SequenceWithMemory, ParallelNode and ParallelAll, IfThenElse and
// WhileDoElse, Repeat and RetryUntilSuccessful, KeepRunningUntilFailure,
// Timeout, Precondition, PrePost (BT.CPP's pre- and post-conditions on any
// node) and SkipUnlessUpdated, WaitValueUpdate and WasEntryUpdated,
// TryCatch, UnsetBlackboard, TestNode, Switch2..6, the Loop nodes,
// AsyncSequence and AsyncFallback, and BT.CPP 3's BlackboardCheck nodes.
// BT.CPP's scripting language, and its Script and ScriptCondition nodes,
// are the engine's (bt: Builder.Script), as every catalog may use it.
//
// It is built on the engine's node kit (package bt) and imports nothing
// else of botd. The XML format itself is the missions package's.
package btcpp
