package mavlink

import (
	"context"
	"fmt"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// KeepFenceUploaded gives the vehicle's autopilot a keep-in fence of (latitude, longitude)
// vertices each time its link comes up (at start, and again after a lost link, when the
// autopilot may have rebooted), until ctx is done. The fence sent is the keep-in polygon and
// the zones of the plan UploadPlan gave the vehicle last (a plan adds zones to the config's,
// it never replaces them). report gets each upload's outcome: nil,
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
			err := v.uploadKeepIn(vertices)
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

// uploadKeepIn uploads the keep-in polygon and the last plan's fence items.
func (v *Vehicle) uploadKeepIn(vertices [][2]float64) error {
	v.mu.Lock()
	v.keepIn = vertices
	plan := v.planFence
	v.mu.Unlock()
	items, err := combinedFence(vertices, plan)
	if err != nil {
		return fmt.Errorf("upload fence: %w", err)
	}
	return v.wait(v.submit(v.uploadOp("upload fence", mav.MAV_MISSION_TYPE_FENCE, items)))
}
