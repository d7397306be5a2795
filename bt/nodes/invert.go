package nodes

import "github.com/botd-project/botd/bt"

var inverterType = bt.NodeType{
	Name: "Inverter", Kind: bt.Decorator, SkipsPass: true,
	Doc: "SUCCESS and FAILURE swap; RUNNING and ERROR pass through.",
	New: func(*bt.Builder) bt.Behavior { return &mapStatus{Success: bt.Failure, Failure: bt.Success} },
}

var succeederType = bt.NodeType{
	Name: "Succeeder", Aliases: []string{"ForceSuccess"}, Kind: bt.Decorator, SkipsPass: true,
	Doc: "FAILURE becomes SUCCESS; RUNNING and ERROR pass through.",
	New: func(*bt.Builder) bt.Behavior { return &mapStatus{Success: bt.Success, Failure: bt.Success} },
}

var failerType = bt.NodeType{
	Name: "Failer", Aliases: []string{"ForceFailure"}, Kind: bt.Decorator, SkipsPass: true,
	Doc: "SUCCESS becomes FAILURE; RUNNING and ERROR pass through.",
	New: func(*bt.Builder) bt.Behavior { return &mapStatus{Success: bt.Failure, Failure: bt.Failure} },
}

// mapStatus maps the child's SUCCESS and FAILURE; the rest pass through.
type mapStatus struct {
	Success, Failure bt.Status
}

func (d *mapStatus) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	switch st := a.Exec(n.Children[0]); st {
	case bt.Success:
		return d.Success
	case bt.Failure:
		return d.Failure
	default:
		return st
	}
}
