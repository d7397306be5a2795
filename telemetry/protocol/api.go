package protocol

import (
	"encoding/json"
	"time"
)

// This file holds what the mission runner exposes (state, tree, node
// statuses, events, tick figures) and the commands it takes, as they go
// over the wire (PROTOCOL.md). The runner fills them in; telemetry wraps
// them in headers and publishes them; the ground station decodes them.

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
	// LastFailure is why the latest node error or failed mission
	// happened (nil when nothing failed since the daemon started).
	LastFailure *Failure `json:"last_failure,omitempty"`
}

// Failure says why a node or a mission failed: which node (its index in
// the tree topic, the JSON pointer of its definition in the mission
// document and its name), a code and the node's own message.
type Failure struct {
	Mission     string `json:"mission"`
	MissionName string `json:"mission_name,omitempty"`
	Revision    int64  `json:"revision,omitempty"`
	// Status is how the mission ended (ERROR, FAILURE, ABORTED); empty
	// for a node error the mission survived (a fallback took over).
	Status   string    `json:"status,omitempty"`
	Node     *int32    `json:"node,omitempty"`
	Path     string    `json:"path,omitempty"`      // JSON pointer in the mission document
	NodeName string    `json:"node_name,omitempty"` // "name (Type)" or the type
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Time     time.Time `json:"time"`
}

// Failure codes (Failure.Code, and state.errors while the failed mission
// is the robot's current one).
const (
	FailNodeError   = "NODE_ERROR"   // a node ended with ERROR (its message says why)
	FailNodeFailure = "NODE_FAILURE" // the mission's root ended with FAILURE at this node
	FailAborted     = "ABORTED"      // the operator, a failsafe or a replacing mission ended it
	FailInternal    = "INTERNAL"     // a panic in the tick loop
)

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
	// DownSince, with the broker down, is when it was last heard from:
	// a silent broker is noticed only a keepalive and a ping timeout
	// later, and the link-loss failsafe measures from the last contact.
	DownSince time.Time `json:"down_since,omitzero"`
	// URL is the broker the robot is connected to (of the several it may
	// be given; no password), while the broker link is up.
	URL string `json:"url,omitzero"`
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
	// Node and Time are set for a mission's failure (the node's index in
	// the tree topic, when it failed).
	Node *int32    `json:"node,omitempty"`
	Time time.Time `json:"time,omitzero"`
}

// TreeInfo is the compiled tree of the active mission (tree topic).
type TreeInfo struct {
	Mission  string     `json:"mission"`
	Revision int64      `json:"revision"`
	Nodes    []TreeNode `json:"nodes"`
	// Plan is the mission's flight plan beyond its waypoints (home,
	// geofence zones, rally points) for a ground station's map; nil when
	// the mission has none.
	Plan *PlanGeometry `json:"plan,omitempty"`
}

// TreeNode is one node of TreeInfo.
type TreeNode struct {
	Index  int32  `json:"index"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
	Parent int32  `json:"parent"`
	// Path is the JSON pointer of the node's definition in the mission
	// document (/trees/main/children/2).
	Path string `json:"path,omitempty"`
	// Goal is where the node drives or flies to, when its params give
	// literal coordinates (x and y, or lat and lon): the dashboard's map
	// draws a mission's waypoints from it.
	Goal *Goal `json:"goal,omitempty"`
}

// Goal is a node's target: Frame "local" gives X/Y in metres in the
// robot's world frame; "global" gives X as longitude and Y as latitude
// (degrees).
type Goal struct {
	Frame string  `json:"frame"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
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
	// Reasons say why nodes failed: in a keyframe, every node whose
	// status is F or E and that said why; in a delta, the reasons new
	// since the previous update.
	Reasons []NodeReason
}

