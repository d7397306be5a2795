// Package nodes is botd's own node catalog beyond the engine's kernel:
// the status leaves (Succeed, Fail, Running, Error), the status-mapping
// decorators (Inverter, Succeeder, Failer), the repeaters, Limiter,
// RunOnce and Regulator, built on the engine's exported node kit like
// every other catalog. Register adds them to a registry; bt/catalog
// assembles it with the others.
package nodes
