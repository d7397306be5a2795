//go:build !linux

package main

// unameMachine is empty off Linux: the hardware checks are for a Pi.
func unameMachine() string { return "" }
