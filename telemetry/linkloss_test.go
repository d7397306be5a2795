package telemetry

import (
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/faultnet"
	"github.com/botd-project/botd/internal/mqtttest"
)

// A broker that goes silent with the socket open (a frozen process or
// network) is noticed well within the link-loss timeout (about 5/8 of it
// by paho's arithmetic, keepAliveFor; the test leaves the rest as slack
// for a loaded machine), so that the failsafe's own timer starts in time:
// the keepalive and ping timeout come from the timeout. With the 15 s
// default keepalive it took 28 s.
func TestFrozenBrokerNoticedInTime(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	proxy, err := faultnet.Start(strings.TrimPrefix(b.URL(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	const linkLoss = 4 * time.Second
	h := startDaemon(t, proxy.URL(), func(c *DaemonConfig) { c.LinkLossTimeout = linkLoss })
	h.waitUp(t)
	mqtttest.Eventually(t, "the link reported up", func() bool { ls, ok := h.links.last(); return ok && ls.Broker })

	proxy.Freeze(true)
	frozen := time.Now() // nothing the broker sends is written after this
	mqtttest.Eventually(t, "the link reported down", func() bool { ls, _ := h.links.last(); return !ls.Broker })
	if took := time.Since(frozen); took >= linkLoss {
		t.Fatalf("a frozen broker was noticed after %v; the link-loss timeout is %v (keepalive %v, ping timeout %v)", took, linkLoss, h.d.cfg.Conn.KeepAlive, h.d.cfg.Conn.PingTimeout)
	} else {
		t.Logf("a frozen broker was noticed after %v (link-loss timeout %v, keepalive %v, ping timeout %v)", took, linkLoss, h.d.cfg.Conn.KeepAlive, h.d.cfg.Conn.PingTimeout)
	}
	// The link state says when the broker was last heard from: at the
	// freeze, so the failsafe's timeout runs from there, not from the
	// notice. What the proxy wrote just before the freeze may be read
	// just after it; the notice comes a ping timeout later at the
	// earliest (a ping unanswered), so half of one tells the two apart.
	if ls, _ := h.links.last(); ls.DownSince.IsZero() || ls.DownSince.After(frozen.Add(h.d.cfg.Conn.PingTimeout/2)) {
		t.Errorf("down_since %v: want the last word before the freeze at %v (or a read of it just after)", ls.DownSince, frozen)
	}
	proxy.Freeze(false)
}
