package missions

import (
	"context"
	"encoding/json"
	"time"
)

// This file is the boundary between the mission runner and telemetry: what
// the runner exposes (state, tree, node statuses, events, tick figures)
// and the commands it takes. Telemetry turns them into MQTT payloads
// (PROTOCOL.md); the runner never sees MQTT.

// Modes of the daemon (state.mode and state.requested_mode).
const (
	ModeStarting = "STARTING"
	ModeIdle     = "IDLE"
	ModeRunning  = "RUNNING"
	ModePaused   = "PAUSED"
	ModeFailsafe = "FAILSAFE"
	ModeEStop    = "ESTOP"
)

// Mission run statuses (state.mission.status).
const (
	RunLoaded      = "LOADED"
	RunRunning     = "RUNNING"
	RunPaused      = "PAUSED"
	RunSucceeded   = "SUCCESS"
	RunFailed      = "FAILURE"
	RunErrored     = "ERROR"
	RunAborted     = "ABORTED"
	RunInterrupted = "INTERRUPTED" // the daemon stopped while it ran
)

// State is the robot's state as published on the state topic (without
// the header telemetry adds).
type State struct {
	Mode          string        `json:"mode"`
	RequestedMode string        `json:"requested_mode"`
	Mission       *MissionState `json:"mission"`
	Tick          TickSummary   `json:"tick"`
	Failsafe      FailsafeState `json:"failsafe"`
	EStop         bool          `json:"estop"`
	Link          LinkState     `json:"link"`
	Battery       *BatteryState `json:"battery,omitempty"`
	Errors        []StateError  `json:"errors"`
}

// MissionState describes the active (or last) mission.
type MissionState struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Revision int64     `json:"revision"`
	Status   string    `json:"status"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
}

// FailsafeState says whether a failsafe is active, why, and what it did.
type FailsafeState struct {
	Active bool   `json:"active"`
	Reason string `json:"reason"`
	Action string `json:"action"`
}

// LinkState is what the daemon knows of its link to the ground.
type LinkState struct {
	Broker    bool `json:"broker"`
	GCSOnline bool `json:"gcs_online"`
}

// BatteryState is the latest battery reading.
type BatteryState struct {
	Voltage float64 `json:"voltage"`
	Percent float64 `json:"percent"`
}

// StateError is a current problem (state.errors).
type StateError struct {
	Code    string `json:"code"`
	Level   string `json:"level"`
	Ref     string `json:"ref,omitempty"`
	Message string `json:"message"`
}

// TreeInfo is the compiled tree of the active mission (tree topic).
type TreeInfo struct {
	Mission  string     `json:"mission"`
	Revision int64      `json:"revision"`
	Nodes    []TreeNode `json:"nodes"`
}

// TreeNode is one node of TreeInfo.
type TreeNode struct {
	Index  int32  `json:"index"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
	Parent int32  `json:"parent"`
}

// StatusUpdate carries node-status changes (Changes) or a full keyframe
// (Keyframe: one letter per node, I S F R E).
type StatusUpdate struct {
	Mission string
	Tick    uint64
	// Time is when that tick ran.
	Time     time.Time
	Changes  []StatusChange
	Keyframe string
}

// StatusChange is one node's new status letter.
type StatusChange struct {
	Node   int32
	Status byte
}

// Event is a mission lifecycle event, failsafe, log message or error
// (events topic).
type Event struct {
	Time     time.Time      `json:"time"`
	Kind     string         `json:"kind"`
	Level    string         `json:"level"`
	Mission  string         `json:"mission,omitempty"`
	Revision int64          `json:"revision,omitempty"`
	Node     *int32         `json:"node,omitempty"`
	Message  string         `json:"message"`
	Data     map[string]any `json:"data,omitempty"`
}

// BlackboardValue is one blackboard entry with its age (blackboard topic).
type BlackboardValue struct {
	Key   string  `json:"key"`
	Value any     `json:"value"`
	AgeMs float64 `json:"age_ms"`
}

