package missions

import "github.com/botd-project/botd/bt"

// Format is the value of the "format" field of a botd mission document.
const Format = "botd/mission@1"

// Document is a mission as written by its author (MISSIONS.md section 1).
type Document struct {
	Format             string                 `json:"format" yaml:"format"`
	ID                 string                 `json:"id,omitempty" yaml:"id,omitempty"`
	Name               string                 `json:"name,omitempty" yaml:"name,omitempty"`
	Revision           int64                  `json:"revision" yaml:"revision"`
	TickHz             float64                `json:"tick_hz,omitempty" yaml:"tick_hz,omitempty"`
	Evaluation         string                 `json:"evaluation,omitempty" yaml:"evaluation,omitempty"`
	Seed               uint64                 `json:"seed,omitempty" yaml:"seed,omitempty"`
	Blackboard         map[string]any         `json:"blackboard,omitempty" yaml:"blackboard,omitempty"`
	Main               string                 `json:"main" yaml:"main"`
	Trees              map[string]*bt.NodeDef `json:"trees" yaml:"trees"`
	ResumeAfterRestart bool                   `json:"resume_after_restart,omitempty" yaml:"resume_after_restart,omitempty"`
	OnLinkLoss         string                 `json:"on_link_loss,omitempty" yaml:"on_link_loss,omitempty"`

	// Origin is what the format the document was imported from keeps of
	// its file (nil for botd's own formats and for a document built in
	// code); see Origin. No encoding keeps it.
	Origin Origin `json:"-" yaml:"-"`
}

// Mission is a validated, compiled mission.
type Mission struct {
	Doc  *Document
	Tree *bt.Tree
	// Notes are what the author of an imported file should hear of: the
	// nodes that load but cannot run as written, which fail with the
	// reason when they run (Code bt.CodeWarning).
	Notes []bt.Problem
	// standIns are the path rules behind Notes (Resolved).
	standIns []bt.Substitution
}
