package btcpp

import (
	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/bttest"
	"github.com/botd-project/botd/bt/nodes"
)

// The test kit under the names the tests were written with.
type (
	kv       = bttest.KV
	counts   = bttest.Counts
	tickCase = bttest.TickCase
)

const ms = bttest.Ms

var (
	nd              = bttest.ND
	sc              = bttest.SC
	tl              = bttest.TL
	newHarness      = bttest.NewHarness
	runTickCases    = bttest.RunTickCases
	withBB          = bttest.WithBB
	withKeys        = bttest.WithKeys
	mainSpec        = bttest.MainSpec
	compileProblems = bttest.CompileProblems
	wantProblems    = bttest.WantProblems
	testRegistry    = bttest.TestRegistry
	compileTree     = bttest.CompileTree
	withTree        = bttest.WithTree
)

func init() {
	bttest.NewRegistry = func() *bt.Registry {
		r := bt.NewRegistry()
		nodes.Register(r)
		Register(r)
		return r
	}
}

type specOpt = bttest.SpecOpt

// dyn builds a DynamicSubTree node running slot, with default tree def.
func dyn(name, slot, def string) *bt.NodeDef {
	p := kv{"slot": slot}
	if def != "" {
		p["default"] = def
	}
	return nd("DynamicSubTree", name, p)
}
