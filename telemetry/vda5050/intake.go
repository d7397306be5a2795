package vda5050

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/protocol"
)

// predefined are the instant actions botd answers itself.
var predefined = map[string]string{
	"startPause":       "pauses the order: the running mission is paused and the robot stops",
	"stopPause":        "resumes a paused order",
	"cancelOrder":      "cancels the order: the mission is aborted, the robot stops",
	"stateRequest":     "publishes the state at once",
	"factsheetRequest": "publishes the factsheet",
	"logReport":        "writes the state to botd's log (reason: the reason parameter)",
	"initPosition":     "refused: the pose comes from the robot's pose source",
}

// commandTimeout bounds how long a command to the runner may take.
const commandTimeout = 10 * time.Second

func (a *Adapter) handle(ctx context.Context, m inbound) {
	kind := a.kind(m.topic)
	topicRef := Reference{"topic", kind}
	var h Header
	if err := json.Unmarshal(m.payload, &h); err != nil {
		a.addError(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{topicRef},
			ErrorDescription: "not a JSON object: " + trim(err.Error())})
		return
	}
	if err := a.checkHeader(h); err != "" {
		a.addError(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{topicRef,
			{"headerId", strconv.FormatUint(uint64(h.HeaderID), 10)}}, ErrorDescription: err})
		return
	}
	switch kind {
	case "order":
		var o Order
		if err := json.Unmarshal(m.payload, &o); err != nil {
			a.addError(*orderErr(&o, ErrValidation, "not a VDA 5050 order: "+trim(err.Error())))
			return
		}
		a.order(ctx, &o)
	case "instantActions":
		var ia InstantActions
		if err := json.Unmarshal(m.payload, &ia); err != nil {
			a.addError(Error{ErrorType: ErrValidation, ErrorLevel: "WARNING", ErrorReferences: []Reference{topicRef},
				ErrorDescription: "not VDA 5050 instant actions: " + trim(err.Error())})
			return
		}
		for _, act := range append(ia.Actions, ia.InstantActions...) {
			a.instantAction(ctx, act)
		}
	}
}

// checkHeader refuses another version or another vehicle's message.
func (a *Adapter) checkHeader(h Header) string {
	switch {
	case !strings.HasPrefix(h.Version, "2."):
		return fmt.Sprintf("version %q: this robot speaks VDA 5050 %s", h.Version, Version)
	case h.SerialNumber != a.cfg.SerialNumber:
		return fmt.Sprintf("the message is for serial number %q; this robot is %q", h.SerialNumber, a.cfg.SerialNumber)
	case h.Manufacturer != a.cfg.Manufacturer:
		return fmt.Sprintf("the message is for manufacturer %q; this robot is of %q", h.Manufacturer, a.cfg.Manufacturer)
	}
	return ""
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// order takes a new order or an update of the current one. A refusal
// changes nothing the robot does.
func (a *Adapter) order(ctx context.Context, o *Order) {
	p, perr := checkOrder(o, a.cfg)
	if perr != nil {
		a.addError(*perr)
		return
	}
	r := a.run
	if r != nil && r.orderID == p.orderID {
		a.update(ctx, o, p)
		return
	}
	if r.active() {
		a.addError(*orderErr(o, ErrOrder, fmt.Sprintf("order %s is running: a new order waits until it is done, or cancelOrder", r.orderID),
			Reference{"runningOrderId", r.orderID}))
		return
	}
	if e := a.checkStart(o, p); e != nil {
		a.addError(*e)
		return
	}
	next := newRun(p)
	if e := a.load(ctx, o, next, false); e != nil {
		a.addError(*e)
		return
	}
	a.clearOrderErrors()
	a.run = next
}

// update stitches an order update (same orderId, higher orderUpdateId)
// at the last base node. While the order's mission runs (or is paused),
// the update's steps are injected into its next update slot: the
// mission goes on into them when it gets there, and nothing it is doing
// now is halted or started again. Once the mission has ended, a new
// revision of it runs what is left.
func (a *Adapter) update(ctx context.Context, o *Order, p *plan) {
	a.observe() // the run as far as the runner has got
	r := a.run
	switch {
	case p.updateID == r.updateID && sameContent(p, r.last):
		return // a resend: nothing to do
	case p.updateID <= r.updateID:
		a.addError(*orderErr(o, ErrOrderUpdate, fmt.Sprintf("orderUpdateId %d: order %s is at update %d already", p.updateID, r.orderID, r.updateID)))
		return
	case r.cancelled:
		a.addError(*orderErr(o, ErrOrderUpdate, fmt.Sprintf("order %s was cancelled: send a new order", r.orderID)))
		return
	}
	last := r.nodes[r.base-1]
	if first := p.nodes[0]; first.NodeID != last.NodeID || *first.SequenceID != *last.SequenceID {
		a.addError(*orderErr(o, ErrOrderUpdate, fmt.Sprintf("an update starts at the last base node %s (sequence %d), not at %s (sequence %d)",
			last.NodeID, *last.SequenceID, first.NodeID, *first.SequenceID), Reference{"nodeId", first.NodeID}))
		return
	}
	for _, act := range p.actions {
		for _, old := range r.actions {
			if old.ActionID == act.ActionID {
				a.addError(*orderErr(o, ErrOrderUpdate, fmt.Sprintf("action %s is in the order already", act.ActionID), Reference{"actionId", act.ActionID}))
				return
			}
		}
	}
	if r.active() && r.slots >= updateSlots {
		// The mission's update slots are used up: the update waits in the
		// run until the mission ends at its last step (a node or an
		// action done, where the robot stands), and a new revision of the
		// mission runs it from there (see observe). Nothing in progress
		// is halted or started again.
		next := r.clone()
		next.compact()
		next.stitch(p)
		a.clearOrderErrors()
		a.run = next
		return
	}
	if r.active() {
		if id, key, ok := literalParams(p.actions); !ok {
			a.addError(*orderErr(o, ErrValidation, fmt.Sprintf("action %s: parameter %s is a string shaped as a blackboard reference ({key}), which an order update cannot carry",
				id, key), Reference{"actionId", id}))
			return
		}
		next := r.clone()
		next.compact()
		from := len(next.steps)
		next.stitch(p)
		e, ended := a.inject(ctx, o, next, from)
		if e == nil {
			a.clearOrderErrors()
			a.run = next
			return
		}
		if !ended {
			e.ErrorType = ErrOrderUpdate
			a.addError(*e)
			return
		}
		// The mission ended before the update reached it: it is loaded
		// again below, from where it ended.
		a.observe()
		r = a.run
	}
	next := r.clone()
	next.compact()
	next.stitch(p)
	next.from = next.done
	next.rearm()
	if e := a.load(ctx, o, next, r.active()); e != nil {
		e.ErrorType = ErrOrderUpdate
		a.addError(*e)
		return
	}
	a.clearOrderErrors()
	a.run = next
}

// inject puts the steps from steps[from:] of the stitched run into the
// running mission's next update slot. ended reports that the runner
// refused it because the mission has ended.
func (a *Adapter) inject(ctx context.Context, o *Order, r *orderRun, from int) (e *Error, ended bool) {
	tree, err := r.extension(from, a.cfg)
	if err != nil {
		return orderErr(o, ErrOrder, "generating the update: "+err.Error()), false
	}
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	rep := a.o.Runner.Do(cctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionInject, Slot: slotName(r.slots + 1), Tree: tree})
	if !rep.OK {
		why := "refused"
		if rep.Error != nil {
			why = rep.Error.Code + ": " + rep.Error.Message
			ended = rep.Error.Code == protocol.ErrNoMission || rep.Error.Code == protocol.ErrOtherMission
		}
		return orderErr(o, ErrOrderUpdate, "botd refused the order update: "+trim(why)), ended
	}
	r.slots++
	r.upTo = len(r.steps)
	return nil, false
}

