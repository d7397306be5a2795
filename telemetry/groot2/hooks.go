package groot2

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/runner"
)

// Hooks (Groot2 PRO's breakpoints and node replacement): HOOK_INSERT,
// HOOK_REMOVE, BREAKPOINT_UNLOCK, HOOKS_DUMP, REMOVE_ALL_HOOKS,
// DISABLE_ALL_HOOKS, and the BREAKPOINT_REACHED notice on the publisher.
// The JSON is BT.CPP's; a uid is botd's node index + 1. The endpoint
// never touches the tree: it hands the runner a request (runner.HookOp),
// which the tick goroutine applies between two ticks, and a breakpoint
// holds only the mission (runner/hooks.go, bt/hook.go). Any request is
// the client's heartbeat, as in BT.CPP; when it stops for
// Config.HookSilence the runner releases every hook.

// Debugger is what the endpoint needs of the runner for hooks
// (*runner.Runner).
type Debugger interface {
	EnableHooks(runner.HookConfig)
	HookHeartbeat()
	Hook(ctx context.Context, op runner.HookOp) ([]bt.HookState, error)
}

var _ Debugger = (*runner.Runner)(nil)

// hookTimeout bounds the wait for the tick goroutine to apply a hook
// request (a tick is at most a second apart): a REQ client always gets a
// reply.
const hookTimeout = 3 * time.Second

// hookJSON is BT.CPP's Hook as JSON (HOOK_INSERT, HOOKS_DUMP).
type hookJSON struct {
	Enabled  *bool   `json:"enabled"`
	UID      *uint16 `json:"uid"`
	Mode     *int    `json:"mode"`
	Once     *bool   `json:"once"`
	Desired  *string `json:"desired_status"`
	Position *int    `json:"position"`
}

// unlockJSON is BREAKPOINT_UNLOCK's and HOOK_REMOVE's body.
type unlockJSON struct {
	UID      *uint16 `json:"uid"`
	Desired  *string `json:"desired_status"`
	Position *int    `json:"position"`
	Remove   *bool   `json:"remove_when_done"`
}

// statusOf is a desired_status string as BT.CPP converts it.
func statusOf(s string) (bt.Status, error) {
	switch s {
	case "IDLE":
		return bt.Idle, nil
	case "RUNNING":
		return bt.Running, nil
	case "SUCCESS":
		return bt.Success, nil
	case "FAILURE":
		return bt.Failure, nil
	case "SKIPPED":
		return bt.Skipped, nil
	}
	return bt.Idle, fmt.Errorf("desired_status %q is not a status", s)
}

// statusName is BT.CPP's name of a hook's status (SKIPPED for none).
func statusName(s bt.Status) string {
	switch s {
	case bt.Success:
		return "SUCCESS"
	case bt.Failure:
		return "FAILURE"
	case bt.Running:
		return "RUNNING"
	case bt.Idle:
		return "IDLE"
	}
	return "SKIPPED"
}

func positionOf(p int) (bt.HookPosition, error) {
	if p != 0 && p != 1 {
		return 0, fmt.Errorf("position %d is neither PRE (0) nor POST (1)", p)
	}
	return bt.HookPosition(p), nil
}

// node is uid's node index in cur (an error when the tree has no such
// uid).
func (cur *treeState) node(uid uint16) (int32, error) {
	if cur.tree == nil || uid == 0 || int(uid) > cur.tree.Len() {
		//lint:ignore ST1005 BehaviorTree.CPP's own words, which Groot2 shows as they are
		return 0, errors.New("Node ID not found")
	}
	return int32(uid) - 1, nil
}

