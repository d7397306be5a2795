package runner

import (
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// TreeView is the active (or, once it ended, the last) mission's tree
// with its nodes' latest statuses, for observers that draw the tree
// themselves (the Groot2 endpoint).
type TreeView struct {
	Doc  *missions.Document
	Tree *bt.Tree
	// Letters is one status letter a node (I S F R E), by node index, as
	// the last tick left them.
	Letters []byte
	Tick    uint64
	At      time.Time
}

// TreeView returns the tree of the mission the runner last started and
// its statuses, with Letters appended to letters[:0] (ok false before
// any mission). It never waits for the tick: it takes the locks the tick
// holds only to copy a status board. Any goroutine.
func (r *Runner) TreeView(letters []byte) (TreeView, bool) {
	r.mu.Lock()
	v := TreeView{Doc: r.activeDoc, Tree: r.activeTree}
	b := r.board
	r.mu.Unlock()
	if v.Tree == nil || b == nil {
		return TreeView{}, false
	}
	b.mu.Lock()
	v.Letters = append(letters[:0], b.cur...)
	v.Tick, v.At = b.tick, b.at
	b.mu.Unlock()
	return v, true
}