// checkStart: a new order starts where the robot is.
func (a *Adapter) checkStart(o *Order, p *plan) *Error {
	first := p.nodes[0]
	if first.NodePosition == nil {
		return nil
	}
	x, y, _, _, ok := a.poseNow()
	if !ok {
		return orderErr(o, ErrNoRoute, "the robot's pose is not known: it cannot drive an order", Reference{"nodeId", first.NodeID})
	}
	d := math.Hypot(*first.NodePosition.X-x, *first.NodePosition.Y-y)
	if lim := math.Max(a.cfg.StartTolerance, first.NodePosition.AllowedDeviationXY); d > lim {
		return orderErr(o, ErrNoRoute, fmt.Sprintf("the first node %s is %.2f m from the robot (at most %.2f m): an order starts where the robot is",
			first.NodeID, d, lim), Reference{"nodeId", first.NodeID})
	}
	return nil
}

// load loads and starts the run's mission through the runner, as a ground
// station would, so every check and limit of botd applies.
func (a *Adapter) load(ctx context.Context, o *Order, r *orderRun, replace bool) *Error {
	doc, err := r.mission(a.cfg, a.loadCount+1)
	if err != nil {
		return orderErr(o, ErrOrder, "generating the mission: "+err.Error())
	}
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	rep := a.o.Runner.Do(cctx, protocol.Command{ID: uuid.NewString(), Op: protocol.OpMissionLoad, Mission: doc, Start: true, Replace: replace})
	if !rep.OK {
		typ, why := ErrOrder, "refused"
		if rep.Error != nil {
			why = rep.Error.Code + ": " + rep.Error.Message
			if rep.Error.Code == protocol.ErrValidation {
				typ = ErrNoRoute // botd's checks of the drive (speeds, the geofence) refused it
			}
		}
		return orderErr(o, typ, "botd refused the order's mission: "+trim(why))
	}
	a.loadCount++
	r.token, r.loaded, r.seen = a.loadCount, a.o.Now(), false
	r.missionRev, r.slots, r.upTo = r.updateID, 0, len(r.steps)
	return nil
}

