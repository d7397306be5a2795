package main

import "github.com/botd-project/botd/bt"

// newRegistry returns the node types this build of botd knows.
func newRegistry() *bt.Registry {
	return bt.NewRegistry()
}