// Command is an operator command (PROTOCOL.md), already parsed and
// size-checked by telemetry.
type Command struct {
	ID        string          `json:"id"`
	Op        string          `json:"op"`
	TS        string          `json:"ts,omitempty"`
	Mission   json.RawMessage `json:"mission,omitempty"` // a document, as JSON or a JSON string
	Start     bool            `json:"start,omitempty"`
	Replace   bool            `json:"replace,omitempty"`
	MissionID string          `json:"mission_id,omitempty"`
	Slot      string          `json:"slot,omitempty"`
	Tree      json.RawMessage `json:"tree,omitempty"`
	Agent     *int            `json:"agent,omitempty"`
	Key       string          `json:"key,omitempty"`
	Value     any             `json:"value,omitempty"`
	Signature string          `json:"signature,omitempty"`
	KeyID     string          `json:"key_id,omitempty"`
}

// Command ops.
const (
	OpMissionLoad   = "mission.load"
	OpMissionStart  = "mission.start"
	OpMissionPause  = "mission.pause"
	OpMissionResume = "mission.resume"
	OpMissionAbort  = "mission.abort"
	OpMissionInject = "mission.inject"
	OpEStop         = "estop"
	OpEStopReset    = "estop.reset"
	OpStateRequest  = "state.request"
	OpBlackboardSet = "blackboard.set"
)

// Reply answers one command (reply topic, without the header).
type Reply struct {
	ID     string         `json:"id"`
	OK     bool           `json:"ok"`
	Error  *ReplyError    `json:"error,omitempty"`
	Result map[string]any `json:"result,omitempty"`
}

// ReplyError says why a command was refused.
type ReplyError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	// Problems lists every validation problem of a refused mission.
	Problems []ReplyProblem `json:"problems,omitempty"`
}

// ReplyProblem is one validation problem.
type ReplyProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Error codes in replies and state.errors (PROTOCOL.md).
const (
	ErrInvalidJSON       = "INVALID_JSON"
	ErrValidation        = "VALIDATION_FAILED"
	ErrUnknownNodeType   = "UNKNOWN_NODE_TYPE"
	ErrLimitExceeded     = "LIMIT_EXCEEDED"
	ErrOutdatedRevision  = "OUTDATED_REVISION"
	ErrSameRevisionDiff  = "SAME_REVISION_DIFFERENT_CONTENT"
	ErrOtherMission      = "OTHER_MISSION_ACTIVE"
	ErrNoMission         = "NO_MISSION"
	ErrNotAllowedInMode  = "NOT_ALLOWED_IN_MODE"
	ErrSignatureRequired = "SIGNATURE_REQUIRED"
	ErrBadSignature      = "BAD_SIGNATURE"
	ErrTooLarge          = "TOO_LARGE"
	ErrRateLimited       = "RATE_LIMITED"
	ErrStaleCommand      = "STALE_COMMAND"
	ErrInternal          = "INTERNAL"
	ErrUnknownOp         = "UNKNOWN_OP"
)

// Source is what telemetry reads from the runner. Every method is safe to
// call from any goroutine and returns quickly.
type Source interface {
	// State returns the current state.
	State() State
	// Tree returns the active mission's compiled tree (ok false when none).
	Tree() (TreeInfo, bool)
	// Status returns the node-status changes since the previous call,
	// coalesced to the latest status per node, or a keyframe when
	// keyframe is true. ok is false when there is no active tree.
	Status(keyframe bool) (u StatusUpdate, ok bool)
	// Blackboard returns the values of the active mission's global keys.
	Blackboard() []BlackboardValue
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
type EventSink func(Event)

// CommandHandler executes commands; telemetry calls Do from its own
// goroutines and publishes the reply.
type CommandHandler interface {
	Do(ctx context.Context, c Command) Reply
}
