// Package peerbench ticks botd's reference tree (bt/testdata/reference-tree.json,
// described in BENCH-TREE.md) side by side in botd and in two other Go
// behavior-tree engines, go-behaviortree and behavior3go, so their cost per
// tick, allocations and memory per agent can be compared on the same shape.
//
// It is its own Go module so that the peer engines never enter botd's
// dependencies. Every engine's tree is built from the same decoded mission
// document; TestParity checks that all three make the same node visits per
// tick (42, or 48 when a waypoint completes; 1,092 over a 25-tick lap) with
// the same root status sequence, and the benchmarks in bench_test.go time
// them (the visit counting exists only in the parity test's trees).
//
// The engines, as the reference figures describe them:
//
//   - botd: one compiled bt.Tree shared by all agents, a bt.Agent each (one
//     memory block holding node states and the blackboard);
//   - go-behaviortree: a tree of closures per agent, its leaves reading and
//     writing the agent's own float64s through pointers (the library keeps
//     node memory, e.g. Memorize's, inside the closures, so trees cannot be
//     shared);
//   - behavior3go: one tree shared by all agents, a core.Blackboard each
//     holding the values and every node's memory.
package peerbench