// instantAction answers one instant action, always: its state goes
// FINISHED or FAILED (with why) in actionStates.
func (a *Adapter) instantAction(ctx context.Context, act Action) {
	st := ActionState{ActionID: act.ActionID, ActionType: act.Type(), ActionDescription: act.ActionDescription, ActionStatus: ActionFinished}
	fail := func(typ, why string) {
		st.ActionStatus, st.ResultDescription = ActionFailed, why
		a.addError(Error{ErrorType: typ, ErrorLevel: "WARNING", ErrorDescription: why, ErrorReferences: []Reference{
			{"topic", "instantActions"}, {"actionId", act.ActionID}, {"actionType", act.Type()}}})
	}
	do := func(op string) protocol.Reply {
		cctx, cancel := context.WithTimeout(ctx, commandTimeout)
		defer cancel()
		return a.o.Runner.Do(cctx, protocol.Command{ID: uuid.NewString(), Op: op})
	}
	refused := func(rep protocol.Reply) string {
		if rep.Error == nil {
			return "refused"
		}
		return rep.Error.Code + ": " + rep.Error.Message
	}
	switch act.Type() {
	case "":
		fail(ErrValidation, "an instant action without actionType")
	case "startPause", "stopPause":
		op := protocol.OpMissionPause
		if act.Type() == "stopPause" {
			op = protocol.OpMissionResume
		}
		if !a.run.active() {
			fail(ErrInstantAction, "no order is running")
		} else if rep := do(op); !rep.OK {
			fail(ErrInstantAction, trim(refused(rep)))
		}
	case "cancelOrder":
		if !a.run.active() {
			fail(ErrNoOrderToCancel, "no order to cancel")
			break
		}
		if rep := do(protocol.OpMissionAbort); !rep.OK && (rep.Error == nil || rep.Error.Code != protocol.ErrNoMission) {
			fail(ErrInstantAction, trim(refused(rep)))
			break
		}
		a.run.cancel()
	case "stateRequest":
		defer a.publishState(true)
	case "factsheetRequest":
		defer a.publishFactsheet()
	case "logReport":
		reason := ""
		for _, p := range act.ActionParameters {
			if p.Key == "reason" {
				reason = string(p.Value)
			}
		}
		a.log.Info("vda5050: logReport", "reason", trim(reason), "state", a.o.Runner.State())
	case "initPosition":
		if why := a.initPosition(act); why != "" {
			fail(ErrInstantAction, trim(why))
		}
	default:
		fail(ErrInstantAction, fmt.Sprintf("%q is not an instant action this robot knows (%s)", act.Type(), knownInstant()))
	}
	a.instant = append(a.instant, st)
	if len(a.instant) > maxInstant {
		a.instant = a.instant[len(a.instant)-maxInstant:]
	}
}

func knownInstant() string {
	return "startPause, stopPause, cancelOrder, stateRequest, factsheetRequest, logReport, initPosition"
}

// initPosition sets the robot's pose (parameters x, y, theta, and mapId
// when given, which must be this robot's map), where Options.SetPose can;
// never while an order or a botd mission runs (the robot would jump under
// it). It returns why not, or "".
func (a *Adapter) initPosition(act Action) string {
	if a.o.SetPose == nil {
		return "initPosition is not possible on this robot: its pose source (" + a.cfg.PoseKey +
			") cannot be set (botd sets the pose only of a simulated robot whose pose is the simulator's)"
	}
	var num [3]float64
	var have [3]bool
	names := [3]string{"x", "y", "theta"}
	for _, p := range act.ActionParameters {
		if p.Key == "mapId" {
			var m string
			if json.Unmarshal(p.Value, &m) != nil || m != a.cfg.MapID {
				return fmt.Sprintf("mapId %s: this robot is on map %q", trim(string(p.Value)), a.cfg.MapID)
			}
			continue
		}
		if i := slices.Index(names[:], p.Key); i >= 0 {
			if json.Unmarshal(p.Value, &num[i]) != nil {
				return fmt.Sprintf("parameter %s must be a number, not %s", p.Key, trim(string(p.Value)))
			}
			have[i] = true
		}
	}
	for i, ok := range have {
		if !ok {
			return "initPosition needs the parameters x, y and theta (missing " + names[i] + ")"
		}
	}
	x, y, theta := num[0], num[1], num[2]
	if math.Abs(x) > 1e6 || math.Abs(y) > 1e6 || math.Abs(theta) > math.Pi+1e-9 {
		return fmt.Sprintf("pose (%v, %v, %v) is outside the map or theta outside [-pi, pi]", x, y, theta)
	}
	if a.run.active() {
		return "not while an order runs: cancel it first"
	}
	if st := a.o.Runner.State(); st.Mode == protocol.ModeRunning || st.Mode == protocol.ModePaused {
		return "not while botd runs a mission (mode " + st.Mode + ")"
	}
	if err := a.o.SetPose(x, y, theta); err != nil {
		return "setting the pose: " + err.Error()
	}
	a.pose = poseTracker{} // the jump is no motion
	a.log.Info("vda5050: initPosition", "x", x, "y", y, "theta", theta)
	return ""
}
