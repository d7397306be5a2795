package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func get(t *testing.T, url string, edit func(*http.Request)) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestHandlerNeedsGround(t *testing.T) {
	if _, err := Handler(Options{}); err == nil {
		t.Fatal("Handler without a Ground: no error")
	}
	if err := Serve(context.Background(), Options{}); err == nil {
		t.Fatal("Serve without a Ground: no error")
	}
	if _, err := newServer(Options{Robot: "bad robot"}, newFakeGround()); err == nil {
		t.Fatal("bad preselected robot id: no error")
	}
}

func TestPagesAndStaticFiles(t *testing.T) {
	_, ts := newTestServer(t, newFakeGround(), nil)
	for _, tc := range []struct {
		path, wantType, wantBody string
		status                   int
	}{
		{"/", "text/html", `id="btn-estop"`, 200},
		{"/robot/rover-1", "text/html", `id="tree"`, 200},
		{"/robot/bad%20id", "", "", 404},
		{"/static/app.js", "javascript", "EventSource", 200},
		{"/static/tree.js", "javascript", "TreeView", 200},
		{"/static/chart.js", "javascript", "TickChart", 200},
		{"/static/style.css", "text/css", "--running", 200},
		{"/static/favicon.svg", "image/svg+xml", "<svg", 200},
		{"/static/", "", "", 404},
		{"/static/nope.js", "", "", 404},
		{"/nope", "", "", 404},
	} {
		res, body := get(t, ts.URL+tc.path, nil)
		if res.StatusCode != tc.status {
			t.Errorf("GET %s: %s, want %d", tc.path, res.Status, tc.status)
			continue
		}
		if tc.status != 200 {
			continue
		}
		if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, tc.wantType) {
			t.Errorf("GET %s: content type %q, want %q", tc.path, ct, tc.wantType)
		}
		if !strings.Contains(body, tc.wantBody) {
			t.Errorf("GET %s: body lacks %q", tc.path, tc.wantBody)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", tc.path, csp)
		}
	}
}

