package peerbench

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	b3 "github.com/magicsea/behavior3go"
	"github.com/magicsea/behavior3go/composites"
	"github.com/magicsea/behavior3go/config"
	"github.com/magicsea/behavior3go/core"
	"github.com/magicsea/behavior3go/loader"
)

// B3Tree is the reference tree in behavior3go: one tree shared by every
// agent, loaded from a Behavior3 tree configuration with the library's
// loader. Its composites are the library's own Priority, Sequence and
// MemSequence, which have botd's semantics on this tree: Priority and
// Sequence start at the first child every tick; MemSequence keeps the
// RUNNING child's index in the agent's blackboard and resets it when the
// node opens again after completing. Check and Countdown are custom nodes
// written in the library's style (core.Condition and core.Action reading
// and writing the blackboard's global memory).
type B3Tree struct {
	Tree *core.BehaviorTree
	init []float64
	keys []string
}

// NewB3Tree builds the reference tree in behavior3go. With counted set
// every node counts its visits (node executions) into the *int passed as
// the tick's target, for the parity test only.
func (r *Reference) NewB3Tree(counted bool) (*B3Tree, error) {
	cfg := &config.BTTreeCfg{ID: "reference-tree", Title: r.Mission.Doc.Name, Nodes: map[string]config.BTNodeCfg{}}
	n := 0
	var add func(d *bt.NodeDef) (string, error)
	add = func(d *bt.NodeDef) (string, error) {
		id := fmt.Sprintf("n%d", n)
		n++
		nc := config.BTNodeCfg{Id: id, Name: d.Type, Title: d.Name, Properties: d.Params}
		switch d.Type {
		case "Priority", "Sequence", "MemSequence":
			nc.Category = b3.COMPOSITE
		case "Check":
			if _, err := checkOf(d); err != nil {
				return "", err
			}
			nc.Category = b3.CONDITION
		case "Countdown":
			if _, err := countdownOf(d); err != nil {
				return "", err
			}
			nc.Category = b3.ACTION
		default:
			return "", fmt.Errorf("behavior3go: node type %s is not mapped", d.Type)
		}
		for _, c := range d.Children {
			cid, err := add(c)
			if err != nil {
				return "", err
			}
			nc.Children = append(nc.Children, cid)
		}
		cfg.Nodes[id] = nc
		return id, nil
	}
	root, err := add(r.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	ext := b3.NewRegisterStructMaps()
	if counted {
		ext.Register("Check", &countedB3Check{})
		ext.Register("Countdown", &countedB3Countdown{})
		ext.Register("Priority", &countedB3Priority{})
		ext.Register("Sequence", &countedB3Sequence{})
		ext.Register("MemSequence", &countedB3MemSequence{})
	} else {
		ext.Register("Check", &b3Check{})
		ext.Register("Countdown", &b3Countdown{})
	}
	return &B3Tree{Tree: loader.CreateBevTreeFromConfig(cfg, ext), init: r.Init, keys: r.Keys}, nil
}

// B3Agent is one agent of a shared behavior3go tree: its blackboard.
type B3Agent struct {
	Tree *B3Tree
	BB   *core.Blackboard
	// Target is passed to the tree's Tick (the visit counter in the
	// parity test, nil otherwise).
	Target any
}

// NewAgent makes an agent with the reference tree's initial blackboard.
func (t *B3Tree) NewAgent() *B3Agent {
	bb := core.NewBlackboard()
	for i, k := range t.keys {
		bb.SetMem(k, t.init[i])
	}
	return &B3Agent{Tree: t, BB: bb}
}

// Tick ticks the agent once.
func (a *B3Agent) Tick() bt.Status {
	switch a.Tree.Tree.Tick(a.Target, a.BB) {
	case b3.RUNNING:
		return bt.Running
	case b3.SUCCESS:
		return bt.Success
	case b3.FAILURE:
		return bt.Failure
	default:
		return bt.Error
	}
}

// b3Check is botd's Check on numbers as a behavior3go condition.
type b3Check struct {
	core.Condition
	c check
}

func (n *b3Check) Initialize(setting *config.BTNodeCfg) {
	n.Condition.Initialize(setting)
	n.c.key = setting.GetPropertyAsString("key")
	n.c.op = "=="
	if op, ok := setting.Properties["op"].(string); ok {
		n.c.op = op
	}
	n.c.value = setting.GetProperty("value")
}

func (n *b3Check) OnTick(tick *core.Tick) b3.Status {
	if compare(n.c.op, tick.Blackboard.GetFloat64(n.c.key, "", ""), n.c.value) {
		return b3.SUCCESS
	}
	return b3.FAILURE
}

// b3Countdown is BENCH-TREE.md's Countdown as a behavior3go action.
type b3Countdown struct {
	core.Action
	key   string
	reset float64
}

func (n *b3Countdown) Initialize(setting *config.BTNodeCfg) {
	n.Action.Initialize(setting)
	n.key = setting.GetPropertyAsString("key")
	n.reset = setting.GetProperty("reset")
}

func (n *b3Countdown) OnTick(tick *core.Tick) b3.Status {
	bb := tick.Blackboard
	if v := bb.GetFloat64(n.key, "", "") - 1; v > 0 {
		bb.Set(n.key, v, "", "")
		return b3.RUNNING
	}
	bb.Set(n.key, n.reset, "", "")
	return b3.SUCCESS
}

// The counted variants count a visit in OnEnter, which BaseNode calls on
// every execution of the node, into the *int given as the tick's target.

func countB3(tick *core.Tick) {
	if c, ok := tick.GetTarget().(*int); ok {
		*c++
	}
}

type countedB3Check struct{ b3Check }

func (n *countedB3Check) OnEnter(tick *core.Tick) { countB3(tick) }

type countedB3Countdown struct{ b3Countdown }

func (n *countedB3Countdown) OnEnter(tick *core.Tick) { countB3(tick) }

type countedB3Priority struct{ composites.Priority }

func (n *countedB3Priority) OnEnter(tick *core.Tick) { countB3(tick) }

type countedB3Sequence struct{ composites.Sequence }

func (n *countedB3Sequence) OnEnter(tick *core.Tick) { countB3(tick) }

type countedB3MemSequence struct{ composites.MemSequence }

func (n *countedB3MemSequence) OnEnter(tick *core.Tick) { countB3(tick) }
