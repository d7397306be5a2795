package runner

import (
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// Recorder records each mission run (the daemon's .btlog directory,
// telemetry/groot2's Recorder). The runner calls it on the tick
// goroutine, so it must not block: it hands the writing to a goroutine
// of its own.
type Recorder interface {
	// StartRun is told that a run of m starts. It returns the observer
	// of the run's agent, next (the runner's own) wrapped or as is, and
	// the function the runner calls once when the run ends, after its
	// nodes were halted (nil: nothing to call).
	StartRun(m *missions.Mission, next bt.Observer, now time.Time) (bt.Observer, func(status string))
}

// startRecording sets the observer of a run's agent: the status board,
// behind the recorder when there is one.
func (r *Runner) startRecording(run *activeRun, m *missions.Mission, now time.Time) {
	var obs bt.Observer = run.board
	if rec := r.cfg.Recorder; rec != nil {
		obs, run.recEnd = rec.StartRun(m, run.board, now)
		if obs == nil {
			obs = run.board
		}
	}
	run.agent.SetObserver(obs)
}

// endRecording tells the recorder that the run ended (once).
func (r *Runner) endRecording(run *activeRun, status string) {
	if run != nil && run.recEnd != nil {
		end := run.recEnd
		run.recEnd = nil
		end(status)
	}
}
