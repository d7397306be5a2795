package broker

// PendingWritesOf is how many packets wait in mochi's outbound queue for
// the client id (0 when it is not connected).
func (b *Broker) PendingWritesOf(id string) int {
	if cl, ok := b.srv.Clients.Get(id); ok {
		return pendingWrites(cl)
	}
	return 0
}
