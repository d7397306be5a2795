package nodes

import (
	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/bttest"
)

// The test kit under the names the tests were written with.
type (
	kv       = bttest.KV
	counts   = bttest.Counts
	tickCase = bttest.TickCase
	harness  = bttest.Harness
)

const ms = bttest.Ms

var (
	nd              = bttest.ND
	sc              = bttest.SC
	tl              = bttest.TL
	newHarness      = bttest.NewHarness
	harnessFor      = bttest.HarnessFor
	newFleet        = bttest.NewFleet
	only            = bttest.Only
	testRegistry    = bttest.TestRegistry
	withBB          = bttest.WithBB
	withSeed        = bttest.WithSeed
	nodeNamed       = bttest.NodeNamed
	runTickCases    = bttest.RunTickCases
	withTree        = bttest.WithTree
	mainSpec        = bttest.MainSpec
	compileTree     = bttest.CompileTree
	compileProblems = bttest.CompileProblems
	wantProblems    = bttest.WantProblems
	eqLines         = bttest.EqLines
)

func init() {
	bttest.NewRegistry = func() *bt.Registry {
		r := bt.NewRegistry()
		Register(r)
		return r
	}
}
