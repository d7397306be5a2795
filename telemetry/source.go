package telemetry

import (
	"context"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Source is what telemetry reads from the runner. Every method is safe to
// call from any goroutine and returns quickly.
type Source interface {
	// State returns the current state.
	State() protocol.State
	// Tree returns the active mission's compiled tree (ok false when none).
	Tree() (protocol.TreeInfo, bool)
	// Status returns the node-status changes since the previous call,
	// coalesced to the latest status per node, or a keyframe when
	// keyframe is true. ok is false when there is no active tree.
	Status(keyframe bool) (u protocol.StatusUpdate, ok bool)
	// Blackboard returns the values of the active mission's global keys.
	Blackboard() []protocol.BlackboardValue
	// Changed is signalled (never blocking the runner) when the state or
	// the tree changed in a way worth publishing at once.
	Changed() <-chan struct{}
}

// StatusNotifier is an optional part of a Source: it is signalled (never
// blocking the runner) when node statuses changed, so telemetry can
// publish a change at once instead of at its next period.
type StatusNotifier interface {
	StatusChanged() <-chan struct{}
}

// EventSink receives events. It is called on the tick goroutine and must
// not block (telemetry queues to its outbox).
type EventSink func(protocol.Event)

// CommandHandler executes commands; telemetry calls Do from its own
// goroutines and publishes the reply. Do returns when the command was
// carried out or refused, or when ctx ends (telemetry sets no deadline:
// the intake stops waiting after CommandTimeout, its reply cache keeps
// waiting for the outcome). Do remembers no ids (telemetry deduplicates,
// replycache.go) and never panics: a panic in an op is its command's
// one INTERNAL reply (the runner's Do).
type CommandHandler interface {
	Do(ctx context.Context, c protocol.Command) protocol.Reply
}
