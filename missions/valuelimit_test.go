package missions_test

import (
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/runner"
)

// What a mission's script may write to the blackboard and what an
// operator's blackboard.set may write are bounded by one number.
func TestMissionValueLimitIsTheOperatorLimit(t *testing.T) {
	if runner.MaxOperatorString != bt.MaxValueBytes {
		t.Errorf("blackboard.set accepts %d bytes, a script may write %d: one limit, please", runner.MaxOperatorString, bt.MaxValueBytes)
	}
}
