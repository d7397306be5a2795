package vda5050

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Error types botd reports (the VDA 5050 text names the first four).
const (
	ErrValidation      = "validationError"
	ErrOrder           = "orderError"
	ErrOrderUpdate     = "orderUpdateError"
	ErrNoRoute         = "noRouteError"
	ErrNoOrderToCancel = "noOrderToCancel"
	ErrOrderExecution  = "orderExecutionError"
	ErrInstantAction   = "instantActionError"
)

// plan is a checked order: its base (released) nodes and edges in
// sequence order, its horizon, and the steps botd runs for the base.
type plan struct {
	orderID  string
	updateID int64
	zoneSet  string
	nodes    []Node // sorted by sequenceId, base first
	edges    []Edge
	base     int // nodes[:base] are released; edges[:base-1] too
	steps    []step
	actions  []actionRef // the base's node and edge actions, in order
}

// step is one thing the generated mission does, in order: reach a node
// (the edge before it is traversed then), or run an action.
type step struct {
	node   int // index in plan.nodes when reaching it; -1 for an action
	action int // index in plan.actions; -1 for a node
	// with are the NONE actions that run alongside the drive to node.
	with []int
}

// actionRef is an action with what it belongs to.
type actionRef struct {
	Action
	nodeID, edgeID string
}

// isParamKey: 1 to 64 of A-Z a-z 0-9 _.
func isParamKey(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) < 0
}

// orderRefs are the references every order error carries, so a master
// control matches it to the order (vda-5050-lib looks for these three).
func orderRefs(o *Order, more ...Reference) []Reference {
	refs := []Reference{{"topic", "order"}}
	if o.OrderID != "" {
		refs = append(refs, Reference{"orderId", o.OrderID})
	}
	if o.OrderUpdateID != nil {
		refs = append(refs, Reference{"orderUpdateId", strconv.FormatInt(*o.OrderUpdateID, 10)})
	}
	return append(refs, more...)
}

func orderErr(o *Order, typ, desc string, more ...Reference) *Error {
	return &Error{ErrorType: typ, ErrorLevel: "WARNING", ErrorDescription: desc, ErrorReferences: orderRefs(o, more...)}
}

