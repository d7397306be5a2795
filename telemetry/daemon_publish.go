package telemetry

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

const (
	stateMinGap = 100 * time.Millisecond // state at most 10 per second
	stateMaxGap = time.Second            // and at least once a second
	statusBurst = 5                      // status messages that may go out back to back
)

// publisher is the publish loop's own state; only publishLoop touches it.
type publisher struct {
	lastState time.Time
	// stateBeat goes off stateMaxGap after the last state: the state goes
	// out at least that often without a wake-up per check.
	stateBeat     clockwork.Timer
	treeMission   string
	treeRevision  int64
	treeNodes     int
	treeSent      bool
	statusMission string
	status        *tokenBucket
	// The blackboard as last sent (telemetry by exception), and when the
	// last message and the last full one went out.
	bbSent     map[string]sentValue
	bbMission  string
	bbLast     time.Time
	bbLastFull time.Time
	bbFull     bool // the next blackboard message is a full one
	bbWasEmpty bool
	// inflight are the loop's publishes the client has not finished with
	// (a QoS 1 message until the broker acknowledged it), oldest first.
	inflight []transport.Delivery
}

// maxInflight bounds publisher.inflight: past it the loop waits for the
// oldest publish, as long as the publish timeout, before it sends more.
const maxInflight = 32

// transportPublishTimeout is transport.Options.PublishTimeout's default.
const transportPublishTimeout = 5 * time.Second

// publishLoop publishes everything but events and replies. It polls the
// Source only while the link is up: while it is down the Source coalesces
// node statuses, and a keyframe follows the reconnect.
//
// It wakes for what there is to publish: the Source's change signals, the
// blackboard's period, the keyframe and metrics periods, and the state's
// heartbeat when no state went out for stateMaxGap. Only a Source without
// status notifications is polled at the telemetry rate.
func (d *Daemon) publishLoop(ctx context.Context, conn transport.Conn) {
	p := publisher{bbWasEmpty: true, bbFull: true,
		status: newTokenBucket(d.cfg.StatusMaxHz, statusBurst, d.cfg.Clock.Now())}
	// Status changes go out at once (leading edge) while the token
	// bucket (StatusMaxHz, a burst of statusBurst) allows; otherwise they
	// wait for the next token, coalesced.
	var statusCh <-chan struct{}
	if n, ok := d.src.(StatusNotifier); ok {
		statusCh = n.StatusChanged()
	}
	// The telemetry tick: the blackboard's period (never faster than the
	// telemetry rate), or the telemetry rate where statuses are polled.
	tickHz := min(d.cfg.BlackboardHz, d.cfg.TelemetryHz)
	if statusCh == nil {
		tickHz = d.cfg.TelemetryHz
	}
	telemetry := d.cfg.Clock.NewTicker(time.Duration(float64(time.Second) / tickHz))
	defer telemetry.Stop()
	keyframes := d.cfg.Clock.NewTicker(d.cfg.KeyframeEvery)
	defer keyframes.Stop()
	metrics := d.cfg.Clock.NewTicker(d.cfg.MetricsEvery)
	defer metrics.Stop()
	p.stateBeat = d.cfg.Clock.NewTimer(time.Hour)
	p.stateBeat.Stop()
	defer p.stateBeat.Stop()
	stateDue := d.cfg.Clock.NewTimer(time.Hour)
	stateDue.Stop()
	defer stateDue.Stop()
	statePending := false
	changed := d.src.Changed()
	var snapshotOf uint64 // conn.Connects() of the last full snapshot
	period := time.Duration(float64(time.Second) / d.cfg.StatusMaxHz)
	statusDue := d.cfg.Clock.NewTimer(time.Hour)
	statusDue.Stop()
	defer statusDue.Stop()
	statusPending := false

	for {
		link := conn.LinkChanged()
		up := conn.IsUp()
		if n := conn.Connects(); up && n != snapshotOf {
			snapshotOf = n
			d.snapshot(conn, &p)
		}
		select {
		case <-ctx.Done():
			return
		case <-link:
		case <-d.requests:
			if up {
				d.snapshot(conn, &p)
			}
		case <-changed:
			if !up {
				continue
			}
			d.publishTreeIfChanged(conn, &p)
			if wait := stateMinGap - d.cfg.Clock.Since(p.lastState); wait > 0 {
				if !statePending {
					statePending = true
					stateDue.Reset(wait)
				}
				continue
			}
			d.publishStateP(conn, &p)
		case <-stateDue.Chan():
			statePending = false
			if up {
				d.publishStateP(conn, &p)
			}
		case <-p.stateBeat.Chan():
			// No state for stateMaxGap (every state resets the beat); while
			// the link is down none is due: the reconnect's snapshot has one.
			if up {
				d.publishStateP(conn, &p)
			}
		case <-statusCh:
			if !up || statusPending {
				continue
			}
			if !p.status.allow(d.cfg.Clock.Now()) {
				statusPending = true
				statusDue.Reset(period)
				continue
			}
			d.publishTreeIfChanged(conn, &p)
			d.publishStatus(conn, &p, false)
		case <-statusDue.Chan():
			statusPending = false
			if up {
				p.status.allow(d.cfg.Clock.Now()) // spend the token this waited for
				d.publishTreeIfChanged(conn, &p)
				d.publishStatus(conn, &p, false)
			}
		case <-telemetry.Chan():
			if up {
				d.publishTreeIfChanged(conn, &p) // in case a new tree came without a signal
				if statusCh == nil {
					// No change notifications: poll at the telemetry rate.
					d.publishStatus(conn, &p, false)
				}
				if d.cfg.Clock.Since(p.bbLast) >= time.Duration(float64(time.Second)/d.cfg.BlackboardHz)*9/10 {
					d.publishBlackboard(conn, &p)
				}
			}
		case <-keyframes.Chan():
			if up {
				d.publishStatus(conn, &p, true)
			}
		case <-metrics.Chan():
			if up {
				m := d.Metrics()
				m.Header = d.header(&d.seq.metrics)
				d.send(conn, &p, d.topics.Metrics(), protocol.QoSStream, false, m)
			}
		}
	}
}

