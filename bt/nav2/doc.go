// Package nav2 is the catalog of Nav2's behavior-tree nodes that need
// only the blackboard, ported to botd's engine with Nav2's semantics (its
// rate, goal and timer decorators and conditions, its control nodes,
// PauseResumeController and PathLongerOnApproach). Each node's tests are
// ported from Nav2's own where it has them.
//
// It is built on the engine's node kit (package bt) and imports nothing
// else of botd; it knows nothing about robots: Nav2's services and topics
// are blackboard keys.
package nav2
