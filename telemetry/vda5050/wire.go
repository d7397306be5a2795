package vda5050

import "encoding/json"

// Version is the protocol version botd speaks; the topics carry its major
// version (v2).
const Version = "2.0.0"

// Header is the part of every message that says who sent it and when.
type Header struct {
	HeaderID     uint32 `json:"headerId"`
	Timestamp    string `json:"timestamp"`
	Version      string `json:"version"`
	Manufacturer string `json:"manufacturer"`
	SerialNumber string `json:"serialNumber"`
}

// Order is the order topic's message.
type Order struct {
	Header
	OrderID       string `json:"orderId"`
	OrderUpdateID *int64 `json:"orderUpdateId"`
	ZoneSetID     string `json:"zoneSetId,omitempty"`
	Nodes         []Node `json:"nodes"`
	Edges         []Edge `json:"edges"`
}

// Node is a node of an order.
type Node struct {
	NodeID          string        `json:"nodeId"`
	SequenceID      *int64        `json:"sequenceId"`
	NodeDescription string        `json:"nodeDescription,omitempty"`
	Released        *bool         `json:"released"`
	NodePosition    *NodePosition `json:"nodePosition,omitempty"`
	Actions         []Action      `json:"actions"`
}

// NodePosition is where a node is. Theta is optional in an order and
// required in a state's nodeStates.
type NodePosition struct {
	X                     *float64 `json:"x"`
	Y                     *float64 `json:"y"`
	Theta                 *float64 `json:"theta,omitempty"`
	AllowedDeviationXY    float64  `json:"allowedDeviationXY,omitempty"`
	AllowedDeviationTheta float64  `json:"allowedDeviationTheta,omitempty"`
	MapID                 string   `json:"mapId"`
	MapDescription        string   `json:"mapDescription,omitempty"`
}

// Edge is an edge of an order.
type Edge struct {
	EdgeID          string   `json:"edgeId"`
	SequenceID      *int64   `json:"sequenceId"`
	EdgeDescription string   `json:"edgeDescription,omitempty"`
	Released        *bool    `json:"released"`
	StartNodeID     string   `json:"startNodeId"`
	EndNodeID       string   `json:"endNodeId"`
	MaxSpeed        *float64 `json:"maxSpeed,omitempty"`
	Actions         []Action `json:"actions"`
}

// Action is a node, edge or instant action. The 2.0.0 instantActions
// schema names its type actionName, the text and every other schema
// actionType: both are read (Type returns whichever is set).
type Action struct {
	ActionType        string            `json:"actionType"`
	ActionName        string            `json:"actionName,omitempty"`
	ActionID          string            `json:"actionId"`
	ActionDescription string            `json:"actionDescription,omitempty"`
	BlockingType      string            `json:"blockingType"`
	ActionParameters  []ActionParameter `json:"actionParameters,omitempty"`
}

// Type is the action's type, under either name.
func (a Action) Type() string {
	if a.ActionType != "" {
		return a.ActionType
	}
	return a.ActionName
}

// ActionParameter is one key and value of an action.
type ActionParameter struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// InstantActions is the instantActions topic's message: the 2.0 text
// names the array actions, vda-5050-lib 1.4.0 instantActions (the 1.1
// name); either is read.
type InstantActions struct {
	Header
	Actions        []Action `json:"actions"`
	InstantActions []Action `json:"instantActions"`
}

// State is the state topic's message.
type State struct {
	Header
	OrderID               string        `json:"orderId"`
	OrderUpdateID         int64         `json:"orderUpdateId"`
	ZoneSetID             string        `json:"zoneSetId,omitempty"`
	LastNodeID            string        `json:"lastNodeId"`
	LastNodeSequenceID    int64         `json:"lastNodeSequenceId"`
	Driving               bool          `json:"driving"`
	Paused                bool          `json:"paused"`
	NewBaseRequest        bool          `json:"newBaseRequest"`
	DistanceSinceLastNode *float64      `json:"distanceSinceLastNode,omitempty"`
	OperatingMode         string        `json:"operatingMode"`
	NodeStates            []NodeState   `json:"nodeStates"`
	EdgeStates            []EdgeState   `json:"edgeStates"`
	AgvPosition           *AgvPosition  `json:"agvPosition,omitempty"`
	Velocity              *Velocity     `json:"velocity,omitempty"`
	Loads                 []any         `json:"loads,omitempty"`
	ActionStates          []ActionState `json:"actionStates"`
	BatteryState          BatteryState  `json:"batteryState"`
	Errors                []Error       `json:"errors"`
	Information           []Information `json:"information,omitempty"`
	SafetyState           SafetyState   `json:"safetyState"`
}

