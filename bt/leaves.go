package bt

// constant returns one status: the behavior of a StandIn (and of the
// status leaves of bt/nodes, which have their own).
type constant Status

var (
	_ Opener = constant(0)
	_ Closer = constant(0)
	_ Halter = constant(0)
)

func (constant) Open(*Agent, *Node)  {}
func (constant) Close(*Agent, *Node) {}
func (constant) Halt(*Agent, *Node)  {}
func (c constant) Tick(a *Agent, n *Node) Status {
	if Status(c) == Error {
		a.Emit(n.Index, "error", nodeName(n)+": returns ERROR by design (a test or stand-in node)")
	}
	return Status(c)
}

// nodeName is the type name of n for messages.
func nodeName(n *Node) string {
	if n.Type == nil {
		return "node"
	}
	return n.Type.Name
}

var subTreeType = NodeType{
	Name: "SubTree", Kind: Decorator, SkipsPass: true, MinChildren: -1, MaxChildren: -1,
	Doc: "Runs another tree of the mission. In the compiled tree the SubTree node has one child, the root of the referenced tree, " +
		"and passes its status through. Each occurrence has its own nodes; recursion is a load error. With `autoremap` (the default) " +
		"the subtree shares the caller's blackboard; without it (BehaviorTree.CPP's default) it has its own, and every other " +
		"parameter is a port: `goal: \"{target}\"` makes its key goal the caller's key target (\"{=}\": the same name), `goal: 1.5` " +
		"gives its own key goal that initial value. \"@key\" is always the mission's global key.",
	Params: []Param{
		{Name: "tree", Aliases: []string{"ID"}, Type: TTree, Required: true, Doc: "name of the tree to run"},
		{Name: "autoremap", Type: TBool, Default: true, Doc: "share the caller's blackboard (false: a blackboard of its own, with ports)"},
	},
	New: func(*Builder) Behavior { return subTree{} },
}

type subTree struct{}

func (subTree) Tick(a *Agent, n *Node) Status {
	if len(n.Children) == 0 {
		a.Emit(n.Index, "error", "SubTree: no tree to run")
		return Error
	}
	return a.Exec(n.Children[0])
}