// checkOrder checks an order's shape against the VDA 5050 rules and what
// this robot can do, and plans its base. The first problem is returned.
func checkOrder(o *Order, cfg *Config) (*plan, *Error) {
	switch {
	case o.OrderID == "":
		return nil, orderErr(o, ErrValidation, "orderId is missing")
	case o.OrderUpdateID == nil || *o.OrderUpdateID < 0:
		return nil, orderErr(o, ErrValidation, "orderUpdateId is missing or negative")
	case len(o.Nodes) == 0:
		return nil, orderErr(o, ErrValidation, "an order has at least one node")
	case len(o.Nodes) > cfg.MaxNodes:
		return nil, orderErr(o, ErrValidation, fmt.Sprintf("%d nodes: this robot takes at most %d per order", len(o.Nodes), cfg.MaxNodes))
	case len(o.Edges) != len(o.Nodes)-1:
		return nil, orderErr(o, ErrValidation, fmt.Sprintf("%d nodes need %d edges, not %d", len(o.Nodes), len(o.Nodes)-1, len(o.Edges)))
	}
	for i, n := range o.Nodes {
		if n.NodeID == "" || n.SequenceID == nil || n.Released == nil {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("nodes[%d]: nodeId, sequenceId and released are required", i))
		}
	}
	for i, e := range o.Edges {
		if e.EdgeID == "" || e.SequenceID == nil || e.Released == nil || e.StartNodeID == "" || e.EndNodeID == "" {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("edges[%d]: edgeId, sequenceId, released, startNodeId and endNodeId are required", i))
		}
	}
	p := &plan{orderID: o.OrderID, updateID: *o.OrderUpdateID, zoneSet: o.ZoneSetID,
		nodes: slices.Clone(o.Nodes), edges: slices.Clone(o.Edges)}
	slices.SortFunc(p.nodes, func(a, b Node) int { return int(*a.SequenceID - *b.SequenceID) })
	slices.SortFunc(p.edges, func(a, b Edge) int { return int(*a.SequenceID - *b.SequenceID) })
	first := *p.nodes[0].SequenceID
	for i, n := range p.nodes {
		if *n.SequenceID != first+2*int64(i) {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("node %s has sequenceId %d: nodes go %d, %d, ... with the edges between them",
				n.NodeID, *n.SequenceID, first, first+2), Reference{"nodeId", n.NodeID})
		}
	}
	for i, e := range p.edges {
		ref := Reference{"edgeId", e.EdgeID}
		if *e.SequenceID != first+2*int64(i)+1 {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("edge %s has sequenceId %d, want %d (between nodes %d and %d)",
				e.EdgeID, *e.SequenceID, first+2*int64(i)+1, first+2*int64(i), first+2*int64(i)+2), ref)
		}
		if e.StartNodeID != p.nodes[i].NodeID || e.EndNodeID != p.nodes[i+1].NodeID {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("edge %s goes from %q to %q: the nodes beside it in the sequence are %q and %q",
				e.EdgeID, e.StartNodeID, e.EndNodeID, p.nodes[i].NodeID, p.nodes[i+1].NodeID), ref)
		}
	}
	p.base = 0
	for i, n := range p.nodes {
		if *n.Released {
			if p.base != i {
				return nil, orderErr(o, ErrValidation, fmt.Sprintf("node %s is released after a horizon node", n.NodeID), Reference{"nodeId", n.NodeID})
			}
			p.base++
		}
	}
	if p.base == 0 {
		return nil, orderErr(o, ErrValidation, "the first node is not released: an order's base has at least one node", Reference{"nodeId", p.nodes[0].NodeID})
	}
	for i, e := range p.edges {
		if *e.Released != (i < p.base-1) {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("edge %s: an edge is released exactly when its end node is", e.EdgeID), Reference{"edgeId", e.EdgeID})
		}
	}
	for i, n := range p.nodes {
		if err := checkPosition(o, n, i, cfg); err != nil {
			return nil, err
		}
	}
	for _, e := range p.edges[:p.base-1] {
		if e.MaxSpeed != nil && (*e.MaxSpeed <= 0 || math.IsInf(*e.MaxSpeed, 0)) {
			return nil, orderErr(o, ErrValidation, fmt.Sprintf("edge %s: maxSpeed %v is not a speed", e.EdgeID, *e.MaxSpeed), Reference{"edgeId", e.EdgeID})
		}
	}
	if err := p.planSteps(o, cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// checkPosition: a released node past the first needs a position on the
// robot's map; a horizon node's position, when given, must be on it too.
func checkPosition(o *Order, n Node, i int, cfg *Config) *Error {
	ref := Reference{"nodeId", n.NodeID}
	pos := n.NodePosition
	if pos == nil {
		if i > 0 && *n.Released {
			return orderErr(o, ErrNoRoute, fmt.Sprintf("node %s has no nodePosition: botd drives to positions", n.NodeID), ref)
		}
		return nil
	}
	if pos.X == nil || pos.Y == nil || pos.MapID == "" {
		return orderErr(o, ErrValidation, fmt.Sprintf("node %s: nodePosition needs x, y and mapId", n.NodeID), ref)
	}
	if pos.MapID != cfg.MapID {
		return orderErr(o, ErrNoRoute, fmt.Sprintf("node %s is on map %q; this robot is on map %q", n.NodeID, pos.MapID, cfg.MapID), ref)
	}
	if math.Abs(*pos.X) > 1e6 || math.Abs(*pos.Y) > 1e6 {
		return orderErr(o, ErrNoRoute, fmt.Sprintf("node %s at (%v, %v) is outside the map", n.NodeID, *pos.X, *pos.Y), ref)
	}
	if pos.AllowedDeviationXY < 0 {
		return orderErr(o, ErrValidation, fmt.Sprintf("node %s: allowedDeviationXY %v is negative", n.NodeID, pos.AllowedDeviationXY), ref)
	}
	if pos.Theta != nil && math.Abs(*pos.Theta) > math.Pi+1e-9 {
		return orderErr(o, ErrValidation, fmt.Sprintf("node %s: theta %v is outside [-pi, pi]", n.NodeID, *pos.Theta), ref)
	}
	if pos.AllowedDeviationTheta < 0 {
		return orderErr(o, ErrValidation, fmt.Sprintf("node %s: allowedDeviationTheta %v is negative", n.NodeID, pos.AllowedDeviationTheta), ref)
	}
	return nil
}

// planSteps lays out the base: the first node's actions, then for each
// released edge its actions, the drive to its end node and that node's
// actions. NONE actions of an edge, and of a node that has a released
// edge after it, run alongside the next drive; SOFT actions (and the
// other NONE ones) listed one after another run at the same time with the
// robot stopped; a HARD action runs alone. Every action's type must be one the
// config maps (an unknown one is refused now, not when the robot gets
// there).
func (p *plan) planSteps(o *Order, cfg *Config) *Error {
	ids := map[string]bool{}
	var alongside []int // NONE actions waiting for the next drive
	// together are the SOFT actions (and the NONE ones with no drive
	// after them) listed one after another: they run at the same time,
	// with the robot stopped; a HARD action runs alone.
	var together []int
	flush := func() {
		if len(together) > 0 {
			p.steps = append(p.steps, step{node: -1, action: together[0], with: together[1:]})
			together = nil
		}
	}
	add := func(as []Action, nodeID, edgeID string, drive bool) *Error {
		for _, a := range as {
			ref := Reference{"actionId", a.ActionID}
			switch {
			case a.ActionID == "" || ids[a.ActionID]:
				return orderErr(o, ErrValidation, fmt.Sprintf("action %q: every action needs an actionId of its own", a.Type()), ref)
			case a.Type() == "":
				return orderErr(o, ErrValidation, fmt.Sprintf("action %s has no actionType", a.ActionID), ref)
			case !slices.Contains([]string{"NONE", "SOFT", "HARD"}, a.BlockingType):
				return orderErr(o, ErrValidation, fmt.Sprintf("action %s: blockingType %q is not NONE, SOFT or HARD", a.ActionID, a.BlockingType), ref)
			}
			if _, ok := cfg.Actions[a.Type()]; !ok {
				return orderErr(o, ErrOrder, fmt.Sprintf("action %s: this robot has no action %q (its config's vda5050.actions)", a.ActionID, a.Type()),
					ref, Reference{"actionType", a.Type()})
			}
			for _, kv := range a.ActionParameters {
				if !isParamKey(kv.Key) || len(kv.Value) == 0 {
					return orderErr(o, ErrValidation, fmt.Sprintf("action %s: parameter %q: want a key of letters, digits and _ with a value", a.ActionID, kv.Key), ref)
				}
			}
			ids[a.ActionID] = true
			p.actions = append(p.actions, actionRef{Action: a, nodeID: nodeID, edgeID: edgeID})
			i := len(p.actions) - 1
			switch {
			case a.BlockingType == "NONE" && drive:
				alongside = append(alongside, i)
			case a.BlockingType == "HARD":
				flush()
				p.steps = append(p.steps, step{node: -1, action: i})
			default:
				together = append(together, i)
			}
		}
		flush()
		return nil
	}
	if err := add(p.nodes[0].Actions, p.nodes[0].NodeID, "", p.base > 1); err != nil {
		return err
	}
	for i := 1; i < p.base; i++ {
		e := p.edges[i-1]
		if err := add(e.Actions, "", e.EdgeID, true); err != nil {
			return err
		}
		p.steps = append(p.steps, step{node: i, action: -1, with: alongside})
		alongside = nil
		if err := add(p.nodes[i].Actions, p.nodes[i].NodeID, "", i+1 < p.base); err != nil {
			return err
		}
	}
	return nil
}

// sameContent reports whether two orders say the same (a resend).
func sameContent(a, b *plan) bool {
	ja, _ := json.Marshal([]any{a.orderID, a.updateID, a.nodes, a.edges})
	jb, _ := json.Marshal([]any{b.orderID, b.updateID, b.nodes, b.edges})
	return string(ja) == string(jb)
}