// NodeState is a node still to be traversed.
type NodeState struct {
	NodeID          string         `json:"nodeId"`
	SequenceID      int64          `json:"sequenceId"`
	NodeDescription string         `json:"nodeDescription,omitempty"`
	Released        bool           `json:"released"`
	NodePosition    *StatePosition `json:"nodePosition,omitempty"`
}

// StatePosition is a node's position in a state: theta is required there.
type StatePosition struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Theta float64 `json:"theta"`
	MapID string  `json:"mapId"`
}

// EdgeState is an edge still to be traversed.
type EdgeState struct {
	EdgeID          string `json:"edgeId"`
	SequenceID      int64  `json:"sequenceId"`
	EdgeDescription string `json:"edgeDescription,omitempty"`
	Released        bool   `json:"released"`
}

// AgvPosition is where the robot is.
type AgvPosition struct {
	X                   float64  `json:"x"`
	Y                   float64  `json:"y"`
	Theta               float64  `json:"theta"`
	MapID               string   `json:"mapId"`
	PositionInitialized bool     `json:"positionInitialized"`
	LocalizationScore   *float64 `json:"localizationScore,omitempty"`
}

// Velocity is the robot's velocity in its own frame.
type Velocity struct {
	Vx    float64 `json:"vx"`
	Vy    float64 `json:"vy"`
	Omega float64 `json:"omega"`
}

// ActionState is where an action is.
type ActionState struct {
	ActionID          string `json:"actionId"`
	ActionType        string `json:"actionType,omitempty"`
	ActionDescription string `json:"actionDescription,omitempty"`
	ActionStatus      string `json:"actionStatus"`
	ResultDescription string `json:"resultDescription,omitempty"`
}

// Action statuses (the 2.0.0 state schema has no PAUSED).
const (
	ActionWaiting      = "WAITING"
	ActionInitializing = "INITIALIZING"
	ActionRunning      = "RUNNING"
	ActionFinished     = "FINISHED"
	ActionFailed       = "FAILED"
)

// BatteryState is the battery.
type BatteryState struct {
	BatteryCharge  float64  `json:"batteryCharge"`
	BatteryVoltage *float64 `json:"batteryVoltage,omitempty"`
	Charging       bool     `json:"charging"`
}

// Error is one of the state's errors.
type Error struct {
	ErrorType        string      `json:"errorType"`
	ErrorReferences  []Reference `json:"errorReferences,omitempty"`
	ErrorDescription string      `json:"errorDescription,omitempty"`
	ErrorLevel       string      `json:"errorLevel"`
}

// Reference names what an error or information is about.
type Reference struct {
	ReferenceKey   string `json:"referenceKey"`
	ReferenceValue string `json:"referenceValue"`
}

// Information is one of the state's information entries.
type Information struct {
	InfoType        string      `json:"infoType"`
	InfoReferences  []Reference `json:"infoReferences,omitempty"`
	InfoDescription string      `json:"infoDescription,omitempty"`
	InfoLevel       string      `json:"infoLevel"`
}

// SafetyState is the e-stop and the protective fields.
type SafetyState struct {
	EStop          string `json:"eStop"`
	FieldViolation bool   `json:"fieldViolation"`
}

// Connection is the connection topic's message.
type Connection struct {
	Header
	ConnectionState string `json:"connectionState"`
}

// Visualization is the visualization topic's message.
type Visualization struct {
	Header
	AgvPosition *AgvPosition `json:"agvPosition,omitempty"`
	Velocity    *Velocity    `json:"velocity,omitempty"`
}
