// Package bt is botd's behavior-tree engine.
//
// A [Tree] is compiled once from node definitions and is immutable: any number
// of [Agent]s tick the same tree, each with its own compact memory block (one
// allocation holding the open/ticked bits, every node's state words and the
// agent's blackboard). Blackboard keys are resolved to slots when the tree is
// compiled, so the tick path neither hashes strings nor allocates.
//
// Node semantics follow botd's mission contract: statuses SUCCESS, FAILURE,
// RUNNING and ERROR; a node is opened before its first tick, closed when it
// returns anything but RUNNING, and halted by the engine (never by a node)
// when its parent closes or when the tree no longer reaches it. Halts go
// deepest first.
//
// A few nodes share state between all the agents of a tree (bt/nodes'
// Gate, Barrier, Cooldown with global scope): it lives with the tree (Builder.SetShared),
// never in an agent, and is changed with atomics or a lock, because
// distinct agents may be ticked from different goroutines. A
// DynamicSubTree runs a child tree (compiled with the mission, or injected
// later with Registry.CompileSlotTree and Tree.InjectAll or Agent.Inject)
// in a child agent; a StateMachine's states and conditions are real nodes
// of the tree, synthesized from its parameters (NodeType.Synthesize).
//
// bt knows nothing about robots, MQTT or files: device leaves are registered
// into a [Registry] by other packages, and telemetry and traces attach as
// [Observer]s. bt keeps the engine, the kernel nodes its fast path knows
// (Sequence, Priority, MemSequence, Check, Set, Wait) and the nodes that
// are engine features (SubTree, DynamicSubTree, StateMachine, Monitor,
// Script, Expr, the stand-ins of substitution rules). Node catalogs live
// in packages of their own on the exported node kit (kit.go and what it
// names): bt/nodes (botd's own), bt/btcpp (BehaviorTree.CPP), bt/nav2
// (Nav2); bt/catalog assembles the registry botd compiles missions with,
// and bt/bttest is their test kit.
//
// The engine must never block, sleep or read the wall clock: time comes
// from the caller on every tick. The one exception is the time budget of
// expressions (budget.go), which reads a monotonic clock (ExprLimits.Clock)
// only to stop a mission's expression that runs too long, never to decide
// what a node does.
package bt
