package nodes

import "github.com/botd-project/botd/bt"

var succeedType = bt.NodeType{
	Name: "Succeed", Aliases: []string{"AlwaysSuccess"}, Kind: bt.Leaf, Category: "action",
	Doc: "Returns SUCCESS. For tests and stubs.",
	New: func(*bt.Builder) bt.Behavior { return constant(bt.Success) },
}

var failType = bt.NodeType{
	Name: "Fail", Aliases: []string{"AlwaysFailure"}, Kind: bt.Leaf, Category: "action",
	Doc: "Returns FAILURE. For tests and stubs.",
	New: func(*bt.Builder) bt.Behavior { return constant(bt.Failure) },
}

var runningType = bt.NodeType{
	Name: "Running", Aliases: []string{"Runner"}, Kind: bt.Leaf, Category: "action",
	Doc: "Returns RUNNING. For tests and stubs.",
	New: func(*bt.Builder) bt.Behavior { return constant(bt.Running) },
}

var errorType = bt.NodeType{
	Name: "Error", Kind: bt.Leaf, Category: "action",
	Doc: "Returns ERROR. For tests and stubs.",
	New: func(*bt.Builder) bt.Behavior { return constant(bt.Error) },
}

type constant bt.Status

var (
	_ bt.Opener = constant(0)
	_ bt.Closer = constant(0)
	_ bt.Halter = constant(0)
)

func (constant) Open(*bt.Agent, *bt.Node)  {}
func (constant) Close(*bt.Agent, *bt.Node) {}
func (constant) Halt(*bt.Agent, *bt.Node)  {}
func (c constant) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if bt.Status(c) == bt.Error {
		a.Emit(n.Index, "error", nodeName(n)+": returns ERROR by design (a test or stand-in node)")
	}
	return bt.Status(c)
}

// nodeName is the type name of n for messages.
func nodeName(n *bt.Node) string {
	if n.Type == nil {
		return "node"
	}
	return n.Type.Name
}
