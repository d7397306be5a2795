package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Hooks: the breakpoints and node replacements of a debugger (the Groot2
// endpoint) on the running mission's tree (bt/hook.go). A breakpoint
// holds the mission at its node: the node is not ticked and reports
// RUNNING, its parents wait, and the tick goes on as always, so the
// safety envelope, the failsafes, telemetry and the e-stop run on. Hooks
// are refused unless EnableHooks was called (the config allows
// debugging); they are applied by the tick goroutine only (HookOp
// requests go through a channel, as commands do); and every hook is
// released when the mission ends or is aborted, on e-stop, when a
// failsafe takes over, and when the debugging client has been silent for
// HookConfig.Silence. Every hook set, hit, released and removed is an
// event (hook.set, hook.hit, hook.released, hook.removed).

// DefaultHookSilence is how long a debugging client may stay silent
// before its hooks are released (BT.CPP's Groot2 heartbeat timeout).
const DefaultHookSilence = 5 * time.Second

// HookConfig allows hooks (EnableHooks).
type HookConfig struct {
	// Silence is how long the client may go without a HookHeartbeat
	// before every hook is released (0: DefaultHookSilence).
	Silence time.Duration
	// OnHit, when set, is told the node index of every hook hit. It runs
	// on the tick goroutine and must not block.
	OnHit func(node int32)
	// Commands takes the ground station's hook commands (hookcmds.go)
	// too; without it they are refused (the config allows only Groot2's
	// hooks).
	Commands bool
}

// Hook operations (HookOp.Op).
const (
	HookSet     = "set"     // add or change Hooks
	HookRemove  = "remove"  // remove the hook at Node and Position
	HookUnlock  = "unlock"  // release the breakpoint at Node and Position with Status; Remove removes it
	HookClear   = "clear"   // remove every hook
	HookDisable = "disable" // disable every hook
	HookList    = "list"    // nothing: the reply lists the hooks
)

// HookOp is a request about the running mission's hooks.
type HookOp struct {
	Op       string
	Hooks    []bt.Hook
	Node     int32
	Position bt.HookPosition
	Status   bt.Status
	Remove   bool
	// Tree, when set, is the tree the client's node indexes refer to: a
	// set, remove or unlock is refused when another mission runs.
	Tree *bt.Tree
	// Mission and Revision, when Mission is set, are the mission the
	// client's node indexes refer to: a set, remove or unlock is refused
	// when another mission or revision runs (the ground station's form
	// of Tree).
	Mission  string
	Revision int64
}

// Errors of Hook.
var (
	ErrHooksNotAllowed = errors.New("breakpoints and node replacement are not allowed: the config does not allow debugging (groot2.allow_debug)")
	ErrHookNoMission   = errors.New("no mission is running")
	ErrHookNotFound    = errors.New("no such hook")
	ErrHookMode        = errors.New("hooks cannot be set in this mode (e-stop or failsafe)")
	ErrHookTree        = errors.New("another mission runs now: fetch its tree again")
	errHooksBusy       = errors.New("too many hook requests queued; try again")
)

// hookReq is a HookOp on its way to the tick goroutine.
type hookReq struct {
	op    HookOp
	reply chan hookReply
}

type hookReply struct {
	hooks []bt.HookState
	err   error
}

// hooksState is the runner's hook machinery.
type hooksState struct {
	cfg atomic.Pointer[HookConfig]
	ch  chan *hookReq
	// beat is when the client was last heard (clock ns).
	beat atomic.Int64
	// agent is the agent that has hooks (tick goroutine).
	agent *bt.Agent
}

// EnableHooks allows hooks, with c (any goroutine, before or after Run).
//
// Called again (the Groot2 endpoint and the ground station's commands
// each enable hooks), it keeps what an earlier call set and c leaves
// unset: OnHit, Commands and the silence.
func (r *Runner) EnableHooks(c HookConfig) {
	if old := r.hooks.cfg.Load(); old != nil {
		if c.OnHit == nil {
			c.OnHit = old.OnHit
		}
		c.Commands = c.Commands || old.Commands
		if c.Silence <= 0 {
			c.Silence = old.Silence
		}
	}
	if c.Silence <= 0 {
		c.Silence = DefaultHookSilence
	}
	r.hooks.beat.Store(r.cfg.Clock.Now().UnixNano())
	r.hooks.cfg.Store(&c)
}

// HookHeartbeat says the debugging client is alive (any goroutine; the
// Groot2 endpoint calls it on every request, as BT.CPP counts any
// request as the heartbeat).
func (r *Runner) HookHeartbeat() {
	r.hooks.beat.Store(r.cfg.Clock.Now().UnixNano())
}

// Hook applies op to the running mission's hooks at the next tick and
// returns the hooks as they are then. Any goroutine; it waits for the
// tick goroutine until ctx ends, never the other way round.
func (r *Runner) Hook(ctx context.Context, op HookOp) ([]bt.HookState, error) {
	if r.hooks.cfg.Load() == nil {
		return nil, ErrHooksNotAllowed
	}
	r.HookHeartbeat()
	req := &hookReq{op: op, reply: make(chan hookReply, 1)}
	select {
	case r.hooks.ch <- req:
	default:
		return nil, errHooksBusy
	}
	select {
	case rep := <-req.reply:
		return rep.hooks, rep.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no reply from the tick loop in time: %w", ctx.Err())
	}
}

// serviceHooks applies the queued hook requests and releases the hooks
// of a silent client (tick goroutine, before the mission's tick).
func (r *Runner) serviceHooks(now time.Time) {
	for {
		select {
		case req := <-r.hooks.ch:
			r.answerHook(req, now)
			continue
		default:
		}
		break
	}
	a := r.hooks.agent
	if a == nil || !a.HasHooks() {
		return
	}
	cfg := r.hooks.cfg.Load()
	if cfg == nil {
		r.releaseHooks("debugging is no longer allowed")
		return
	}
	if silent := now.UnixNano() - r.hooks.beat.Load(); silent > int64(cfg.Silence) {
		r.releaseHooks(fmt.Sprintf("the debugging client was silent for %v", time.Duration(silent).Round(time.Millisecond)))
	}
}

// answerHook applies req and answers it, also when applying it panics
// (then with an error, and the panic goes on to safeTick, as answerPanic).
func (r *Runner) answerHook(req *hookReq, now time.Time) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("panic applying a hook request", "panic", v)
			select {
			case req.reply <- hookReply{err: fmt.Errorf("internal error: %v", v)}:
			default:
			}
			panic(v)
		}
	}()
	hs, err := r.applyHook(req.op, now)
	req.reply <- hookReply{hooks: hs, err: err}
}

