package web

import (
	"fmt"
	"net/http"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The dashboard's debugger: POST /api/robots/{robot}/hooks/{op} sends a
// hook command (PROTOCOL.md, "Debugging a mission") with the body as its
// hook member, signed server side like every command when botctl ui has
// a key. The page (static/debug.js) sends list every second while it has
// hooks set: the heartbeat that keeps them alive on the robot.

// hookOps maps the op names of the hooks endpoint to protocol ops.
var hookOps = map[string]string{
	"set":    protocol.OpHookSet,
	"unlock": protocol.OpHookUnlock,
	"remove": protocol.OpHookRemove,
	"clear":  protocol.OpHookClear,
	"list":   protocol.OpHookList,
}

func (s *server) hook(w http.ResponseWriter, r *http.Request) {
	robot, name := r.PathValue("robot"), r.PathValue("op")
	if err := protocol.ValidRobotID(robot); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_ROBOT", err.Error())
		return
	}
	op, ok := hookOps[name]
	if !ok {
		writeError(w, http.StatusNotFound, "UNKNOWN_COMMAND", fmt.Sprintf("unknown hook op %q; want set, unlock, remove, clear or list", name))
		return
	}
	var args protocol.HookArgs
	if err := readJSONBody(w, r, maxCommandBody, &args); err != nil {
		writeError(w, statusOf(err), "BAD_REQUEST", err.Error())
		return
	}
	c := protocol.Command{Op: op}
	if args != (protocol.HookArgs{}) {
		c.Hook = &args
	}
	s.send(w, r, robot, c, nil)
}
