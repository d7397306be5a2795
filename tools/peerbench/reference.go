package peerbench

import (
	"fmt"
	"os"
	"sort"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

// ReferencePath is the reference tree, relative to this module's directory.
const ReferencePath = "../../bt/testdata/reference-tree.json"

// The reference tree's visit pattern (BENCH-TREE.md): 42 node visits per
// tick, 48 when a waypoint completes and the next starts in the same tick,
// 1,092 over a 25-tick lap whose last tick returns SUCCESS.
const (
	Lap           = 25
	VisitsPerLap  = 1092
	VisitsPerTick = float64(VisitsPerLap) / Lap // 43.68
	Nodes         = 100
)

// Reference is the decoded and compiled reference tree.
type Reference struct {
	// Mission is the mission as botd loads it; its Tree is shared by every
	// botd agent.
	Mission *missions.Mission
	// Root is the main tree's definition, which the other engines are built
	// from.
	Root *bt.NodeDef
	// Keys are the blackboard keys in a fixed order, Slot their index in it
	// and Init their initial values.
	Keys []string
	Slot map[string]int
	Init []float64
}

// LoadReference reads and compiles the reference tree at path.
func LoadReference(path string) (*Reference, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := missions.Load(data, missions.Options{Registry: Registry()})
	if err != nil {
		return nil, err
	}
	if n := m.Tree.Len(); n != Nodes {
		return nil, fmt.Errorf("reference tree has %d nodes, want %d", n, Nodes)
	}
	r := &Reference{Mission: m, Root: m.Doc.Trees[m.Doc.Main], Slot: map[string]int{}}
	for k := range m.Doc.Blackboard {
		r.Keys = append(r.Keys, k)
	}
	sort.Strings(r.Keys)
	for i, k := range r.Keys {
		f, ok := m.Doc.Blackboard[k].(float64)
		if !ok {
			return nil, fmt.Errorf("blackboard %q: %v is not a number", k, m.Doc.Blackboard[k])
		}
		r.Slot[k] = i
		r.Init = append(r.Init, f)
	}
	// Every key a node names must have an initial value: the peers have no
	// notion of a missing key.
	var walk func(d *bt.NodeDef) error
	walk = func(d *bt.NodeDef) error {
		if k, ok := d.Params["key"].(string); ok {
			if _, ok := r.Slot[k]; !ok {
				return fmt.Errorf("%s %q: key %q has no initial value", d.Type, d.Name, k)
			}
		}
		for _, c := range d.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(r.Root); err != nil {
		return nil, err
	}
	return r, nil
}

// Registry is botd's built-in registry plus the benchmark leaf Countdown.
func Registry() *bt.Registry {
	r := catalog.NewRegistry()
	r.Register(bt.NodeType{
		Name: "Countdown", Kind: bt.Leaf,
		Params: []bt.Param{{Name: "key", Type: bt.TKey, Required: true}, {Name: "reset", Type: bt.TNumber, Required: true}},
		New: func(b *bt.Builder) bt.Behavior {
			return &botdCountdown{key: b.KeyParam("key"), reset: b.Number("reset").V}
		},
	})
	return r
}

// botdCountdown is BENCH-TREE.md's Countdown leaf: RUNNING three ticks,
// SUCCESS on the fourth, writing one number every tick.
type botdCountdown struct {
	key   bt.Slot
	reset float64
}

func (c *botdCountdown) Tick(a *bt.Agent, _ *bt.Node) bt.Status {
	v, _ := a.BB.Number(c.key)
	if v--; v > 0 {
		a.BB.SetNumber(c.key, v)
		return bt.Running
	}
	a.BB.SetNumber(c.key, c.reset)
	return bt.Success
}

// check is the parameters of a Check leaf as the peers use them: the
// blackboard value compared with a constant.
type check struct {
	key   string
	op    string
	value float64
}

func checkOf(d *bt.NodeDef) (check, error) {
	c := check{op: "=="}
	c.key, _ = d.Params["key"].(string)
	if op, ok := d.Params["op"].(string); ok {
		c.op = op
	}
	v, ok := d.Params["value"].(float64)
	if !ok {
		return c, fmt.Errorf("Check %q: value %v is not a number", d.Name, d.Params["value"])
	}
	c.value = v
	switch c.op {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return c, fmt.Errorf("Check %q: unknown op %q", d.Name, c.op)
	}
	for name := range d.Params {
		if name != "key" && name != "op" && name != "value" {
			return c, fmt.Errorf("Check %q: parameter %q is not supported here", d.Name, name)
		}
	}
	return c, nil
}

// compare applies op as botd's Check does on numbers.
func compare(op string, v, c float64) bool {
	switch op {
	case "<":
		return v < c
	case "<=":
		return v <= c
	case ">":
		return v > c
	case ">=":
		return v >= c
	case "==":
		return v == c
	default: // "!="
		return v != c
	}
}

// countdown is the parameters of a Countdown leaf.
type countdown struct {
	key   string
	reset float64
}

func countdownOf(d *bt.NodeDef) (countdown, error) {
	k, _ := d.Params["key"].(string)
	r, ok := d.Params["reset"].(float64)
	if !ok {
		return countdown{}, fmt.Errorf("Countdown %q: reset %v is not a number", d.Name, d.Params["reset"])
	}
	return countdown{key: k, reset: r}, nil
}

// BotdAgent is one botd agent on the shared tree, ticked every 50 ms of
// its own clock.
type BotdAgent struct {
	A   *bt.Agent
	now int64
}

// NewBotdAgent makes an agent on the reference tree.
func (r *Reference) NewBotdAgent(id int) *BotdAgent {
	return &BotdAgent{A: bt.NewAgent(r.Mission.Tree, id, 0)}
}

// Tick ticks the agent once.
func (a *BotdAgent) Tick() bt.Status {
	a.now += 50e6
	return a.A.Tick(a.now)
}
