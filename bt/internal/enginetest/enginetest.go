// Package enginetest lets the test kit of the node catalogs (bt/bttest)
// reach what the engine keeps to itself: the fast-path check of every
// harness test copies an agent's whole state into a second agent and
// compares the two after a tick. The engine fills these in when it is
// initialized; nothing outside bt's own folder can import this package.
//
// The values are *bt.Agent, typed any because bt imports this package.
package enginetest

var (
	// CopyState makes dst's state (memory block, blackboard, clock,
	// random stream, tick count) a copy of src's; both run one tree.
	CopyState func(dst, src any)
	// DiffState describes how got's state differs from want's ("" when
	// it does not).
	DiffState func(got, want any) string
	// FastPath reports whether the agent's ticks take the fast path.
	FastPath func(a any) bool
	// HasChildAgents reports whether the agent runs child agents
	// (DynamicSubTree), whose state a copy does not carry.
	HasChildAgents func(a any) bool
	// Shadowable reports whether the fast-path check applies to a tree
	// (*bt.Tree): not to stored-state trees (always on the general
	// path), nor to trees whose nodes keep state outside the agent
	// (shared by agents, as Gate, or child agents of DynamicSubTree).
	Shadowable func(t any) bool
)
