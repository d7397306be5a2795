//go:build race

package main

// raceEnabled: the race detector multiplies a process's memory several
// times, so memory bounds are checked only without it.
const raceEnabled = true
