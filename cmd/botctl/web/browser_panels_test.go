package web

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botd-project/botd/telemetry/protocol"
)

// fakePage is the dashboard over a fake ground, in headless Chromium,
// opened on rover-1: the test plays the robot's messages itself.
func fakePage(t *testing.T, f *fakeGround) *page {
	t.Helper()
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	s, err := newServer(Options{Logger: slog.New(slog.DiscardHandler), Token: testToken}, f)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = s.Close() })
	p := &page{t: t, ctx: browser(t, exe), dir: artifactsDir(t, repoRoot(t))}
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1600, 1000)); err != nil {
		t.Fatal(err)
	}
	logIn(t, p.ctx, srv.URL)
	p.wait("the page to open rover-1", `document.getElementById('robot-name').textContent === 'rover-1'`)
	select {
	case <-f.watched:
	case <-time.After(waitLong):
		t.Fatal("the dashboard does not watch rover-1")
	}
	return p
}

// The failure banner belongs to a run: an earlier run's ABORTED is not
// shown over a new run of the mission, and comes back as history once
// that run ends. The blackboard's ages are coloured by the sensor's own
// staleness (the robot's SENSOR_STALE), not by how long a value sent by
// exception has stayed the same.
func TestBrowserFailureBannerAndAges(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	f.live = true // a robot silent for 3.5 s on a busy machine would colour every age as its link's
	p := fakePage(t, f)
	h := f.h(t, "rover-1")
	t0 := time.Now().Add(-time.Minute).UTC()
	failure := &protocol.Failure{Mission: "m-1", MissionName: "patrol", Status: "ABORTED", Code: protocol.FailAborted,
		Message: "aborted by the operator", Time: t0}
	state := func(seq uint64, status string, started time.Time, errs ...protocol.StateError) {
		h.State(protocol.StateMsg{Header: hdr("rover-1", seq), State: protocol.State{Mode: "RUNNING",
			Mission: &protocol.MissionState{ID: "m-1", Name: "patrol", Status: status, Started: started}, LastFailure: failure, Errors: errs}})
	}
	state(1, "ABORTED", t0.Add(-time.Minute))
	p.wait("the banner of the aborted run", `!document.getElementById('failure').hidden && document.getElementById('failure').textContent.includes('patrol ended ABORTED')`)

	state(2, "RUNNING", t0.Add(10*time.Second))
	p.wait("no banner over the new run", `document.getElementById('failure').hidden`)

	state(3, "FAILURE", t0.Add(10*time.Second))
	p.wait("the banner again, as an earlier run's", `!document.getElementById('failure').hidden && document.getElementById('failure').textContent.includes('(an earlier run)')`)

	// Ages: a steady reading sent 20 s ago is not stale; the key the robot
	// reports SENSOR_STALE is.
	h.Blackboard(protocol.BlackboardMsg{Header: hdr("rover-1", 4), Mission: "m-1", Full: true, Values: []protocol.BlackboardValue{
		{Key: "battery.percent", Value: 80.0, AgeMs: 20000}, {Key: "range.front", Value: 1.2, AgeMs: 900}, {Key: "cruise", Value: 0.3, AgeMs: 60000}}})
	ageClass := func(key string) string {
		return `[...document.querySelectorAll('#bb tbody tr')].find((r) => r.cells[0].textContent === '` + key + `').cells[2].className`
	}
	p.wait("the blackboard", `document.querySelectorAll('#bb tbody tr').length === 3`)
	for _, k := range []string{"battery.percent", "range.front", "cruise"} {
		if c := p.eval(ageClass(k)); c != "a" {
			t.Errorf("%s: age class %q, want plain (nothing says its sensor is stale)", k, c)
		}
	}
	state(5, "RUNNING", t0.Add(10*time.Second), protocol.StateError{Code: "SENSOR_STALE", Level: "WARNING", Ref: "range.front", Message: "no sample for 800 ms"})
	p.wait("range.front stale", ageClass("range.front")+` === 'a old'`)
	if c := p.eval(ageClass("battery.percent")); c != "a" {
		t.Errorf("battery.percent: age class %q with only range.front stale", c)
	}
	p.shot("dashboard-panels.png")
	p.noProblems()
}
