// Package catalog assembles the node registry botd compiles missions
// with: the engine's kernel (package bt), botd's own nodes (bt/nodes) and
// the catalogs ported from other frameworks, each in its own package. It is
// the one list of the node catalogs the daemon compiles in; device leaves
// are added to its registry by the drivers.
package catalog

import (
	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/btcpp"
	"github.com/botd-project/botd/bt/nav2"
	"github.com/botd-project/botd/bt/nodes"
)

// NewRegistry returns a registry holding every built-in node type.
func NewRegistry() *bt.Registry {
	r := bt.NewRegistry()
	nodes.Register(r)
	btcpp.Register(r)
	nav2.Register(r)
	return r
}