// snapshot republishes the retained topics and a status keyframe: after
// every (re)connect and on state.request. (ONLINE is the Conn's birth
// message, already out.)
func (d *Daemon) snapshot(conn transport.Conn, p *publisher) {
	d.publishFactsheet(conn, p)
	d.publishStateP(conn, p)
	d.publishTree(conn, p)
	d.publishStatus(conn, p, true)
	p.bbFull = true
	d.publishBlackboard(conn, p)
}

func (d *Daemon) publishFactsheet(conn transport.Conn, p *publisher) {
	f := d.cfg.Factsheet
	f.Header = d.header(&d.seq.factsheet)
	l := &f.Limits
	if l.TelemetryHz == 0 {
		l.TelemetryHz = d.cfg.TelemetryHz
	}
	if l.KeyframeEveryMs == 0 {
		l.KeyframeEveryMs = d.cfg.KeyframeEvery.Milliseconds()
	}
	if l.MaxCommandBytes == 0 {
		l.MaxCommandBytes = d.cfg.MaxPayload
	}
	if l.CommandRate == 0 {
		l.CommandRate = d.cfg.CommandRate
	}
	if l.CommandBurst == 0 {
		l.CommandBurst = d.cfg.CommandBurst
	}
	if l.StaleAfterMs == 0 && d.cfg.StaleAfter > 0 {
		l.StaleAfterMs = d.cfg.StaleAfter.Milliseconds()
	}
	if f.NodeTypes == nil {
		f.NodeTypes = []bt.TypeInfo{}
	}
	if f.Devices == nil {
		f.Devices = []protocol.Device{}
	}
	d.send(conn, p, d.topics.Factsheet(), protocol.QoSRetained, true, f)
}

