package bt

var inverterType = NodeType{
	Name: "Inverter", Kind: Decorator, SkipsPass: true,
	Doc: "SUCCESS and FAILURE swap; RUNNING and ERROR pass through.",
	New: func(*Builder) Behavior { return &mapStatus{Success: Failure, Failure: Success} },
}

var succeederType = NodeType{
	Name: "Succeeder", Aliases: []string{"ForceSuccess"}, Kind: Decorator, SkipsPass: true,
	Doc: "FAILURE becomes SUCCESS; RUNNING and ERROR pass through.",
	New: func(*Builder) Behavior { return &mapStatus{Success: Success, Failure: Success} },
}

var failerType = NodeType{
	Name: "Failer", Aliases: []string{"ForceFailure"}, Kind: Decorator, SkipsPass: true,
	Doc: "SUCCESS becomes FAILURE; RUNNING and ERROR pass through.",
	New: func(*Builder) Behavior { return &mapStatus{Success: Failure, Failure: Failure} },
}

// mapStatus maps the child's SUCCESS and FAILURE; the rest pass through.
type mapStatus struct {
	Success, Failure Status
}

func (d *mapStatus) Tick(a *Agent, n *Node) Status {
	switch st := a.Exec(n.Children[0]); st {
	case Success:
		return d.Success
	case Failure:
		return d.Failure
	default:
		return st
	}
}
