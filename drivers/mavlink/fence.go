package mavlink

import (
	"context"
	"time"
)

// KeepFenceUploaded gives the vehicle's autopilot a keep-in fence of (latitude, longitude)
// vertices each time its link comes up (at start, and again after a lost link, when the
// autopilot may have rebooted), until ctx is done. report gets each upload's outcome: nil,
// or the autopilot's refusal (an autopilot without fence support refuses the upload; botd's
// own fence stays in force either way). The link is looked at every poll.
func (v *Vehicle) KeepFenceUploaded(ctx context.Context, vertices [][2]float64, poll time.Duration, report func(error)) {
	if poll <= 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	uploaded := false
	for {
		switch up := v.LinkUp(); {
		case !up:
			uploaded = false
		case !uploaded:
			uploaded = true
			err := v.UploadFence(vertices)
			if ctx.Err() != nil {
				return
			}
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
