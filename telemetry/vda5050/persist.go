package vda5050

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The order's progress is kept in Config.StateFile, so that after a
// restart of the daemon the state still names the order, the last node
// reached and what is left, and an update can go on from there.

// savedRun is an orderRun on disk.
type savedRun struct {
	Version    int           `json:"v"`
	OrderID    string        `json:"orderId"`
	UpdateID   int64         `json:"orderUpdateId"`
	ZoneSet    string        `json:"zoneSetId,omitempty"`
	Nodes      []Node        `json:"nodes"`
	Edges      []Edge        `json:"edges"`
	Base       int           `json:"base"`
	Actions    []savedAction `json:"actions"`
	Status     []ActionState `json:"status"`
	Steps      []savedStep   `json:"steps"`
	Done       int           `json:"done"`
	LastNode   int           `json:"lastNode"`
	Ended      bool          `json:"ended,omitempty"`
	Failed     bool          `json:"failed,omitempty"`
	Cancelled  bool          `json:"cancelled,omitempty"`
	MissionID  string        `json:"missionId"`
	MissionRev int64         `json:"missionRevision"`
	// Last is the latest order message's content (a resend is known by
	// it).
	LastNodes []Node `json:"lastNodes"`
	LastEdges []Edge `json:"lastEdges"`
	// HeaderIDs are the headerIds reserved per topic (state,
	// visualization, connection, factsheet): none of them has been sent
	// yet. A file with no order holds only these.
	HeaderIDs []uint32 `json:"headerIds,omitempty"`
}

type savedAction struct {
	Action
	NodeID string `json:"nodeId,omitempty"`
	EdgeID string `json:"edgeId,omitempty"`
}

type savedStep struct {
	Node   int   `json:"node"`
	Action int   `json:"action"`
	With   []int `json:"with,omitempty"`
}

// maxStateFile bounds what is read back (an order is bounded by
// max_nodes and the payload limit; its updates add to it).
const maxStateFile = 16 << 20

func (r *orderRun) saved() savedRun {
	s := savedRun{Version: 1, OrderID: r.orderID, UpdateID: r.updateID, ZoneSet: r.zoneSet, Nodes: r.nodes, Edges: r.edges,
		Base: r.base, Status: r.status, Done: r.done, LastNode: r.lastNode, Ended: r.ended, Failed: r.failed,
		Cancelled: r.cancelled, MissionID: r.missionID, MissionRev: r.missionRev,
		Actions: make([]savedAction, len(r.actions)), Steps: make([]savedStep, len(r.steps))}
	for i, a := range r.actions {
		s.Actions[i] = savedAction{Action: a.Action, NodeID: a.nodeID, EdgeID: a.edgeID}
	}
	for i, st := range r.steps {
		s.Steps[i] = savedStep{Node: st.node, Action: st.action, With: st.with}
	}
	if r.last != nil {
		s.LastNodes, s.LastEdges = r.last.nodes, r.last.edges
	}
	return s
}

// restore checks what was read back (it is trusted no more than an
// order: a damaged file must not crash the adapter) and rebuilds the run.
func (s *savedRun) restore() (*orderRun, error) {
	switch {
	case s.Version != 1:
		return nil, fmt.Errorf("version %d", s.Version)
	case s.OrderID == "" || len(s.Nodes) == 0 || s.Base < 1 || s.Base > len(s.Nodes) || len(s.Edges) != len(s.Nodes)-1:
		return nil, fmt.Errorf("not an order")
	case len(s.Status) != len(s.Actions) || s.Done < 0 || s.Done > len(s.Steps) || s.LastNode < 0 || s.LastNode >= s.Base:
		return nil, fmt.Errorf("inconsistent progress")
	}
	for _, n := range s.Nodes {
		if n.SequenceID == nil || n.Released == nil {
			return nil, fmt.Errorf("node %q without sequenceId or released", n.NodeID)
		}
	}
	for _, e := range s.Edges {
		if e.SequenceID == nil || e.Released == nil {
			return nil, fmt.Errorf("edge %q without sequenceId or released", e.EdgeID)
		}
	}
	r := &orderRun{orderID: s.OrderID, updateID: s.UpdateID, zoneSet: s.ZoneSet, nodes: s.Nodes, edges: s.Edges, base: s.Base,
		status: s.Status, done: s.Done, lastNode: s.LastNode, ended: s.Ended, failed: s.Failed, cancelled: s.Cancelled,
		missionID: s.MissionID, missionRev: s.MissionRev,
		last: &plan{orderID: s.OrderID, updateID: s.UpdateID, zoneSet: s.ZoneSet, nodes: s.LastNodes, edges: s.LastEdges}}
	for _, a := range s.Actions {
		r.actions = append(r.actions, actionRef{Action: a.Action, nodeID: a.NodeID, edgeID: a.EdgeID})
	}
	for _, st := range s.Steps {
		ok := (st.Node >= 1 && st.Node < s.Base && st.Action == -1) || (st.Node == -1 && st.Action >= 0 && st.Action < len(s.Actions))
		for _, w := range st.With {
			ok = ok && w >= 0 && w < len(s.Actions)
		}
		if !ok {
			return nil, fmt.Errorf("a step out of range")
		}
		r.steps = append(r.steps, step{node: st.Node, action: st.Action, with: st.With})
	}
	return r, nil
}

