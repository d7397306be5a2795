package ground

import (
	"fmt"
	"slices"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Tree is the ground station's one tracker of a robot's tree and node
// statuses, assembled from the retained tree message, status keyframes
// and status deltas. botctl's terminal view, `botctl tree` and the web
// dashboard all keep one per robot.
//
// It watches the status sequence numbers: after a gap (a lost delta;
// status is QoS 0), a reconnect, or a status it cannot place, the
// statuses are no longer trusted (Synced false), WantsKeyframe is true
// and AskKeyframe says when to send state.request; the next keyframe of
// the current tree rebuilds them. A keyframe that comes before its tree
// (the topics are not ordered with each other) is kept and applied when
// that tree arrives.
//
// It does no I/O, takes no lock and reads no clock: callers pass the
// time, so it is tested without a broker, a terminal or a browser.
type Tree struct {
	Mission  string
	Revision int64
	Nodes    []protocol.TreeNode // by index
	Status   []byte              // I S F R E per node; '?' until known
	Since    []time.Time         // when each node's status last changed (caller's clock)
	// Approx marks a Since that is a lower bound: the node was already
	// in its status when a keyframe first showed it.
	Approx []bool
	// Reasons say why nodes failed (the status topic's reasons), while
	// their status is F or E.
	Reasons map[int32]protocol.NodeReason
	Depth   []int
	Order   []int32 // display order: depth-first, pre-order

	HaveTree   bool      // a tree message was applied
	Keyed      bool      // a keyframe of this tree was applied
	Synced     bool      // statuses come from a keyframe and every delta since
	Tick       uint64    // robot tick of the latest status applied
	Seq        uint64    // sequence number of the latest status seen
	KeyframeAt time.Time // when the latest keyframe was applied
	Gaps       int       // gaps seen in the status sequence
	LastGap    string    // the latest gap, for people ("seq 12 after 9")

	haveSeq bool
	pending *protocol.StatusMsg // a keyframe waiting for its tree
	want    bool                // a keyframe is needed...
	due     time.Time           // ...from this time
	asked   time.Time           // when one was last asked for
}

// StatusUpdate is what one status message changed, for a view that passes
// changes on rather than redrawing (the dashboard's tabs).
type StatusUpdate struct {
	Keyframe bool                  // a keyframe replaced every status
	Changes  []protocol.NodeStatus // the changes of a delta that applied
	Reasons  []protocol.NodeReason // the reasons that applied (nodes failed now)
}

// KeyframeRetry is how long to wait for an asked-for keyframe before
// asking again; keyframeGrace how long a new tree may wait for the
// keyframe the robot sends with it before one is asked for.
const (
	KeyframeRetry = 2 * time.Second
	keyframeGrace = time.Second
)

// SetTree applies a tree message. The same tree again (a retained copy
// after a reconnect, or a state.request) keeps the statuses; a different
// one resets them until its keyframe (applied at once if it came first).
// A malformed tree is refused with an error and leaves the tracker
// without a tree.
func (t *Tree) SetTree(m protocol.TreeMsg, now time.Time) error {
	nodes := slices.Clone(m.Nodes)
	slices.SortFunc(nodes, func(a, b protocol.TreeNode) int { return int(a.Index) - int(b.Index) })
	if err := checkNodes(nodes); err != nil {
		t.clear("", 0)
		t.wantKeyframe(now, keyframeGrace)
		return fmt.Errorf("tree of mission %s: %w", m.Mission, err)
	}
	if len(nodes) == 0 {
		t.want = false // no mission: no status will come
	}
	if t.HaveTree && t.Mission == m.Mission && t.Revision == m.Revision && slices.Equal(t.Nodes, nodes) {
		return nil
	}
	t.clear(m.Mission, m.Revision)
	t.HaveTree = true
	t.Nodes = nodes
	n := len(nodes)
	t.Status = make([]byte, n)
	for i := range t.Status {
		t.Status[i] = '?'
	}
	t.Since = make([]time.Time, n)
	t.Approx = make([]bool, n)
	t.Depth = make([]int, n)
	children := make([][]int32, n)
	var roots []int32
	for i, nd := range nodes {
		if nd.Parent < 0 {
			roots = append(roots, int32(i))
			continue
		}
		t.Depth[i] = t.Depth[nd.Parent] + 1 // parents come first (checkNodes)
		children[nd.Parent] = append(children[nd.Parent], int32(i))
	}
	var walk func(i int32)
	walk = func(i int32) {
		t.Order = append(t.Order, i)
		for _, c := range children[i] {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	p := t.pending
	t.pending = nil
	if n == 0 {
		t.Synced = true
		return nil
	}
	t.wantKeyframe(now, keyframeGrace)
	if p != nil && p.Mission == m.Mission && len(p.Keyframe) == n {
		t.applyKeyframe(*p, now)
	}
	return nil
}

// checkNodes requires indexes 0..n-1 and every parent before its child,
// which rules out cycles.
func checkNodes(nodes []protocol.TreeNode) error {
	for i, nd := range nodes {
		if int(nd.Index) != i {
			return fmt.Errorf("node indexes are not 0..%d (found %d at position %d)", len(nodes)-1, nd.Index, i)
		}
		if nd.Parent >= nd.Index || nd.Parent < -1 {
			return fmt.Errorf("node %d has parent %d", nd.Index, nd.Parent)
		}
	}
	return nil
}

// clear forgets the tree and its statuses but keeps what describes the
// link: the sequence, the gaps, the keyframe wanted and the pending one.
func (t *Tree) clear(mission string, revision int64) {
	*t = Tree{Mission: mission, Revision: revision,
		Seq: t.Seq, haveSeq: t.haveSeq, Gaps: t.Gaps, LastGap: t.LastGap,
		pending: t.pending, want: t.want, due: t.due, asked: t.asked}
}

// ApplyStatus applies a status message: a keyframe replaces every status,
// a delta changes some. It returns an error for a status it cannot apply
// (wrong length, unknown node), which also makes it ask for a keyframe;
// the valid changes beside a bad one are applied.
func (t *Tree) ApplyStatus(m protocol.StatusMsg, now time.Time) (StatusUpdate, error) {
	if m.Seq != 0 {
		// A lower number means the daemon restarted: also a gap.
		if t.haveSeq && m.Seq != t.Seq+1 {
			t.Gaps++
			if m.Seq > t.Seq {
				t.LastGap = fmt.Sprintf("seq %d after %d: %d lost", m.Seq, t.Seq, m.Seq-t.Seq-1)
			} else {
				t.LastGap = fmt.Sprintf("seq %d after %d: the robot restarted", m.Seq, t.Seq)
			}
			t.Synced = false
			t.wantKeyframe(now, 0)
		}
		t.Seq, t.haveSeq = m.Seq, true
	}
	if m.IsKeyframe() && (!t.HaveTree || m.Mission != t.Mission || len(m.Keyframe) != len(t.Nodes)) {
		t.pending = &m // perhaps its tree is on the way
	}
	if !t.HaveTree || m.Mission != t.Mission {
		// A status for a tree we do not have (yet): the tree message is
		// on its way, or lost; state.request republishes both.
		if m.Mission != "" {
			t.Synced = false
			t.wantKeyframe(now, keyframeGrace)
		}
		return StatusUpdate{}, nil
	}
	if m.IsKeyframe() {
		if len(m.Keyframe) != len(t.Nodes) {
			t.Synced = false
			t.wantKeyframe(now, 0)
			return StatusUpdate{}, fmt.Errorf("keyframe of mission %s has %s for a tree of %s", m.Mission, plural(len(m.Keyframe), "status", "statuses"), plural(len(t.Nodes), "node", "nodes"))
		}
		t.pending = nil
		t.applyKeyframe(m, now)
		return StatusUpdate{Keyframe: true}, nil
	}
	var u StatusUpdate
	var bad []int32
	for _, c := range m.Changes {
		if c.Node < 0 || int(c.Node) >= len(t.Nodes) {
			bad = append(bad, c.Node)
			continue
		}
		t.set(int(c.Node), c.Status, now)
		u.Changes = append(u.Changes, c)
	}
	u.Reasons = t.addReasons(m.Reasons)
	t.Tick = m.Tick
	if len(bad) > 0 {
		t.Synced = false
		t.wantKeyframe(now, 0)
		return u, fmt.Errorf("status for node(s) %v of mission %s, which has %s", bad, m.Mission, plural(len(t.Nodes), "node", "nodes"))
	}
	return u, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (t *Tree) applyKeyframe(m protocol.StatusMsg, now time.Time) {
	for i := 0; i < len(m.Keyframe); i++ {
		t.set(i, m.Keyframe[i], now)
	}
	t.Reasons = nil
	t.addReasons(m.Reasons)
	t.Tick, t.KeyframeAt, t.Keyed, t.Synced, t.want = m.Tick, now, true, true, false
}

// addReasons keeps the reasons of nodes that are failed now and returns
// them.
func (t *Tree) addReasons(rs []protocol.NodeReason) []protocol.NodeReason {
	var out []protocol.NodeReason
	for _, r := range rs {
		if r.Node < 0 || int(r.Node) >= len(t.Status) || !failedStatus(t.Status[r.Node]) {
			continue
		}
		if t.Reasons == nil {
			t.Reasons = map[int32]protocol.NodeReason{}
		}
		t.Reasons[r.Node] = r
		out = append(out, r)
	}
	return out
}

func failedStatus(s byte) bool { return s == 'F' || s == 'E' }

func (t *Tree) set(i int, s byte, now time.Time) {
	if t.Status[i] == s {
		return
	}
	if !failedStatus(s) {
		delete(t.Reasons, int32(i))
	}
	t.Approx[i] = t.Status[i] == '?'
	t.Status[i] = s
	t.Since[i] = now
}

// Reset marks the statuses as untrusted (the link to the broker was
// down, or the robot reconnected) and asks for a keyframe.
func (t *Tree) Reset(now time.Time) {
	t.haveSeq = false
	if t.HaveTree && len(t.Nodes) > 0 {
		t.Synced = false
	}
	t.wantKeyframe(now, 0)
}

func (t *Tree) wantKeyframe(now time.Time, after time.Duration) {
	if t.want && !t.due.After(now.Add(after)) {
		return // already due as early
	}
	t.want, t.due = true, now.Add(after)
}

// WantsKeyframe reports whether the statuses wait for a keyframe.
func (t *Tree) WantsKeyframe() bool { return t.want }

// AskKeyframe reports whether to send state.request now, and if so
// records that it was sent: at most once every KeyframeRetry while a
// keyframe is wanted.
func (t *Tree) AskKeyframe(now time.Time) bool {
	if !t.want || now.Before(t.due) || (!t.asked.IsZero() && now.Sub(t.asked) < KeyframeRetry) {
		return false
	}
	t.asked = now
	return true
}

// MarkAsked records a keyframe request sent on the caller's initiative.
func (t *Tree) MarkAsked(now time.Time) { t.asked = now }

// RunningFor is how long node i has been running (0 when it is not).
func (t *Tree) RunningFor(i int32, now time.Time) time.Duration {
	if int(i) >= len(t.Status) || t.Status[i] != 'R' || t.Since[i].IsZero() {
		return 0
	}
	return now.Sub(t.Since[i])
}

// Counts returns how many nodes have each status letter.
func (t *Tree) Counts() map[byte]int {
	out := map[byte]int{}
	for _, s := range t.Status {
		out[s]++
	}
	return out
}

// SortedReasons returns the current reasons by node.
func (t *Tree) SortedReasons() []protocol.NodeReason {
	var out []protocol.NodeReason
	for _, r := range t.Reasons {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b protocol.NodeReason) int { return int(a.Node) - int(b.Node) })
	return out
}