// applyHook applies one request (tick goroutine).
func (r *Runner) applyHook(op HookOp, now time.Time) ([]bt.HookState, error) {
	run := r.run
	if run == nil || !isActive(run.status) {
		if op.Op == HookList || op.Op == HookClear || op.Op == HookDisable {
			return nil, nil
		}
		return nil, ErrHookNoMission
	}
	a := run.agent
	if r.hooks.agent != a {
		r.releaseHooks("another mission started")
		r.hooks.agent = a
		a.SetHookListener(r.hookListener(run))
	}
	r.hooks.beat.Store(now.UnixNano())
	if op.Op == HookSet || op.Op == HookRemove || op.Op == HookUnlock {
		d := run.s.m.Doc
		if (op.Tree != nil && op.Tree != a.Tree()) || (op.Mission != "" && (op.Mission != d.ID || op.Revision != d.Revision)) {
			return a.Hooks(nil), ErrHookTree
		}
	}
	switch op.Op {
	case HookSet:
		if m := r.currentMode(); m != protocol.ModeRunning && m != protocol.ModePaused {
			return nil, ErrHookMode
		}
		for _, h := range op.Hooks {
			if err := a.SetHook(h); err != nil {
				return a.Hooks(nil), fmt.Errorf("%w: node %d", ErrHookNotFound, h.Node)
			}
			r.hookEmit(run, "hook.set", "info", h, fmt.Sprintf("%s %s hook set on node %d", h.Position, h.Mode, h.Node), nil)
		}
	case HookRemove:
		if !a.RemoveHook(op.Node, op.Position) {
			return a.Hooks(nil), ErrHookNotFound
		}
	case HookUnlock:
		if !a.UnlockHook(op.Node, op.Position, op.Status, op.Remove) {
			return a.Hooks(nil), ErrHookNotFound
		}
	case HookClear:
		a.ClearHooks("removed by the client")
	case HookDisable:
		a.DisableHooks()
	case HookList:
	default:
		return nil, fmt.Errorf("unknown hook op %q", op.Op)
	}
	return a.Hooks(nil), nil
}

// releaseHooks removes every hook of the mission's agent, releasing what
// they hold (tick goroutine): the mission ended, an e-stop, a failsafe,
// a silent client.
func (r *Runner) releaseHooks(why string) {
	if a := r.hooks.agent; a != nil {
		a.ClearHooks(why) // its listener stays, for the releases still to come
		r.hooks.agent = nil
	}
}

// hookListener turns the agent's hook events into runner events and
// tells the endpoint of hits.
func (r *Runner) hookListener(run *activeRun) bt.HookListener {
	return func(_ *bt.Agent, ev bt.HookEvent) {
		h := ev.Hook
		switch ev.Kind {
		case bt.HookHit:
			if cfg := r.hooks.cfg.Load(); cfg != nil && cfg.OnHit != nil {
				cfg.OnHit(h.Node)
			}
			if h.Mode == bt.HookReplace && ev.Hits > 1 {
				return // a replacement hits every tick: its first hit is told, its count with its removal
			}
			msg := fmt.Sprintf("breakpoint reached at node %d (%s): the mission waits there, everything else runs on", h.Node, h.Position)
			if h.Mode == bt.HookReplace {
				msg = fmt.Sprintf("node %d replaced (%s): it gives %s", h.Node, h.Position, ev.Status)
			}
			r.hookEmit(run, "hook.hit", "warning", h, msg, map[string]any{"hits": ev.Hits})
		case bt.HookReleased:
			r.hookEmit(run, "hook.released", "info", h, fmt.Sprintf("node %d released from its breakpoint (%s)", h.Node, ev.Why),
				map[string]any{"reason": ev.Why, "result": ev.Status.String()})
		case bt.HookRemoved:
			r.hookEmit(run, "hook.removed", "info", h, fmt.Sprintf("%s %s hook on node %d removed (%s)", h.Position, h.Mode, h.Node, ev.Why),
				map[string]any{"reason": ev.Why, "hits": ev.Hits})
		}
	}
}

func (r *Runner) hookEmit(run *activeRun, kind, level string, h bt.Hook, msg string, data map[string]any) {
	d := run.s.m.Doc
	node := h.Node
	if data == nil {
		data = map[string]any{}
	}
	data["position"], data["mode"] = h.Position.String(), h.Mode.String()
	if h.Mode == bt.HookReplace || h.Status == bt.Success || h.Status == bt.Failure {
		data["status"] = h.Status.String()
	}
	if h.Once {
		data["once"] = true
	}
	r.emit(protocol.Event{Kind: kind, Level: level, Mission: d.ID, Revision: d.Revision, Node: &node, Message: msg, Data: data})
}
