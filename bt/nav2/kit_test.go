package nav2

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
	harness  = bttest.Harness
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
)

func init() {
	bttest.NewRegistry = func() *bt.Registry {
		r := bt.NewRegistry()
		nodes.Register(r)
		Register(r)
		return r
	}
}
