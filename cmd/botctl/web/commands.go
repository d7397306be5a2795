package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// commandOps maps the command names of POST
// /api/robots/{robot}/commands/{command} to protocol ops.
var commandOps = map[string]string{
	"start":         protocol.OpMissionStart,
	"pause":         protocol.OpMissionPause,
	"resume":        protocol.OpMissionResume,
	"abort":         protocol.OpMissionAbort,
	"estop":         protocol.OpEStop,
	"estop-reset":   protocol.OpEStopReset,
	"state-request": protocol.OpStateRequest,
}

func commandNames() string {
	names := make([]string, 0, len(commandOps))
	for n := range commandOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// commandBody is the optional JSON body of a command: only start uses it.
type commandBody struct {
	MissionID string `json:"mission_id"` // start: default the robot's current mission
	Replace   bool   `json:"replace"`    // start: in place of a running mission
}

// commandResult is the answer to every command and upload: the robot's
// reply, or why there is none.
type commandResult struct {
	Robot string `json:"robot"`
	Op    string `json:"op"`
	ID    string `json:"id,omitempty"`
	OK    bool   `json:"ok"`
	// Error is the reply's error when the robot refused, or the
	// dashboard's when the command was not sent or not answered.
	Error  *apiError       `json:"error,omitempty"`
	Reply  *protocol.Reply `json:"reply,omitempty"`
	Upload *uploadInfo     `json:"upload,omitempty"`
}

func (s *server) command(w http.ResponseWriter, r *http.Request) {
	robot, name := r.PathValue("robot"), r.PathValue("command")
	if err := protocol.ValidRobotID(robot); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_ROBOT", err.Error())
		return
	}
	op, ok := commandOps[name]
	if !ok {
		writeError(w, http.StatusNotFound, "UNKNOWN_COMMAND", fmt.Sprintf("unknown command %q; want one of %s", name, commandNames()))
		return
	}
	var body commandBody
	if err := readJSONBody(w, r, maxCommandBody, &body); err != nil {
		writeError(w, statusOf(err), "BAD_REQUEST", err.Error())
		return
	}
	c := protocol.Command{Op: op}
	if op == protocol.OpMissionStart {
		c.MissionID, c.Replace = body.MissionID, body.Replace
		if c.MissionID == "" {
			c.MissionID = s.currentMission(robot)
		}
		if c.MissionID == "" {
			writeError(w, http.StatusConflict, protocol.ErrNoMission, "the robot reports no mission to start: upload one")
			return
		}
	} else if body != (commandBody{}) {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", fmt.Sprintf("%s takes no mission_id or replace", name))
		return
	}
	s.send(w, r, robot, c, nil)
}

// currentMission is the id of the mission the robot's last state names.
func (s *server) currentMission(robot string) string {
	for _, r := range s.g.Robots() {
		if r.ID == robot && r.State != nil && r.State.Mission != nil {
			return r.State.Mission.ID
		}
	}
	return ""
}

// send sends c and writes the result: 200 with the reply (ok or not),
// 504 when no reply came.
func (s *server) send(w http.ResponseWriter, r *http.Request, robot string, c protocol.Command, up *uploadInfo) {
	c.ID = uuid.NewString()
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	res := commandResult{Robot: robot, Op: c.Op, ID: c.ID, Upload: up}
	rep, err := s.g.Send(ctx, robot, c)
	if err != nil {
		s.log.Warn("command not answered", "robot", robot, "op", c.Op, "id", c.ID, "err", err)
		res.Error = &apiError{Code: "NO_REPLY", Message: err.Error()}
		status := http.StatusGatewayTimeout
		if !errors.Is(err, ground.ErrNoReply) {
			status = http.StatusBadGateway
		}
		writeJSON(w, status, res)
		return
	}
	res.OK, res.Reply = rep.OK, &rep
	if e := rep.Error; e != nil {
		res.Error = &apiError{Code: e.Code, Message: e.Message, Path: e.Path, Problems: e.Problems}
	} else if !rep.OK {
		res.Error = &apiError{Code: "REFUSED", Message: "the robot refused without saying why"}
	}
	s.log.Info("command", "robot", robot, "op", c.Op, "id", c.ID, "ok", rep.OK)
	writeJSON(w, http.StatusOK, res)
}

// readJSONBody decodes an optional JSON object body into v, strictly.
func readJSONBody(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	if dec.More() {
		return errors.New("body: more than one JSON value")
	}
	return nil
}

// statusOf maps a body-reading error to a status code.
func statusOf(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}
