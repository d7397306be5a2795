package protocol

import (
	"encoding/json"
	"fmt"
)

// Hook commands: the ground station's debugger (PROTOCOL.md, "Debugging
// a mission"). They set, step through and clear breakpoints and forced
// statuses (replacements) on the running mission's nodes, as Groot2's
// hooks do on the Groot2 endpoint, and share their rules: a breakpoint
// holds the mission at its node and never the tick, e-stop or failsafes;
// hooks are refused unless the robot's config allows debugging; they are
// released on e-stop, when the mission ends and when the debugging
// client has been silent (any hook command is its heartbeat).
const (
	// OpHookSet adds or changes the hook at hook.node and hook.position.
	OpHookSet = "hook.set"
	// OpHookUnlock releases the breakpoint holding hook.node: a step (it
	// hits again when the node is reached again) or, with hook.remove, a
	// continue. hook.status SUCCESS or FAILURE ends the node with that
	// status without ticking it (a forced status).
	OpHookUnlock = "hook.unlock"
	// OpHookRemove removes the hook at hook.node and hook.position,
	// releasing what it holds.
	OpHookRemove = "hook.remove"
	// OpHookClear removes every hook, releasing what they hold.
	OpHookClear = "hook.clear"
	// OpHookList changes nothing: the reply lists the hooks. A debugging
	// client sends it as its heartbeat.
	OpHookList = "hook.list"
)

// IsHookOp reports whether op is a hook command.
func IsHookOp(op string) bool {
	switch op {
	case OpHookSet, OpHookUnlock, OpHookRemove, OpHookClear, OpHookList:
		return true
	}
	return false
}

// Hook positions and modes (HookArgs, HookInfo).
const (
	HookPre        = "pre"  // before the node's tick
	HookPost       = "post" // after the node's tick
	HookBreakpoint = "breakpoint"
	HookReplace    = "replace"
)

// HookArgs is a hook command's `hook` member.
type HookArgs struct {
	// Node is the node's index in the tree topic (required by set,
	// unlock and remove).
	Node *int32 `json:"node,omitempty"`
	// Position is "pre" (the default) or "post".
	Position string `json:"position,omitempty"`
	// Mode is "breakpoint" (the default) or "replace" (set only).
	Mode string `json:"mode,omitempty"`
	// Status is SUCCESS or FAILURE: what a replacement gives in place of
	// the node's status, or what an unlock ends the held node with.
	Status string `json:"status,omitempty"`
	// Once removes the hook after it acted (set).
	Once bool `json:"once,omitempty"`
	// Remove removes the breakpoint with the unlock (continue).
	Remove bool `json:"remove,omitempty"`
	// Mission and Revision, when set, are the mission whose tree the node
	// index refers to: the command is refused with OTHER_MISSION_ACTIVE
	// when another mission or revision runs.
	Mission  string `json:"mission,omitempty"`
	Revision int64  `json:"revision,omitempty"`
}

// HookInfo is one hook in a hook command's reply (result.hooks).
type HookInfo struct {
	Node     int32  `json:"node"`
	Position string `json:"position"`
	Mode     string `json:"mode"`
	// Status is what a replacement gives (SUCCESS, FAILURE), or "".
	Status   string `json:"status,omitempty"`
	Once     bool   `json:"once,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Held is set while the breakpoint holds its node.
	Held bool   `json:"held,omitempty"`
	Hits uint64 `json:"hits"`
}

// HooksResult is a hook command's result: the hooks as they are after
// it, and the mission they are on.
type HooksResult struct {
	Mission  string     `json:"mission,omitempty"`
	Revision int64      `json:"revision,omitempty"`
	Hooks    []HookInfo `json:"hooks"`
}

// Map returns r as a reply's result.
func (r HooksResult) Map() map[string]any {
	if r.Hooks == nil {
		r.Hooks = []HookInfo{}
	}
	return map[string]any{"mission": r.Mission, "revision": r.Revision, "hooks": r.Hooks}
}

// DecodeHooksResult reads a hook command's result as a ground station
// receives it (a decoded JSON object).
func DecodeHooksResult(result map[string]any) (HooksResult, error) {
	var r HooksResult
	raw, err := json.Marshal(result)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("hook reply: %w", err)
	}
	return r, nil
}
