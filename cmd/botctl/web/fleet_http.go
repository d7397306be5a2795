package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fleetWatcher is the part of a *ground.Client that feeds the fleet view
// (labels, fences and poses of every robot).
type fleetWatcher interface {
	WatchFleet(h ground.FleetHandlers) (stop func() error, err error)
}

// estopSender sends an e-stop on the robot's estop topic.
type estopSender interface {
	SendEStop(ctx context.Context, robot string, c protocol.Command) (protocol.Reply, error)
}

var (
	_ fleetWatcher = (*ground.Client)(nil)
	_ estopSender  = (*ground.Client)(nil)
)

// fleetOps are the commands the list's multi-selection may send.
var fleetOps = map[string]string{
	"estop":       protocol.OpEStop,
	"estop-reset": protocol.OpEStopReset,
	"pause":       protocol.OpMissionPause,
	"resume":      protocol.OpMissionResume,
	"abort":       protocol.OpMissionAbort,
}

// fleetParallel bounds the commands other than e-stop in flight at once
// (an e-stop goes to every robot at once).
const fleetParallel = 32

// startFleet subscribes to every robot's factsheet and blackboard when
// the station can.
func (s *server) startFleet() {
	s.fleet = newFleet(s.g.Robots)
	fw, ok := s.g.(fleetWatcher)
	if !ok {
		return
	}
	stop, err := fw.WatchFleet(s.fleet.handlers())
	if err != nil {
		s.log.Warn("cannot watch the fleet (labels, fences, poses)", "err", err)
		return
	}
	s.fleetStop = stop
}

func (s *server) stopFleet() {
	if s.fleetStop != nil {
		_ = s.fleetStop()
		s.fleetStop = nil
	}
}

func (s *server) fleetRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/fleet", s.fleetStream)
	m.HandleFunc("POST /api/fleet/commands/{command}", s.fleetCommand)
}

// fleetStream is GET /api/fleet: server-sent events, a "fleet" frame
// with every row when it opens, then one with the changed rows at most
// every fleetEvery.
func (s *server) fleetStream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	var tab fleetTab
	s.fleet.refresh(s.now(), true)
	if !write(append([]byte("retry: 2000\n\n"), s.fleet.frame(&tab)...)) {
		return
	}
	tick := time.NewTicker(s.fleet.every)
	defer tick.Stop()
	lastWrite := time.Now()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.hub.ctx.Done():
			return
		case <-tick.C:
		}
		s.fleet.refresh(s.now(), false)
		b := s.fleet.frame(&tab)
		if b == nil && time.Since(lastWrite) >= keepAliveEvery {
			b = []byte(": keep-alive\n\n")
		}
		if b == nil {
			continue
		}
		if !write(b) {
			return
		}
		lastWrite = time.Now()
	}
}

// fleetCommandBody is POST /api/fleet/commands/{command}.
type fleetCommandBody struct {
	Robots []string `json:"robots"`
}

// fleetCommandResult answers it: one result per robot, in the order asked.
type fleetCommandResult struct {
	Op      string          `json:"op"`
	OK      int             `json:"ok"`
	Failed  int             `json:"failed"`
	Results []commandResult `json:"results"`
}

// fleetCommand sends one command to several robots through the same path
// as a robot's command and answers with every robot's result.
func (s *server) fleetCommand(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("command")
	op, ok := fleetOps[name]
	if !ok {
		writeError(w, http.StatusNotFound, "UNKNOWN_COMMAND", fmt.Sprintf("unknown fleet command %q; want one of estop, estop-reset, pause, resume, abort", name))
		return
	}
	var body fleetCommandBody
	if err := readJSONBody(w, r, int64(maxFleet)*72+1024, &body); err != nil {
		writeError(w, statusOf(err), "BAD_REQUEST", err.Error())
		return
	}
	if len(body.Robots) == 0 {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "robots: name at least one robot")
		return
	}
	if len(body.Robots) > maxFleet {
		writeError(w, http.StatusRequestEntityTooLarge, "TOO_MANY", fmt.Sprintf("robots: %d named, at most %d", len(body.Robots), maxFleet))
		return
	}
	seen := make(map[string]bool, len(body.Robots))
	robots := body.Robots[:0:0]
	for i, id := range body.Robots {
		if err := protocol.ValidRobotID(id); err != nil {
			writeError(w, http.StatusBadRequest, "BAD_ROBOT", fmt.Sprintf("robots[%d]: %v", i, err))
			return
		}
		if !seen[id] {
			seen[id] = true
			robots = append(robots, id)
		}
	}
	out := fleetCommandResult{Op: op, Results: make([]commandResult, len(robots))}
	var wg sync.WaitGroup
	var sem chan struct{}
	if op != protocol.OpEStop {
		sem = make(chan struct{}, fleetParallel)
	}
	for i, id := range robots {
		if sem != nil {
			sem <- struct{}{}
		}
		wg.Go(func() {
			out.Results[i] = s.sendOne(r.Context(), id, protocol.Command{Op: op})
			if sem != nil {
				<-sem
			}
		})
	}
	wg.Wait()
	for _, res := range out.Results {
		if res.OK {
			out.OK++
		} else {
			out.Failed++
		}
	}
	s.log.Info("fleet command", "op", op, "robots", len(robots), "ok", out.OK, "failed", out.Failed)
	writeJSON(w, http.StatusOK, out)
}

// sendOne sends c to robot (an e-stop on its estop topic) and returns the
// result as a robot's command answers it.
func (s *server) sendOne(ctx context.Context, robot string, c protocol.Command) commandResult {
	c.ID = uuid.NewString()
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	res := commandResult{Robot: robot, Op: c.Op, ID: c.ID}
	var rep protocol.Reply
	var err error
	if es, ok := s.g.(estopSender); ok && c.Op == protocol.OpEStop {
		rep, err = es.SendEStop(ctx, robot, c)
	} else {
		rep, err = s.g.Send(ctx, robot, c)
	}
	if err != nil {
		code := "NO_REPLY"
		if !errors.Is(err, ground.ErrNoReply) {
			code = "NOT_SENT"
		}
		res.Error = &apiError{Code: code, Message: err.Error()}
		return res
	}
	res.OK, res.Reply = rep.OK, &rep
	if e := rep.Error; e != nil {
		res.Error = &apiError{Code: e.Code, Message: e.Message, Path: e.Path, Problems: e.Problems}
	} else if !rep.OK {
		res.Error = &apiError{Code: "REFUSED", Message: "the robot refused without saying why"}
	}
	return res
}
