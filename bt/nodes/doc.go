// Package nodes is botd's own node catalog beyond the engine's kernel:
// the status leaves (Succeed, Fail, Running, Error) and Log; Parallel and
// the random composites (RandomSequence, RandomPriority); the
// status-mapping decorators (Inverter, Succeeder, Failer), the repeaters,
// Limiter, MaxTime, Delay, RunOnce, Regulator and Cooldown; and what the
// agents running one tree share, Gate and Barrier. It is built on the
// engine's exported node kit like every other catalog. Register adds it
// to a registry; bt/catalog assembles it with the others.
package nodes
