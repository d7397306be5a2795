package missions

import (
	"errors"
	"sync"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
)

// Options configure loading a mission.
type Options struct {
	// Registry holds the node types missions may use (nil: the built-ins
	// of bt.NewRegistry).
	Registry *bt.Registry
	// Substitute replaces node types by name, e.g. {"ComputePathToPose":
	// "Succeed"}, so an imported tree can be checked and simulated.
	Substitute map[string]string
	// Substitutions replace nodes by type, name or path (see
	// Substitutions); they apply before Substitute.
	Substitutions Substitutions
	// Library provides trees a mission's SubTrees may call (LoadFile).
	Library *Library
	// Keys are global blackboard keys that exist even when no node names
	// them (sensor readings, operator-writable values).
	Keys []string
	// MinTickHz and MaxTickHz bound the mission's tick_hz when non-zero.
	MinTickHz, MaxTickHz float64
	// Limits bound the document and the compiled tree (zero fields: the
	// defaults).
	Limits Limits
	// Imports are the daemon's defaults for what an imported file may
	// choose itself (a plan's "fly"); the file's own choice wins.
	Imports ImportDefaults
}

// ImportDefaults are defaults for the choices an imported format's file
// may make itself and often leaves out (the daemon config's; zero: the
// formats' own). A format's Import reads them from Source.Defaults.
type ImportDefaults struct {
	// PlanFly is who flies a QGroundControl plan or a Mission Planner
	// waypoint file that does not say ("fly"): "botd" (also "") or
	// "autopilot" (see missions/plan).
	PlanFly string
}

// Load decodes, validates and compiles a mission. It reports every problem
// found (as bt.Problems), the decoding ones and the compilation ones
// together, and returns a mission only when there are none.
func Load(data []byte, opts Options) (*Mission, error) {
	d, ps := decodeFile(data, "", nil, opts.Limits, opts.Imports)
	if d == nil {
		return nil, ps.err()
	}
	return d.compile(opts, ps)
}

// Compile validates and compiles a document built or changed in code.
func (d *Document) Compile(opts Options) (*Mission, error) {
	ps := &problems{lim: opts.Limits.withDefaults()}
	checkFields(d, ps)
	return d.compile(opts, ps)
}

// compile adds the problems of the limits and of the tree compilation to
// ps. A compilation problem inside a part that already has a decoding
// problem is a consequence of it and is left out.
func (d *Document) compile(opts Options, ps *problems) (*Mission, error) {
	checkLimits(d, opts, ps)
	reg := opts.Registry
	if reg == nil {
		reg = defaultRegistry()
	}
	var tree *bt.Tree
	var err error
	var notes []bt.Problem
	var standIns []bt.Substitution
	if d.Origin != nil {
		tree, notes, standIns, err = d.Origin.Compile(d, reg, opts)
	} else {
		tree, err = reg.Compile(d.Spec(opts))
	}
	if err == nil {
		// SKIPPED where nothing would honour it (bt.Tree.SkipProblems).
		ps.list = append(ps.list, tree.SkipProblems()...)
	}
	if err != nil {
		var cps bt.Problems
		if !errors.As(err, &cps) {
			cps = bt.Problems{{Path: "", Message: err.Error(), Code: bt.CodeValidation}}
		}
		decoded := len(ps.list)
		for _, p := range cps {
			if !shadowed(p.Path, ps.list[:decoded]) {
				ps.list = append(ps.list, p)
			}
		}
	}
	for _, name := range formatOrder {
		if a := formats[name].Annotate; a != nil {
			a(d, ps.list)
		}
	}
	if d.Origin != nil {
		d.Origin.Locate(ps.list)
		d.Origin.Locate(notes)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return &Mission{Doc: d, Tree: tree, Notes: notes, standIns: standIns}, nil
}

// shadowed reports whether path lies inside a part of the document that
// already has a problem (problems about the whole document shadow nothing).
func shadowed(path string, by bt.Problems) bool {
	for _, p := range by {
		if p.Path != "" && under(path, p.Path) {
			return true
		}
	}
	return false
}

// checkLimits applies the daemon's configured limits.
func checkLimits(d *Document, opts Options, ps *problems) {
	if d.TickHz <= 0 || ps.has("/tick_hz") {
		return
	}
	if opts.MinTickHz > 0 && d.TickHz < opts.MinTickHz {
		ps.add("/tick_hz", bt.CodeLimit, "%v is below the limit %v", d.TickHz, opts.MinTickHz)
	}
	if opts.MaxTickHz > 0 && d.TickHz > opts.MaxTickHz {
		ps.add("/tick_hz", bt.CodeLimit, "%v is above the limit %v", d.TickHz, opts.MaxTickHz)
	}
}

// Spec returns what bt.Registry.Compile needs to compile the document.
func (d *Document) Spec(opts Options) *bt.Spec {
	eval, _ := bt.ParseEvaluation(d.Evaluation)
	return &bt.Spec{
		Trees:         d.Trees,
		Main:          d.Main,
		Blackboard:    d.Blackboard,
		Evaluation:    eval,
		Seed:          d.Seed,
		Keys:          opts.Keys,
		Substitute:    opts.Substitute,
		Substitutions: opts.Substitutions,
		Namespace:     d.Namespace(),
		MaxNodes:      opts.Limits.withDefaults().Nodes,
	}
}

// Namespace seeds the generated node ids: the mission id, or its name when
// it has none yet.
func (d *Document) Namespace() string {
	if d.ID != "" {
		return d.ID
	}
	return d.Name
}

var defaultRegistry = sync.OnceValue(catalog.NewRegistry)
