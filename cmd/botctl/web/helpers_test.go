package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

const waitLong = 10 * time.Second

// fakeGround stands in for a *ground.Client: tests call the watched
// robot's handlers themselves and script the replies.
type fakeGround struct {
	mu       sync.Mutex
	robots   []ground.RobotInfo
	handlers map[string]ground.RobotHandlers
	watches  int
	stops    int
	watchErr error
	sent     []sentCommand
	reply    func(robot string, c protocol.Command) (protocol.Reply, error)
	dropped  uint64
	down     bool        // the broker link is down
	live     bool        // the robots are heard now, whenever asked (never silent)
	watched  chan string // gets the robot of every Watch, when not full
}

type sentCommand struct {
	Robot string
	Cmd   protocol.Command
}

func newFakeGround(robots ...ground.RobotInfo) *fakeGround {
	return &fakeGround{robots: robots, handlers: map[string]ground.RobotHandlers{}, watched: make(chan string, 16)}
}

func (f *fakeGround) Robots() []ground.RobotInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]ground.RobotInfo(nil), f.robots...)
	if f.live {
		for i := range out {
			out[i].LastSeen, out[i].LiveAt = time.Now(), time.Now()
		}
	}
	return out
}

func (f *fakeGround) setRobots(robots ...ground.RobotInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.robots = robots
}

func (f *fakeGround) Watch(robot string, h ground.RobotHandlers) (func() error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watchErr != nil {
		return nil, f.watchErr
	}
	f.watches++
	f.handlers[robot] = h
	select {
	case f.watched <- robot:
	default:
	}
	return func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stops++
		delete(f.handlers, robot)
		return nil
	}, nil
}

func (f *fakeGround) Send(ctx context.Context, robot string, c protocol.Command) (protocol.Reply, error) {
	f.mu.Lock()
	f.sent = append(f.sent, sentCommand{robot, c})
	reply := f.reply
	f.mu.Unlock()
	if reply != nil {
		return reply(robot, c)
	}
	return protocol.Reply{ID: c.ID, OK: true}, nil
}

func (f *fakeGround) Up() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.down
}

func (f *fakeGround) Dropped() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dropped
}

func (f *fakeGround) h(t *testing.T, robot string) ground.RobotHandlers {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.handlers[robot]
	if !ok {
		t.Fatalf("%s is not watched", robot)
	}
	return h
}

func (f *fakeGround) commands() []sentCommand {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentCommand(nil), f.sent...)
}

func (f *fakeGround) count(op string) int {
	n := 0
	for _, c := range f.commands() {
		if c.Cmd.Op == op {
			n++
		}
	}
	return n
}

func (f *fakeGround) counts() (watches, stops int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watches, f.stops
}

func online(id string, st *protocol.State) ground.RobotInfo {
	r := ground.RobotInfo{ID: id, Connection: protocol.ConnOnline, LastSeen: time.Now()}
	if st != nil {
		r.State = &protocol.StateMsg{Header: hdr(id, 1), State: *st}
	}
	return r
}

func hdr(robot string, seq uint64) protocol.Header {
	return protocol.Header{Robot: robot, Seq: seq, TS: protocol.FormatTS(time.Now())}
}

// newTestServer serves the dashboard over a fake ground.
func newTestServer(t *testing.T, f *fakeGround, edit func(*Options)) (*server, *httptest.Server) {
	t.Helper()
	opts := Options{Logger: slog.New(slog.DiscardHandler), Token: testToken}
	if edit != nil {
		edit(&opts)
	}
	s, err := newServer(opts, f)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(loggedIn(t, s))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = s.Close() }) // first: ends the streams
	return s, ts
}

// sse is one server-sent event.
type sse struct {
	Event string
	Data  string
}

func (e sse) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(e.Data), v); err != nil {
		t.Fatalf("%s event: %v\n%s", e.Event, err, e.Data)
	}
}

// stream opens an event stream and returns its events as they come.
type stream struct {
	t      *testing.T
	events chan sse
	cancel context.CancelFunc
	done   chan struct{}
}

func openStream(t *testing.T, url string, cookies ...*http.Cookie) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		cancel()
		t.Fatalf("stream: %s: %s", res.Status, b)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("stream content type %q", ct)
	}
	s := &stream{t: t, events: make(chan sse, 1024), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.events)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		var ev sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || ev.Data != "" {
					s.events <- ev
				}
				ev = sse{}
			case strings.HasPrefix(line, "event: "):
				ev.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data += strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.cancel()
	<-s.done
}

// next returns the next event named one of names, skipping others.
func (s *stream) next(names ...string) sse {
	s.t.Helper()
	timeout := time.After(waitLong)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatalf("stream ended while waiting for %v", names)
			}
			for _, n := range names {
				if ev.Event == n {
					return ev
				}
			}
		case <-timeout:
			s.t.Fatalf("no %v event within %v", names, waitLong)
		}
	}
}

// ended reports whether the stream ends within d.
func (s *stream) ended(d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, waitLong, what, cond)
}

// post sends a request as the page does.
func post(t *testing.T, url, contentType string, body io.Reader, edit func(*http.Request)) (int, commandResult) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Botctl", "1")
	if edit != nil {
		edit(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out commandResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer is not JSON (%s): %v\n%s", res.Status, err, b)
	}
	return res.StatusCode, out
}

var errNoReplyForTest = errors.New("no reply for the test")

// testToken is the login token of the test servers.
const testToken = "test-token-0123456789abcdef"

// loggedIn logs in to s once, through its login API, and hands every
// request that carries no cookie to s with that session: the tests of
// the API and the stream run as a logged-in page does.
func loggedIn(t testing.TB, s *server) http.Handler {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/api/login", strings.NewReader(`{"token":"`+testToken+`"}`))
	req.Header.Set("X-Botctl", "1")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	cookies := rec.Result().Cookies()
	if rec.Code != http.StatusOK || len(cookies) != 1 {
		t.Fatalf("login: %d %s", rec.Code, rec.Body.String())
	}
	session := cookies[0]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") == "" {
			r.AddCookie(&http.Cookie{Name: session.Name, Value: session.Value})
		}
		s.ServeHTTP(w, r)
	})
}
