package main

import (
	"log/slog"
	"math"
	"runtime/debug"
)

// MemoryConfig tunes the Go runtime's garbage collector for a small
// machine (docs/CONFIGURATION.md, docs/PERFORMANCE.md).
//
// The daemon keeps about 1.5–2 MiB live on the heap. With Go's default
// GOGC of 100 the heap grows to its minimum goal of 4 MiB between
// collections, twice what is live; at 50 it grows about 1 MiB less, for
// one more collection every few seconds (under a millisecond of CPU each,
// off the tick's goroutine). The GOGC and GOMEMLIMIT environment
// variables, when set, win over the config, as they do for any Go
// program.
type MemoryConfig struct {
	// GCPercent is GOGC: how far, in percent of what is live, the heap
	// grows before the next collection. 0: the default, 50.
	GCPercent int `yaml:"gc_percent"`
	// SoftLimitMiB is GOMEMLIMIT in MiB: as the Go runtime's memory nears
	// it, the collector runs more often. 0: no limit (the default). It is
	// soft: a daemon whose live memory exceeds it keeps running, with the
	// collector taking up to half the CPU, so set it well above what the
	// daemon needs (PERFORMANCE.md gives the figures), not at it.
	SoftLimitMiB int `yaml:"soft_limit_mib"`
}

const defaultGCPercent = 50

func (m *MemoryConfig) setDefaults() {
	if m.GCPercent == 0 {
		m.GCPercent = defaultGCPercent
	}
}

func (m MemoryConfig) validate(bad func(field, format string, args ...any)) {
	if m.GCPercent != 0 && (m.GCPercent < 10 || m.GCPercent > 1000) {
		bad("memory.gc_percent", "%d is outside [10, 1000]", m.GCPercent)
	}
	// 1 GiB is far beyond any Pi botd runs on and fits a 32-bit int.
	if m.SoftLimitMiB < 0 || m.SoftLimitMiB > 1024 {
		bad("memory.soft_limit_mib", "%d is outside [0, 1024] (0: no limit)", m.SoftLimitMiB)
	}
}

// memorySettings is what applyMemory sets: the GC percent and the soft
// limit in bytes, each unless its environment variable is set (set*
// false). A zero limit means none.
func memorySettings(m MemoryConfig, getenv func(string) string) (gcPercent int, setGC bool, limit int64, setLimit bool) {
	m.setDefaults()
	if getenv("GOGC") == "" {
		gcPercent, setGC = m.GCPercent, true
	}
	if getenv("GOMEMLIMIT") == "" {
		limit, setLimit = math.MaxInt64, true
		if m.SoftLimitMiB > 0 {
			limit = int64(m.SoftLimitMiB) << 20
		}
	}
	return
}

// applyMemory sets the collector from the config (the daemon calls it
// once, before it builds anything).
func applyMemory(m MemoryConfig, getenv func(string) string, log *slog.Logger) {
	gc, setGC, limit, setLimit := memorySettings(m, getenv)
	if setGC {
		debug.SetGCPercent(gc)
	}
	if setLimit {
		debug.SetMemoryLimit(limit)
	}
	log.Debug("memory", "gc_percent", gc, "gc_percent_from_env", !setGC, "soft_limit_bytes", limit, "soft_limit_from_env", !setLimit)
}