// The page must work offline: nothing it loads may come from elsewhere.
func TestStaticFilesFetchNothingFromOutside(t *testing.T) {
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["'](https?:)?//|url\(\s*["']?(https?:)?//|@import|fetch\(\s*["']https?:`)
	entries, err := staticFiles.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := staticFiles.ReadFile("static/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if m := ext.Find(b); m != nil {
			t.Errorf("%s loads something from outside: %q", e.Name(), m)
		}
	}
}

func TestHostGuard(t *testing.T) {
	_, ts := newTestServer(t, newFakeGround(), nil)
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"localhost:8080", true},
		{"[::1]:8080", true},
		{"10.1.2.3", true},
		{"dash.localhost", true},
		{"evil.example:8080", false},
		{"rebind.attacker.test", false},
	} {
		res, body := get(t, ts.URL+"/api/robots", func(r *http.Request) { r.Host = tc.host })
		if got := res.StatusCode == http.StatusOK; got != tc.ok {
			t.Errorf("Host %q: %s %s", tc.host, res.Status, body)
		}
	}
}

func TestCommandsNeedTheDashboard(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	url := ts.URL + "/api/robots/rover-1/commands/estop"
	for _, tc := range []struct {
		name string
		edit func(*http.Request)
	}{
		{"no X-Botctl", func(r *http.Request) { r.Header.Del("X-Botctl") }},
		{"other origin", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"null origin", func(r *http.Request) { r.Header.Set("Origin", "null") }},
		{"cross-site fetch", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }},
	} {
		status, res := post(t, url, "application/json", strings.NewReader("{}"), tc.edit)
		if status != http.StatusForbidden || res.OK || res.Error == nil {
			t.Errorf("%s: %d %+v, want 403", tc.name, status, res)
		}
	}
	if n := len(f.commands()); n != 0 {
		t.Fatalf("%d commands sent for refused requests", n)
	}
	status, res := post(t, url, "application/json", strings.NewReader("{}"), func(r *http.Request) {
		r.Header.Set("Origin", ts.URL)
		r.Header.Set("Sec-Fetch-Site", "same-origin")
	})
	if status != http.StatusOK || !res.OK {
		t.Fatalf("same-origin e-stop: %d %+v", status, res)
	}
}

func TestCommands(t *testing.T) {
	st := &protocol.State{Mode: protocol.ModeRunning, Mission: &protocol.MissionState{ID: "m-1", Name: "patrol"}}
	f := newFakeGround(online("rover-1", st), online("rover-2", nil))
	_, ts := newTestServer(t, f, nil)
	api := ts.URL + "/api/robots/"
	for _, tc := range []struct {
		name, robot, command, body string
		status                     int
		op                         string
		check                      func(protocol.Command) string
	}{
		{"pause", "rover-1", "pause", "", 200, protocol.OpMissionPause, nil},
		{"resume", "rover-1", "resume", "{}", 200, protocol.OpMissionResume, nil},
		{"abort", "rover-1", "abort", "", 200, protocol.OpMissionAbort, nil},
		{"estop", "rover-1", "estop", "", 200, protocol.OpEStop, nil},
		{"estop-reset", "rover-1", "estop-reset", "", 200, protocol.OpEStopReset, nil},
		{"state-request", "rover-1", "state-request", "", 200, protocol.OpStateRequest, nil},
		{"start the current mission", "rover-1", "start", "", 200, protocol.OpMissionStart, func(c protocol.Command) string {
			if c.MissionID != "m-1" || c.Replace {
				return fmt.Sprintf("mission_id %q replace %v", c.MissionID, c.Replace)
			}
			return ""
		}},
		{"start another mission", "rover-1", "start", `{"mission_id":"m-2","replace":true}`, 200, protocol.OpMissionStart, func(c protocol.Command) string {
			if c.MissionID != "m-2" || !c.Replace {
				return fmt.Sprintf("mission_id %q replace %v", c.MissionID, c.Replace)
			}
			return ""
		}},
		{"start without a mission", "rover-2", "start", "", 409, "", nil},
		{"unknown command", "rover-1", "selfdestruct", "", 404, "", nil},
		{"bad robot id", "rover+1", "pause", "", 400, "", nil},
		{"unknown body field", "rover-1", "start", `{"mission":"x"}`, 400, "", nil},
		{"body that is not JSON", "rover-1", "pause", `pause!`, 400, "", nil},
		{"two values", "rover-1", "pause", `{} {}`, 400, "", nil},
		{"mission id on pause", "rover-1", "pause", `{"mission_id":"m-1"}`, 400, "", nil},
		{"huge body", "rover-1", "pause", `{"mission_id":"` + strings.Repeat("x", maxCommandBody) + `"}`, 413, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.commands())
			status, res := post(t, api+tc.robot+"/commands/"+tc.command, "application/json", strings.NewReader(tc.body), nil)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %+v", status, tc.status, res)
			}
			sent := f.commands()[before:]
			if tc.op == "" {
				if len(sent) != 0 || res.OK || res.Error == nil || res.Error.Message == "" {
					t.Fatalf("refused request: sent %v, answer %+v", sent, res)
				}
				return
			}
			if len(sent) != 1 || sent[0].Cmd.Op != tc.op || sent[0].Robot != tc.robot {
				t.Fatalf("sent %+v, want one %s to %s", sent, tc.op, tc.robot)
			}
			if !res.OK || res.Op != tc.op || res.ID == "" || res.ID != sent[0].Cmd.ID || res.Reply == nil {
				t.Fatalf("answer %+v", res)
			}
			if tc.check != nil {
				if msg := tc.check(sent[0].Cmd); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
}

func TestCommandReplies(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	url := ts.URL + "/api/robots/rover-1/commands/resume"

	f.reply = func(_ string, c protocol.Command) (protocol.Reply, error) {
		return protocol.Reply{ID: c.ID, Error: &protocol.ReplyError{Code: protocol.ErrNotAllowedInMode, Message: "resume is not possible in mode ESTOP"}}, nil
	}
	status, res := post(t, url, "", nil, nil)
	if status != 200 || res.OK || res.Error == nil || res.Error.Code != protocol.ErrNotAllowedInMode || res.Reply == nil {
		t.Fatalf("refusal: %d %+v", status, res)
	}

	f.reply = func(string, protocol.Command) (protocol.Reply, error) {
		return protocol.Reply{}, fmt.Errorf("%w to mission.resume: %w", ground.ErrNoReply, context.DeadlineExceeded)
	}
	status, res = post(t, url, "", nil, nil)
	if status != http.StatusGatewayTimeout || res.OK || res.Error == nil || res.Error.Code != "NO_REPLY" {
		t.Fatalf("no reply: %d %+v", status, res)
	}

	f.reply = func(string, protocol.Command) (protocol.Reply, error) { return protocol.Reply{}, errNoReplyForTest }
	status, res = post(t, url, "", nil, nil)
	if status != http.StatusBadGateway || res.Error == nil {
		t.Fatalf("send error: %d %+v", status, res)
	}

	f.reply = func(_ string, c protocol.Command) (protocol.Reply, error) { return protocol.Reply{ID: c.ID}, nil }
	status, res = post(t, url, "", nil, nil)
	if status != 200 || res.OK || res.Error == nil || res.Error.Code != "REFUSED" {
		t.Fatalf("refusal without error: %d %+v", status, res)
	}
}

func TestListRobots(t *testing.T) {
	st := &protocol.State{Mode: protocol.ModePaused, RequestedMode: protocol.ModePaused, EStop: true,
		Mission: &protocol.MissionState{ID: "m", Name: "patrol", Status: protocol.RunPaused},
		Battery: &protocol.BatteryState{Voltage: 11.876, Percent: 42.26},
		Errors:  []protocol.StateError{{Code: "SENSOR_STALE"}}}
	silent := online("rover-3", nil)
	silent.LastSeen = time.Now().Add(-time.Minute)
	f := newFakeGround(online("rover-1", st), ground.RobotInfo{ID: "rover-2", Connection: protocol.ConnBroken}, silent)
	_, ts := newTestServer(t, f, nil)
	res, body := get(t, ts.URL+"/api/robots", nil)
	if res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	for _, want := range []string{`"id":"rover-1"`, `"online":true`, `"mode":"PAUSED"`, `"estop":true`, `"battery":42.3`,
		`"voltage":11.88`, `"mission":"patrol"`, `"errors":1`, `"connection":"CONNECTION_BROKEN"`, `"silent":true`} {
		if !strings.Contains(body, want) {
			t.Errorf("robots lack %s: %s", want, body)
		}
	}
}

func TestServe(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	var out bytes.Buffer
	var outMu sync.Mutex
	s, err := newServer(Options{Listen: "127.0.0.1:0", Robot: "rover-1", Token: testToken, ShowToken: true, Stdout: writerFunc(func(p []byte) (int, error) {
		outMu.Lock()
		defer outMu.Unlock()
		return out.Write(p)
	})}, f)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.serve(ctx) }()
	var url string
	eventually(t, "the URL on stdout", func() bool {
		outMu.Lock()
		defer outMu.Unlock()
		m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/robot/rover-1`).FindString(out.String())
		url = m
		return m != ""
	})
	base := strings.TrimSuffix(url, "robot/rover-1")
	outMu.Lock()
	printed := out.String()
	outMu.Unlock()
	if want := base + "login?next=%2Frobot%2Frover-1#token=" + testToken; !strings.Contains(printed, want) {
		t.Fatalf("botctl ui printed %q, want the login URL %s", printed, want)
	}
	session := loginCookie(t, base)
	if res, _ := get(t, url, func(r *http.Request) { r.AddCookie(session) }); res.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	// An open stream must not hold the shutdown up.
	st := openStream(t, base+"api/stream?robot=rover-1", session)
	st.next("telemetry")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(waitLong):
		t.Fatal("Serve did not return after the context ended")
	}
	if !st.ended(waitLong) {
		t.Fatal("the stream outlived Serve")
	}
	if w, s := f.counts(); w != 1 || s != 1 {
		t.Fatalf("watches %d, stops %d: want the watch ended", w, s)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestServeCannotListen(t *testing.T) {
	s, err := newServer(Options{Listen: "127.0.0.1:-1", Token: testToken}, newFakeGround())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.serve(context.Background()); err == nil {
		t.Fatal("no error for a bad listen address")
	}
}