func parseHook(raw json.RawMessage, cur *treeState) (bt.Hook, error) {
	var j hookJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return bt.Hook{}, err
	}
	if j.Enabled == nil || j.UID == nil || j.Mode == nil || j.Once == nil || j.Desired == nil || j.Position == nil {
		return bt.Hook{}, errors.New("a hook needs enabled, uid, mode, once, desired_status and position")
	}
	n, err := cur.node(*j.UID)
	if err != nil {
		return bt.Hook{}, err
	}
	pos, err := positionOf(*j.Position)
	if err != nil {
		return bt.Hook{}, err
	}
	if *j.Mode != 0 && *j.Mode != 1 {
		return bt.Hook{}, fmt.Errorf("mode %d is neither BREAKPOINT (0) nor REPLACE (1)", *j.Mode)
	}
	st, err := statusOf(*j.Desired)
	if err != nil {
		return bt.Hook{}, err
	}
	return bt.Hook{Node: n, Position: pos, Mode: bt.HookMode(*j.Mode), Status: st, Once: *j.Once, Disabled: !*j.Enabled}, nil
}

// hooksDump is HOOKS_DUMP's JSON array: PRE hooks, then POST, by uid.
func hooksDump(hs []bt.HookState) []byte {
	slices.SortFunc(hs, func(a, b bt.HookState) int {
		if a.Position != b.Position {
			return int(a.Position) - int(b.Position)
		}
		return int(a.Node - b.Node)
	})
	type out struct {
		Enabled  bool   `json:"enabled"`
		UID      int32  `json:"uid"`
		Mode     int    `json:"mode"`
		Once     bool   `json:"once"`
		Desired  string `json:"desired_status"`
		Position int    `json:"position"`
	}
	list := make([]out, 0, len(hs))
	for _, h := range hs {
		list = append(list, out{Enabled: !h.Disabled, UID: h.Node + 1, Mode: int(h.Mode), Once: h.Once, Desired: statusName(h.Status), Position: int(h.Position)})
	}
	b, _ := json.Marshal(list)
	return b
}

func isHookRequest(t byte) bool {
	switch t {
	case ReqHookInsert, ReqHookRemove, ReqBreakpointUnlck, ReqHooksDump, ReqRemoveAllHooks, ReqDisableAllHooks:
		return true
	}
	return false
}

