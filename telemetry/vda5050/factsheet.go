package vda5050

import (
	"maps"
	"slices"
)

// FactsheetInfo is what the daemon knows of the robot for its factsheet.
type FactsheetInfo struct {
	SeriesName        string // the daemon's name and version
	SeriesDescription string
	SpeedMax          float64 // m/s (the drive's max_linear)
	Width, Length     float64 // m (0: unknown, sent as 0)
}

// Factsheet is the factsheet topic's message (VDA 5050 2.0, section 6.10).
type Factsheet struct {
	Header
	TypeSpecification  map[string]any `json:"typeSpecification"`
	PhysicalParameters map[string]any `json:"physicalParameters"`
	ProtocolLimits     map[string]any `json:"protocolLimits"`
	ProtocolFeatures   map[string]any `json:"protocolFeatures"`
	AgvGeometry        map[string]any `json:"agvGeometry"`
	LoadSpecification  map[string]any `json:"loadSpecification"`
}

func (a *Adapter) factsheet() Factsheet {
	fi := a.o.Factsheet
	speed := fi.SpeedMax
	if speed <= 0 {
		speed = a.cfg.Speed
	}
	var actions []any
	for _, name := range slices.Sorted(maps.Keys(predefined)) {
		actions = append(actions, map[string]any{"actionType": name, "actionDescription": predefined[name], "actionScopes": []string{"INSTANT"}})
	}
	for _, name := range slices.Sorted(maps.Keys(a.cfg.Actions)) {
		act := map[string]any{"actionType": name, "actionScopes": []string{"NODE", "EDGE"}}
		if d := a.cfg.Actions[name].Description; d != "" {
			act["actionDescription"] = d
		}
		actions = append(actions, act)
	}
	return Factsheet{
		Header: a.header(hFactsheet),
		TypeSpecification: map[string]any{"seriesName": fi.SeriesName, "seriesDescription": fi.SeriesDescription,
			"agvKinematic": "DIFF", "agvClass": "CARRIER", "maxLoadMass": 0,
			"localizationTypes": []string{"NATURAL"}, "navigationTypes": []string{"AUTONOMOUS"}},
		PhysicalParameters: map[string]any{"speedMin": 0.01, "speedMax": speed, "accelerationMax": 1.0, "decelerationMax": 1.0,
			"heightMax": 0.0, "width": fi.Width, "length": fi.Length},
		ProtocolLimits: map[string]any{
			"maxStringLens": map[string]any{"msgLen": a.o.MaxPayload},
			"maxArrayLens":  map[string]any{"order.nodes": a.cfg.MaxNodes, "order.edges": a.cfg.MaxNodes - 1},
			"timing": map[string]any{"minOrderInterval": 0.1, "minStateInterval": a.o.Poll.Seconds(),
				"defaultStateInterval": a.cfg.StateEvery.Seconds(), "visualizationInterval": 1 / a.cfg.VisualizationHz}},
		ProtocolFeatures: map[string]any{
			"optionalParameters": []any{
				map[string]any{"parameter": "order.edges.maxSpeed", "support": "SUPPORTED"},
				map[string]any{"parameter": "order.nodes.nodePosition.allowedDeviationXY", "support": "SUPPORTED"},
			},
			"agvActions": actions},
		AgvGeometry:       map[string]any{},
		LoadSpecification: map[string]any{},
	}
}

func (a *Adapter) publishFactsheet() {
	if a.conn == nil || !a.conn.IsUp() {
		return
	}
	a.publish(a.topics.factsheet, true, a.factsheet())
}
