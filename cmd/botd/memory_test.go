package main

import (
	"math"
	"testing"
)

func TestMemorySettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		name     string
		m        MemoryConfig
		env      map[string]string
		gc       int
		setGC    bool
		limit    int64
		setLimit bool
	}{
		{"defaults", MemoryConfig{}, nil, 50, true, math.MaxInt64, true},
		{"configured", MemoryConfig{GCPercent: 200, SoftLimitMiB: 64}, nil, 200, true, 64 << 20, true},
		{"GOGC wins", MemoryConfig{GCPercent: 200, SoftLimitMiB: 64}, map[string]string{"GOGC": "off"}, 0, false, 64 << 20, true},
		{"GOMEMLIMIT wins", MemoryConfig{SoftLimitMiB: 64}, map[string]string{"GOMEMLIMIT": "1GiB"}, 50, true, 0, false},
	} {
		gc, setGC, limit, setLimit := memorySettings(c.m, env(c.env))
		if gc != c.gc || setGC != c.setGC || limit != c.limit || setLimit != c.setLimit {
			t.Errorf("%s: got %d %v %d %v, want %d %v %d %v", c.name, gc, setGC, limit, setLimit, c.gc, c.setGC, c.limit, c.setLimit)
		}
	}
}