// publishState publishes the state; p is the publish loop's, nil from
// elsewhere (then it waits for the broker).
func (d *Daemon) publishState(conn transport.Conn, p *publisher) {
	d.send(conn, p, d.topics.State(), protocol.QoSRetained, true, protocol.StateMsg{Header: d.header(&d.seq.state), State: boundState(d.src.State())})
}

func (d *Daemon) publishStateP(conn transport.Conn, p *publisher) {
	p.lastState = d.cfg.Clock.Now()
	if p.stateBeat != nil {
		p.stateBeat.Reset(stateMaxGap)
	}
	d.publishState(conn, p)
}

func (d *Daemon) publishTreeIfChanged(conn transport.Conn, p *publisher) {
	t, ok := d.src.Tree()
	if !ok {
		t = protocol.TreeInfo{}
	}
	// A mission's revision names its content (the runner refuses the same
	// revision with different content), so this comparison is enough.
	if p.treeSent && t.Mission == p.treeMission && t.Revision == p.treeRevision && len(t.Nodes) == p.treeNodes {
		return
	}
	d.sendTree(conn, p, t)
	d.publishStatus(conn, p, true) // a new tree starts with a keyframe
}

func (d *Daemon) publishTree(conn transport.Conn, p *publisher) {
	t, ok := d.src.Tree()
	if !ok {
		t = protocol.TreeInfo{}
	}
	d.sendTree(conn, p, t)
}

func (d *Daemon) sendTree(conn transport.Conn, p *publisher, t protocol.TreeInfo) {
	if t.Nodes == nil {
		t.Nodes = []protocol.TreeNode{}
	}
	p.treeMission, p.treeRevision, p.treeNodes, p.treeSent = t.Mission, t.Revision, len(t.Nodes), true
	m, err := protocol.CompressTree(protocol.TreeMsg{Header: d.header(&d.seq.tree), TreeInfo: t}, d.cfg.TreeBudget)
	if err != nil {
		d.log.Error("compressing the tree", "err", err)
	}
	d.send(conn, p, d.topics.Tree(), protocol.QoSRetained, true, m)
}

// publishStatus sends the changes since the last call, or a keyframe when
// asked, when the mission changed, or when the Source returns one.
func (d *Daemon) publishStatus(conn transport.Conn, p *publisher, keyframe bool) {
	u, ok := d.src.Status(keyframe)
	if !ok {
		return
	}
	if !keyframe && u.Keyframe == "" && u.Mission != p.statusMission {
		if u, ok = d.src.Status(true); !ok {
			return
		}
	}
	if u.Keyframe == "" && len(u.Changes) == 0 && len(u.Reasons) == 0 {
		return // nothing changed: nothing published
	}
	p.statusMission = u.Mission
	m := protocol.StatusMsg{Header: d.header(&d.seq.status), Mission: u.Mission, Tick: u.Tick, Keyframe: u.Keyframe, Reasons: u.Reasons}
	if !u.Time.IsZero() {
		m.TickTS = protocol.FormatTS(u.Time)
	}
	if u.Keyframe == "" {
		m.Changes = make([]protocol.NodeStatus, 0, len(u.Changes))
		for _, c := range u.Changes {
			if protocol.ValidStatus(c.Status) {
				m.Changes = append(m.Changes, protocol.NodeStatus(c))
			}
		}
	}
	d.send(conn, p, d.topics.Status(), protocol.QoSStream, false, m)
}

