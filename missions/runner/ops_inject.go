package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// prepareInject validates and compiles the tree of a mission.inject on
// the caller's goroutine. tree is the name of a tree of the active mission
// or a node definition (JSON).
func (r *Runner) prepareInject(p *pending) (protocol.Reply, bool) {
	c := p.c
	r.mu.Lock()
	parent, doc := r.activeTree, r.activeDoc
	r.mu.Unlock()
	if parent == nil {
		return refuse(c, protocol.ErrNoMission, "no mission is active", ""), true
	}
	found := false
	for _, s := range parent.Slots() {
		found = found || s == c.Slot
	}
	if !found {
		return refuse(c, protocol.ErrValidation, fmt.Sprintf("the active mission has no DynamicSubTree slot %q (slots: %v)", c.Slot, parent.Slots()), "/slot"), true
	}
	if c.Agent != nil && *c.Agent != 0 {
		return refuse(c, protocol.ErrValidation, "this robot runs one agent: agent must be 0 or absent", "/agent"), true
	}
	spec := doc.Spec(r.loadOptions())
	var name string
	if len(c.Tree) > 0 && c.Tree[0] == '"' && json.Unmarshal(c.Tree, &name) == nil {
		if _, ok := doc.Trees[name]; !ok {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("the mission has no tree %q", name), "/tree"), true
		}
		spec.Main = name
	} else {
		def := &bt.NodeDef{}
		if len(c.Tree) == 0 || json.Unmarshal(c.Tree, def) != nil || def.Type == "" {
			return refuse(c, protocol.ErrValidation, "tree must be a tree name of the mission or a node definition", "/tree"), true
		}
		if rep, bad := r.checkInjected(c, def); bad {
			return rep, true
		}
		trees := map[string]*bt.NodeDef{"injected": def}
		for k, v := range doc.Trees {
			if k != "injected" {
				trees[k] = v
			}
		}
		spec.Trees, spec.Main = trees, "injected"
	}
	t, err := r.cfg.Registry.CompileSlotTree(parent, c.Slot, spec)
	if err != nil {
		return protocol.Reply{ID: c.ID, Error: problemsError(err)}, true
	}
	p.slot, p.parent = t, parent
	return protocol.Reply{}, false
}

func (r *Runner) applyInject(p *pending, _ time.Time) protocol.Reply {
	c := p.c
	run := r.run
	if run == nil || run.s.m.Tree != p.parent {
		return refuse(c, protocol.ErrOtherMission, "the active mission changed before the injection was applied", "")
	}
	if !isActive(run.status) {
		// The tree would never run: the sender learns it now (and may load
		// a mission instead) rather than waiting for it.
		return refuse(c, protocol.ErrNoMission, fmt.Sprintf("mission %q has ended (%s): the injection would never run", run.s.m.Doc.Name, run.status), "")
	}
	var err error
	if c.Agent != nil {
		err = run.agent.Inject(c.Slot, p.slot)
	} else {
		err = p.parent.InjectAll(c.Slot, p.slot)
	}
	if err != nil {
		return refuse(c, protocol.ErrValidation, err.Error(), "/slot")
	}
	r.emit(protocol.Event{Kind: "mission.injected", Level: "info", Mission: run.s.m.Doc.ID, Revision: run.s.m.Doc.Revision,
		Message: fmt.Sprintf("slot %q will run the new tree (%d nodes) the next time it opens", c.Slot, p.slot.Len())})
	return ok(c, map[string]any{"slot": c.Slot, "nodes": p.slot.Len()})
}

// checkInjected applies CheckMission to an injected node definition (the
// mission's own trees were checked when it was loaded); the problems are
// located under /tree.
func (r *Runner) checkInjected(c protocol.Command, def *bt.NodeDef) (protocol.Reply, bool) {
	if r.cfg.CheckMission == nil {
		return protocol.Reply{}, false
	}
	err := r.cfg.CheckMission(&missions.Mission{Doc: &missions.Document{Trees: map[string]*bt.NodeDef{"injected": def}}})
	if err == nil {
		return protocol.Reply{}, false
	}
	var ps bt.Problems
	if errors.As(err, &ps) {
		moved := make(bt.Problems, len(ps))
		for i, p := range ps {
			p.Path = "/tree" + strings.TrimPrefix(p.Path, "/trees/injected")
			moved[i] = p
		}
		err = moved
	}
	return protocol.Reply{ID: c.ID, Error: problemsError(err)}, true
}