// NodeReason is why one node failed, as long as its status is F or E (a
// status change to anything else clears it).
type NodeReason struct {
	Node    int32     `json:"node"`
	Code    string    `json:"code"`
	Message string    `json:"message"`
	Time    time.Time `json:"time"`
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
	SinceSeq  uint64          `json:"since_seq,omitempty"` // events.request
	Hook      *HookArgs       `json:"hook,omitempty"`      // hook.* (hooks.go)
	Seq       uint64          `json:"seq,omitempty"`       // events.ack
	Signature string          `json:"signature,omitempty"`
	KeyID     string          `json:"key_id,omitempty"`
	// Auth is the signed envelope that authorises a command that can
	// move the robot or change its mission (PROTOCOL.md, "Signed
	// commands").
	Auth *CommandAuth `json:"auth,omitempty"`
}

// CommandAuth is a command's signed envelope: Env is the envelope, a JSON
// object as a string, exactly the bytes that were signed (after a fixed
// prefix); Sig is the base64 Ed25519 signature.
type CommandAuth struct {
	Env string `json:"env"`
	Sig string `json:"sig"`
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
	// OpMissionsList lists the missions the robot keeps (result.missions:
	// MissionSummary, newest first), so an operator can pick one to start.
	OpMissionsList  = "missions.list"
	OpBlackboardSet = "blackboard.set"
	// OpEventsRequest sends the kept events after since_seq again (history
	// for a ground station that connects late or lost its session).
	OpEventsRequest = "events.request"
	// OpEventsAck lets the robot drop the kept events up to seq.
	OpEventsAck = "events.ack"
)

// MissionSummary is one stored mission in a missions.list reply.
type MissionSummary struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	Nodes    int    `json:"nodes"`
	Bytes    int    `json:"bytes"`
	// Status is the mission's run now (RUNNING, PAUSED), INTERRUPTED for
	// the one a restart interrupted, or "" for one that is only stored.
	Status string `json:"status,omitempty"`
}

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
	// Problems lists the validation problems of a refused mission: the
	// first MaxReplyProblems of them, and More says how many more there
	// were.
	Problems []ReplyProblem `json:"problems,omitempty"`
	More     int            `json:"more,omitempty"`
}

// Transient reports whether a reply refuses a command for a reason that
// may pass (a full queue, failed storage, an internal failure or a
// timeout): a cache of replies by command id must not keep it, so that a
// retry under the same id is tried again once the cause is gone.
func (r Reply) Transient() bool {
	if r.OK || r.Error == nil {
		return false
	}
	switch r.Error.Code {
	case ErrBusy, ErrStorageFailed, ErrInternal:
		return true
	}
	return false
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
	ErrReplayed          = "REPLAYED"    // the envelope's nonce was used already
	ErrExpired           = "EXPIRED"     // the envelope is expired, not yet valid, or valid for too long
	ErrWrongRobot        = "WRONG_ROBOT" // the envelope names another robot
	ErrTooLarge          = "TOO_LARGE"
	ErrRateLimited       = "RATE_LIMITED"
	ErrBusy              = "BUSY"      // the command queue is full: send it again later, same id
	ErrIDReused          = "ID_REUSED" // the id names another command already
	ErrStaleCommand      = "STALE_COMMAND"
	ErrInternal          = "INTERNAL"
	ErrStorageFailed     = "STORAGE_FAILED"
	ErrUnknownOp         = "UNKNOWN_OP"
	// ErrRetained refuses a command that arrived as a retained message: a
	// command left on the broker would otherwise run again at every
	// connect (an e-stop is obeyed all the same).
	ErrRetained = "RETAINED"
	// ErrDebugNotAllowed refuses a hook command on a robot whose config
	// does not allow debugging.
	ErrDebugNotAllowed = "DEBUG_NOT_ALLOWED"
)

// TickSummary is a snapshot of the tick loop's figures.
type TickSummary struct {
	Hz          float64 `json:"hz"`
	Count       uint64  `json:"count"`
	LastUs      int64   `json:"last_us"`
	MaxUs       int64   `json:"max_us"`
	DurP99Us    int64   `json:"duration_p99_us"`
	JitterP50Us int64   `json:"jitter_p50_us"`
	JitterP99Us int64   `json:"jitter_p99_us"`
	JitterMaxUs int64   `json:"jitter_max_us"`
	Overruns    uint64  `json:"overruns"`
	InARow      int     `json:"overruns_in_a_row"`
}