// publishBlackboard sends the values that changed beyond their deadband
// since they were last sent, or every value when a full message is due
// (a snapshot, a new mission, BlackboardFullEvery). Nothing changed:
// nothing sent.
func (d *Daemon) publishBlackboard(conn transport.Conn, p *publisher) {
	now := d.cfg.Clock.Now()
	vals := d.src.Blackboard()
	if len(vals) == 0 && p.bbWasEmpty {
		return
	}
	p.bbWasEmpty = len(vals) == 0
	full := p.bbFull || p.bbSent == nil || p.bbMission != p.treeMission || now.Sub(p.bbLastFull) >= d.cfg.BlackboardFullEvery
	prev := p.bbSent
	if full {
		// Only the keys on the blackboard now are kept; their deadbands
		// carry over.
		p.bbSent = make(map[string]sentValue, len(vals))
	}
	out := vals[:0:0]
	for _, v := range vals {
		v.AgeMs = math.Round(v.AgeMs)
		v.Value = boundValue(v.Value)
		last, sent := prev[v.Key]
		if !sent {
			// A key's deadband is looked up (pattern matching) once, when
			// it is first sent, not in every message.
			last.band = d.cfg.Deadbands.For(v.Key)
		}
		if !full && sent && !changed(last.value, v.Value, last.band) {
			continue
		}
		p.bbSent[v.Key] = sentValue{value: v.Value, band: last.band}
		out = append(out, v)
	}
	if !full && len(out) == 0 {
		return
	}
	if out == nil {
		out = []protocol.BlackboardValue{}
	}
	p.bbFull, p.bbMission, p.bbLast = false, p.treeMission, now
	if full {
		p.bbLastFull = now
	}
	d.send(conn, p, d.topics.Blackboard(), protocol.QoSStream, false,
		protocol.BlackboardMsg{Header: d.header(&d.seq.blackboard), Mission: p.treeMission, Full: full, Values: out})
}

// sentValue is a blackboard value as last sent, with its key's deadband.
type sentValue struct {
	value any
	band  float64
}

// changed reports whether a value differs from the one last sent: a number
// by more than its deadband, anything else by any change.
func changed(last, now any, deadband float64) bool {
	a, aNum := last.(float64)
	b, bNum := now.(float64)
	if aNum && bNum {
		return math.Abs(b-a) > deadband || (math.IsNaN(a) != math.IsNaN(b))
	}
	return !reflect.DeepEqual(last, now)
}

// send publishes v for the publish loop without waiting for the broker: a
// state's acknowledgement (QoS 1) used to hold the loop for a round trip
// through the broker, and a status change that came meanwhile waited with
// it (on a loaded broker or a busy robot, that wait was the status
// latency). The loop's publishes stay in order (one client, one
// connection); a publish the client finishes without the broker's
// acknowledgement counts as failed (dropped.publish) when it is seen.
// With p nil it publishes as publishJSON does, waiting.
func (d *Daemon) send(conn transport.Conn, p *publisher, topic string, qos byte, retain bool, v any) {
	if p == nil {
		d.publishJSON(conn, topic, qos, retain, v)
		return
	}
	b, ok := d.encode(topic, v)
	if !ok {
		return
	}
	p.reap(d)
	if len(p.inflight) >= maxInflight {
		t := time.NewTimer(cmp.Or(d.cfg.Conn.PublishTimeout, transportPublishTimeout))
		select {
		case <-p.inflight[0].Done():
		case <-t.C:
		}
		t.Stop()
		p.reap(d)
		if len(p.inflight) >= maxInflight { // the oldest timed out: given up
			d.publishFailures.Add(1)
			p.inflight = append(p.inflight[:0], p.inflight[1:]...)
		}
	}
	dl, err := conn.PublishAsync(topic, qos, retain, b)
	if err != nil {
		d.publishFailures.Add(1)
		d.log.Debug("publish", "topic", topic, "err", fmt.Sprint(err))
		return
	}
	p.inflight = append(p.inflight, dl)
}

// reap forgets the publishes the client is finished with, counting those
// the broker did not acknowledge.
func (p *publisher) reap(d *Daemon) {
	kept := p.inflight[:0]
	for _, dl := range p.inflight {
		select {
		case <-dl.Done():
			if !dl.Acked() {
				d.publishFailures.Add(1)
			}
		default:
			kept = append(kept, dl)
		}
	}
	clear(p.inflight[len(kept):])
	p.inflight = kept
}