// handleHook answers a hook request for the tree cur (s.mu not held: it
// waits for the tick goroutine).
func (s *Server) handleHook(h RequestHeader, head []byte, cur *treeState, parts [][]byte) [][]byte {
	d := s.cfg.Debug
	if !s.cfg.AllowDebug || d == nil {
		switch h.Type {
		case ReqHooksDump:
			return [][]byte{head, []byte("[]")}
		case ReqRemoveAllHooks, ReqDisableAllHooks:
			return [][]byte{head} // Groot2 sends these when it disconnects
		}
		return errorReply("botd: breakpoints and node replacement are off on this robot (groot2.allow_debug is false)")
	}
	op := runner.HookOp{Tree: cur.tree}
	switch h.Type {
	case ReqHooksDump:
		op.Op = runner.HookList
	case ReqRemoveAllHooks:
		op.Op = runner.HookClear
	case ReqDisableAllHooks:
		op.Op = runner.HookDisable
	case ReqHookInsert:
		if len(parts) != 2 {
			return errorReply("must be 2 parts message")
		}
		op.Op = runner.HookSet
		body := bytes.TrimSpace(parts[1])
		var raws []json.RawMessage
		if len(body) > 0 && body[0] == '[' {
			if err := json.Unmarshal(body, &raws); err != nil {
				return errorReply("hook_insert: " + err.Error())
			}
		} else {
			raws = []json.RawMessage{body}
		}
		for _, raw := range raws {
			hk, err := parseHook(raw, cur)
			if err != nil {
				return errorReply("hook_insert: " + err.Error())
			}
			op.Hooks = append(op.Hooks, hk)
		}
	case ReqHookRemove, ReqBreakpointUnlck:
		if len(parts) != 2 {
			return errorReply("must be 2 parts message")
		}
		var j unlockJSON
		if err := json.Unmarshal(parts[1], &j); err != nil {
			return errorReply(err.Error())
		}
		if j.UID == nil || j.Position == nil || h.Type == ReqBreakpointUnlck && (j.Desired == nil || j.Remove == nil) {
			return errorReply("missing uid, position, desired_status or remove_when_done")
		}
		n, err := cur.node(*j.UID)
		if err != nil {
			return errorReply(err.Error())
		}
		pos, err := positionOf(*j.Position)
		if err != nil {
			return errorReply(err.Error())
		}
		op.Op, op.Node, op.Position = runner.HookRemove, n, pos
		if h.Type == ReqBreakpointUnlck {
			op.Op, op.Remove = runner.HookUnlock, *j.Remove
			// BT.CPP: SUCCESS or FAILURE, anything else lets the node tick.
			switch *j.Desired {
			case "SUCCESS":
				op.Status = bt.Success
			case "FAILURE":
				op.Status = bt.Failure
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	hs, err := d.Hook(ctx, op)
	switch {
	case errors.Is(err, runner.ErrHookNotFound):
		return errorReply("Node ID not found")
	case errors.Is(err, runner.ErrHookNoMission) && h.Type == ReqHooksDump:
		return [][]byte{head, []byte("[]")}
	case err != nil:
		return errorReply("botd: " + err.Error())
	}
	if h.Type == ReqHooksDump {
		return [][]byte{head, hooksDump(hs)}
	}
	return [][]byte{head}
}

// hit is told by the runner (on the tick goroutine) that a hook on node
// hit: the notice goes to the publisher without waiting.
func (s *Server) hit(node int32) {
	if node < 0 || node+1 > 0xFFFF {
		return
	}
	select {
	case s.hits <- uint16(node + 1):
	default: // subscribers that far behind miss a notice
	}
}

// subscriber is a connection to the PUB socket.
type subscriber struct {
	c      net.Conn
	zc     *zmq4.Conn
	mu     sync.Mutex // one message at a time
	topics [][]byte   // guarded by s.subMu
}

// subscribe follows a subscriber's (un)subscriptions: ZMTP 3.0 sends
// them as messages (1 or 0, then the prefix), 3.1 as commands.
func (s *Server) subscribe(sub *subscriber, msg zmq4.Msg) {
	if len(msg.Frames) == 0 {
		return
	}
	f := msg.Frames[0]
	s.subMu.Lock()
	defer s.subMu.Unlock()
	switch {
	case msg.Type == zmq4.CmdMsg:
		sub.topics = append(sub.topics, append([]byte(nil), f...))
	case len(f) > 0 && f[0] == 1:
		sub.topics = append(sub.topics, append([]byte(nil), f[1:]...))
	case len(f) > 0 && f[0] == 0:
		for k, t := range sub.topics {
			if bytes.Equal(t, f[1:]) {
				sub.topics = append(sub.topics[:k], sub.topics[k+1:]...)
				break
			}
		}
	}
}

func (s *Server) serveSubscriber(c net.Conn, zc *zmq4.Conn) {
	sub := &subscriber{c: c, zc: zc}
	s.subMu.Lock()
	s.subs[sub] = struct{}{}
	s.subMu.Unlock()
	defer func() {
		s.subMu.Lock()
		delete(s.subs, sub)
		s.subMu.Unlock()
	}()
	for {
		msg, err := zc.RecvMsg()
		if err != nil {
			return
		}
		s.subscribe(sub, msg)
	}
}

// publish sends a BREAKPOINT_REACHED notice for every hit: a request
// header (protocol 2, 'N', a random id) and the uid in decimal, as
// BT.CPP's publisher sends it.
func (s *Server) publish(ctx context.Context) {
	for {
		var uid uint16
		select {
		case <-ctx.Done():
			return
		case uid = <-s.hits:
		}
		head := make([]byte, RequestHeaderSize)
		head[0], head[1] = ProtocolID, ReqBreakpointNote
		var id [4]byte
		_, _ = rand.Read(id[:])
		binary.LittleEndian.PutUint32(head[2:], binary.LittleEndian.Uint32(id[:]))
		msg := zmq4.NewMsgFrom(head, []byte(strconv.Itoa(int(uid))))
		s.subMu.Lock()
		var to []*subscriber
		for sub := range s.subs {
			for _, t := range sub.topics {
				if bytes.HasPrefix(head, t) {
					to = append(to, sub)
					break
				}
			}
		}
		s.subMu.Unlock()
		for _, sub := range to {
			sub.mu.Lock()
			_ = sub.c.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := sub.zc.SendMsg(msg); err != nil {
				sub.c.Close()
			}
			sub.mu.Unlock()
		}
	}
}
