package runner

import (
	"slices"

	"github.com/botd-project/botd/telemetry/protocol"
)

// storedSummaries lists the stored missions, newest first (tick
// goroutine: the store is its own). The store holds at most MaxStored
// missions, so the reply is bounded.
func (r *Runner) storedSummaries() []protocol.MissionSummary {
	all := make([]*stored, 0, len(r.store))
	for _, s := range r.store {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *stored) int { return int(b.order) - int(a.order) })
	out := make([]protocol.MissionSummary, 0, len(all))
	for _, s := range all {
		d := s.m.Doc
		m := protocol.MissionSummary{ID: d.ID, Name: d.Name, Revision: d.Revision, Bytes: len(s.doc)}
		if s.m.Tree != nil {
			m.Nodes = s.m.Tree.Len()
		}
		switch {
		case s.interrupted:
			m.Status = protocol.RunInterrupted
		case r.run != nil && r.run.s == s && isActive(r.run.status):
			m.Status = r.run.status
		}
		out = append(out, m)
	}
	return out
}
