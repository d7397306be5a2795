package telemetry

// Unsent is how many events the outbox holds that the broker has not
// acknowledged yet in this run: the backlog of a robot whose broker (or
// link) does not keep up. Len also counts the events already delivered
// and kept for a ground station's acknowledgement.
func (o *Outbox) Unsent() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, e := range o.entries {
		if e.sent.IsZero() {
			n++
		}
	}
	return n
}

// Backlog is the outbox's Unsent: events waiting for the broker.
func (d *Daemon) Backlog() int { return d.outbox.Unsent() }
