package telemetry

import (
	"fmt"
	"testing"
)

// Unsent counts what the broker has not acknowledged: events delivered
// and kept for a ground station are not a backlog.
func TestOutboxUnsent(t *testing.T) {
	o, err := OpenOutbox(OutboxConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 4; i++ {
		if err := o.Add(i, []byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if o.Unsent() != 4 {
		t.Fatalf("unsent %d, want 4", o.Unsent())
	}
	o.delivered(1)
	o.delivered(2)
	if o.Unsent() != 2 || o.Len() != 4 {
		t.Errorf("after two deliveries: unsent %d len %d, want 2 and 4", o.Unsent(), o.Len())
	}
}
