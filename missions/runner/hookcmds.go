package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The ground station's hook commands (protocol hooks.go): they become
// HookOps, applied by the tick goroutine as the Groot2 endpoint's are,
// under the same rules (hooks.go). Any hook command is the debugging
// client's heartbeat.

// doHook answers one hook command (any goroutine but the tick's).
func (r *Runner) doHook(ctx context.Context, c protocol.Command) protocol.Reply {
	if cfg := r.hooks.cfg.Load(); cfg == nil || !cfg.Commands {
		return hookRefusal(c, ErrHooksNotAllowed)
	}
	op, rep, bad := hookOp(c)
	if bad {
		return rep
	}
	hs, err := r.Hook(ctx, op)
	if err != nil {
		return hookRefusal(c, err)
	}
	res := protocol.HooksResult{Hooks: make([]protocol.HookInfo, 0, len(hs))}
	if m := r.State().Mission; m != nil {
		res.Mission, res.Revision = m.ID, m.Revision
	}
	for _, h := range hs {
		res.Hooks = append(res.Hooks, HookInfo(h))
	}
	return ok(c, res.Map())
}

// HookInfo is a hook as a hook command's reply lists it.
func HookInfo(h bt.HookState) protocol.HookInfo {
	i := protocol.HookInfo{Node: h.Node, Position: h.Position.String(), Mode: h.Mode.String(),
		Once: h.Once, Disabled: h.Disabled, Held: h.Held, Hits: h.Hits}
	if h.Mode == bt.HookReplace && (h.Status == bt.Success || h.Status == bt.Failure) {
		i.Status = h.Status.String()
	}
	return i
}

// hookOp checks a hook command's arguments and makes its HookOp; bad
// says rep refuses it.
func hookOp(c protocol.Command) (op HookOp, rep protocol.Reply, bad bool) {
	a := c.Hook
	if a == nil {
		a = &protocol.HookArgs{}
	}
	op.Mission, op.Revision = a.Mission, a.Revision
	needNode := func() bool {
		if a.Node == nil {
			rep, bad = refuse(c, protocol.ErrValidation, c.Op+" needs hook.node, the node's index in the tree topic", "/hook/node"), true
			return false
		}
		op.Node = *a.Node
		return true
	}
	switch a.Position {
	case "", protocol.HookPre:
		op.Position = bt.HookPre
	case protocol.HookPost:
		op.Position = bt.HookPost
	default:
		return op, refuse(c, protocol.ErrValidation, fmt.Sprintf("hook.position %q: want pre or post", a.Position), "/hook/position"), true
	}
	status := bt.Idle
	switch a.Status {
	case "":
	case "SUCCESS":
		status = bt.Success
	case "FAILURE":
		status = bt.Failure
	default:
		return op, refuse(c, protocol.ErrValidation, fmt.Sprintf("hook.status %q: want SUCCESS or FAILURE", a.Status), "/hook/status"), true
	}
	switch c.Op {
	case protocol.OpHookSet:
		if !needNode() {
			return
		}
		h := bt.Hook{Node: op.Node, Position: op.Position, Status: status, Once: a.Once}
		switch a.Mode {
		case "", protocol.HookBreakpoint:
			h.Mode = bt.HookBreakpoint
		case protocol.HookReplace:
			h.Mode = bt.HookReplace
			if status == bt.Idle {
				return op, refuse(c, protocol.ErrValidation, "a replace hook needs hook.status SUCCESS or FAILURE", "/hook/status"), true
			}
		default:
			return op, refuse(c, protocol.ErrValidation, fmt.Sprintf("hook.mode %q: want breakpoint or replace", a.Mode), "/hook/mode"), true
		}
		op.Op, op.Hooks = HookSet, []bt.Hook{h}
	case protocol.OpHookUnlock:
		if !needNode() {
			return
		}
		op.Op, op.Status, op.Remove = HookUnlock, status, a.Remove
	case protocol.OpHookRemove:
		if !needNode() {
			return
		}
		op.Op = HookRemove
	case protocol.OpHookClear:
		op.Op = HookClear
	default:
		op.Op = HookList
	}
	return op, rep, false
}

// hookRefusal turns Hook's errors into reply codes.
func hookRefusal(c protocol.Command, err error) protocol.Reply {
	code, path := protocol.ErrInternal, ""
	switch {
	case errors.Is(err, ErrHooksNotAllowed):
		code = protocol.ErrDebugNotAllowed
		err = errors.New("breakpoints and forced statuses are not allowed: the robot's config does not allow debugging (debug.allow)")
	case errors.Is(err, ErrHookNoMission):
		code = protocol.ErrNoMission
	case errors.Is(err, ErrHookNotFound):
		code, path = protocol.ErrValidation, "/hook/node"
	case errors.Is(err, ErrHookMode):
		code = protocol.ErrNotAllowedInMode
	case errors.Is(err, ErrHookTree):
		code, path = protocol.ErrOtherMission, "/hook/mission"
		err = errors.New("another mission or revision runs now: its node indexes differ; fetch its tree again")
	case errors.Is(err, errHooksBusy):
		code = protocol.ErrBusy
	}
	return refuse(c, code, err.Error(), path)
}