// runMark tells whether a run changed since it was saved, without
// encoding it (save is called on every poll).
type runMark struct {
	r                        *orderRun
	update                   int64
	done, last, steps        int
	ended, failed, cancelled bool
	statuses                 uint64
}

func (r *orderRun) mark() runMark {
	m := runMark{r: r, update: r.updateID, done: r.done, last: r.lastNode, steps: len(r.steps), ended: r.ended, failed: r.failed, cancelled: r.cancelled}
	for i, s := range r.status {
		m.statuses = m.statuses*31 + uint64(i+1)*statusCode(s.ActionStatus)
	}
	return m
}

func statusCode(s string) uint64 {
	switch s {
	case ActionWaiting:
		return 1
	case ActionInitializing:
		return 2
	case ActionRunning:
		return 3
	case ActionFinished:
		return 5
	case ActionFailed:
		return 6
	}
	return 7
}

// save writes the run when it changed since the last save, and a new
// reservation of headerIds when half of the last one is used
// (atomically: a temporary file renamed over the old one).
func (a *Adapter) save() {
	if a.cfg.StateFile == "" {
		return
	}
	var mark runMark
	if a.run != nil {
		mark = a.run.mark()
	}
	due := a.headersDue()
	if mark == a.savedMark && !due {
		return
	}
	res := a.headerRes
	if due {
		for i := range res {
			res[i] = a.headers[i].Load() + headerBlock
		}
	}
	s := savedRun{Version: 1}
	if a.run != nil {
		s = a.run.saved()
	}
	s.HeaderIDs = res[:]
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	tmp := a.cfg.StateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		a.log.Warn("vda5050: saving the order's progress", "err", err)
		return
	}
	if err := os.Rename(tmp, a.cfg.StateFile); err != nil {
		a.log.Warn("vda5050: saving the order's progress", "err", err)
		return
	}
	a.savedMark, a.headerRes = mark, res
}

// headersDue tells whether a topic has used half of its reserved
// headerIds.
func (a *Adapter) headersDue() bool {
	for i := range a.headers {
		if uint64(a.headers[i].Load())+headerBlock/2 > uint64(a.headerRes[i]) {
			return true
		}
	}
	return false
}

// setAside renames a state file that cannot be used, so that it is kept
// for a look and not overwritten by the next save.
func (a *Adapter) setAside() {
	if err := os.Rename(a.cfg.StateFile, a.cfg.StateFile+".bad"); err != nil {
		a.log.Warn("vda5050: setting the unusable state file aside", "err", err)
	}
}

// loadSaved reads the progress saved before a restart. An order that was
// still running then has stopped with the daemon: it is reported
// failed (its actions not run FAILED, an orderExecutionError), with its
// last node and what is left, so that the master control can send an
// update from there or a new order.
func (a *Adapter) loadSaved() {
	if a.cfg.StateFile == "" {
		return
	}
	f, err := os.Open(a.cfg.StateFile)
	if err != nil {
		if !os.IsNotExist(err) {
			a.log.Warn("vda5050: reading the saved order", "err", err)
		}
		return
	}
	var s savedRun
	err = json.NewDecoder(io.LimitReader(f, maxStateFile)).Decode(&s)
	f.Close()
	if err != nil {
		a.log.Warn("vda5050: the saved order is unreadable; starting without it", "file", filepath.Base(a.cfg.StateFile), "err", err)
		a.setAside()
		return
	}
	if len(s.HeaderIDs) == nHeaders {
		for i, h := range s.HeaderIDs {
			a.headers[i].Store(h)
			a.headerRes[i] = h
		}
	}
	if s.Version == 1 && s.OrderID == "" && len(s.Nodes) == 0 {
		return // no order yet: only the headerIds
	}
	r, err := s.restore()
	if err != nil {
		a.log.Warn("vda5050: the saved order is unusable; starting without it", "err", err)
		a.setAside()
		return
	}
	a.run = r
	switch {
	case r.active():
		a.endRun("botd restarted while the order ran: send an update from the last base node to go on, or a new order")
	case r.failed:
		up := r.updateID
		a.addError(*orderErr(&Order{OrderID: r.orderID, OrderUpdateID: &up}, ErrOrderExecution,
			"the order stopped before botd restarted: send an update from the last base node to go on, or a new order"))
	}
	a.log.Info("vda5050: order restored", "order", r.orderID, "update", r.updateID, "lastNode", r.nodes[r.lastNode].NodeID)
}
