package bt

// faultType stands in for a node of an imported file that cannot run as
// written but that its home engine loads all the same: a port value
// BehaviorTree.CPP converts only when the node runs ("10,000" for a
// number), a child count it checks only at the first tick, a leaf named
// like one of botd's whose device this robot does not have. The file
// loads (botd check warns); the node fails with the reason when it runs,
// as BehaviorTree.CPP's node throws there.
var faultType = NodeType{
	Name: "Fault", Kind: Composite, MinChildren: -1, MaxChildren: -1, Category: "action",
	Doc: "Stands in for a node of an imported file that cannot run as written (a port value BehaviorTree.CPP converts only " +
		"when the node runs, a child count it checks at the first tick, a device this robot does not have): returns ERROR " +
		"with `reason` whenever it is ticked. Its children are built, never ticked.",
	Params: []Param{{Name: "reason", Type: TString, Required: true, Doc: "why the node cannot run"}},
	New: func(b *Builder) Behavior {
		v, _ := b.Raw("reason")
		s, _ := v.(string)
		return fault(s)
	},
}

// fault returns ERROR with its reason.
type fault string

func (fault) Open(*Agent, *Node)  {}
func (fault) Close(*Agent, *Node) {}
func (fault) Halt(*Agent, *Node)  {}
func (f fault) Tick(a *Agent, n *Node) Status {
	a.Emit(n.Index, "error", string(f))
	return Error
}
