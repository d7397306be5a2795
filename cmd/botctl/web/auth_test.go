package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// loginCookie logs in at base (ending in /) and returns the session.
func loginCookie(t *testing.T, base string) *http.Cookie {
	t.Helper()
	res := loginReq(t, http.DefaultClient, base, testToken, nil)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || len(res.Cookies()) != 1 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("login: %s %s", res.Status, b)
	}
	return res.Cookies()[0]
}

func loginReq(t *testing.T, c *http.Client, base, token string, edit func(*http.Request)) *http.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": token})
	req, _ := http.NewRequest(http.MethodPost, base+"api/login", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Botctl", "1")
	if edit != nil {
		edit(req)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func anonServer(t *testing.T) (*server, *httptest.Server) {
	t.Helper()
	s, err := newServer(Options{Logger: slog.New(slog.DiscardHandler), Token: testToken}, newFakeGround(online("rover-1", nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = s.Close() })
	return s, ts
}

func errCode(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var out commandResult
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &out); err != nil || out.Error == nil {
		return ""
	}
	return out.Error.Code
}

// Without a session every API and stream request is refused with 401 and
// changes nothing; pages send the browser to the login page; only the
// login page and its files are public.
func TestLoginRequired(t *testing.T) {
	_, ts := anonServer(t)
	f := newFakeGround()
	_ = f
	base := ts.URL + "/"
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"api/robots", "api/robots/rover-1", "api/stream", "api/stream?robot=rover-1"} {
		res, _ := get(t, base+path, nil)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /%s without a session: %s", path, res.Status)
		}
	}
	for _, path := range []string{"api/robots/rover-1/commands/estop", "api/robots/rover-1/commands/abort", "api/robots/rover-1/mission"} {
		code, out := post(t, base+path, "application/json", strings.NewReader(`{}`), nil)
		if code != http.StatusUnauthorized || out.Error == nil || out.Error.Code != "UNAUTHORIZED" {
			t.Errorf("POST /%s without a session: %d %+v", path, code, out.Error)
		}
	}
	// A forged or stale cookie is no session.
	for _, v := range []string{"x", strings.Repeat("0", 64)} {
		res, _ := get(t, base+"api/robots", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: sessionCookie, Value: v}) })
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("cookie %q: %s", v, res.Status)
		}
	}
	for path, want := range map[string]string{"": "/login?next=%2F", "robot/rover-1?x=1": "/login?next=%2Frobot%2Frover-1%3Fx%3D1"} {
		res, err := noFollow.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("GET /%s: %s to %q, want 303 to %q", path, res.Status, res.Header.Get("Location"), want)
		}
	}
	if res, body := get(t, base+"login", nil); res.StatusCode != 200 || !strings.Contains(body, `id="login-form"`) {
		t.Errorf("login page: %s", res.Status)
	}
	if res, body := get(t, base+"static/login.js", nil); res.StatusCode != 200 || !strings.Contains(body, "/api/login") {
		t.Errorf("login.js: %s", res.Status)
	}
}

// The token buys a session cookie (HttpOnly, SameSite=Strict; not Secure
// over plain HTTP on loopback) that opens the API and the stream, until
// logout. A wrong token, a login from another site, or one without the
// dashboard's header buys nothing.
func TestLoginFlow(t *testing.T) {
	_, ts := anonServer(t)
	base := ts.URL + "/"
	for _, c := range []struct {
		what  string
		token string
		edit  func(*http.Request)
		code  int
		err   string
	}{
		{"wrong token", "not-the-token-at-all", nil, http.StatusUnauthorized, "BAD_TOKEN"},
		{"token prefix", testToken[:len(testToken)-1], nil, http.StatusUnauthorized, "BAD_TOKEN"},
		{"no X-Botctl header", testToken, func(r *http.Request) { r.Header.Del("X-Botctl") }, http.StatusForbidden, "CROSS_SITE"},
		{"another origin", testToken, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, http.StatusForbidden, "CROSS_SITE"},
		{"cross-site fetch", testToken, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden, "CROSS_SITE"},
		{"empty token", "", nil, http.StatusBadRequest, "BAD_REQUEST"},
		{"oversized", strings.Repeat("x", maxLoginBody), nil, http.StatusRequestEntityTooLarge, "TOO_LARGE"},
	} {
		res := loginReq(t, http.DefaultClient, base, c.token, c.edit)
		cookies := res.Cookies()
		if code := errCode(t, res); res.StatusCode != c.code || code != c.err || len(cookies) != 0 {
			t.Errorf("%s: %s %s, %d cookies; want %d %s and none", c.what, res.Status, code, len(cookies), c.code, c.err)
		}
	}

	session := loginCookie(t, base)
	if !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure || session.Path != "/" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/", session)
	}
	with := func(r *http.Request) { r.AddCookie(session) }
	if res, body := get(t, base+"api/robots", with); res.StatusCode != 200 || !strings.Contains(body, "rover-1") {
		t.Errorf("robots with a session: %s %s", res.Status, body)
	}
	st := openStream(t, base+"api/stream", session)
	st.next("hello")
	st.close()
	if res, body := get(t, base, with); res.StatusCode != 200 || !strings.Contains(body, `id="btn-estop"`) {
		t.Errorf("page with a session: %s", res.Status)
	}
	code, _ := post(t, base+"api/logout", "", nil, with)
	if code != 200 {
		t.Fatalf("logout: %d", code)
	}
	if res, _ := get(t, base+"api/robots", with); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("after logout: %s", res.Status)
	}
}

// Under TLS the cookie is Secure.
func TestLoginCookieSecureUnderTLS(t *testing.T) {
	s, err := newServer(Options{Logger: slog.New(slog.DiscardHandler), Token: testToken}, newFakeGround())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(s)
	defer ts.Close()
	defer s.Close()
	res := loginReq(t, ts.Client(), ts.URL+"/", testToken, nil)
	res.Body.Close()
	if res.StatusCode != 200 || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure {
		t.Fatalf("login over TLS: %s, cookies %+v", res.Status, res.Cookies())
	}
}

// Sessions are bounded in number and expire.
func TestSessionsBoundedAndExpire(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	a := newSessions(testToken, func() time.Time { return now })
	first := a.create()
	for range maxSessions + 10 {
		a.create()
	}
	if n := len(a.live); n > maxSessions {
		t.Fatalf("%d sessions kept, want at most %d", n, maxSessions)
	}
	req := func(v string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/robots", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: v})
		return r
	}
	if a.valid(req(first)) {
		t.Error("the oldest session survived the bound")
	}
	last := a.create()
	if !a.valid(req(last)) {
		t.Fatal("a fresh session is not valid")
	}
	now = now.Add(sessionTTL)
	if a.valid(req(last)) {
		t.Error("a session outlived its time")
	}
}

func TestTokenAndListenRefusals(t *testing.T) {
	if _, err := newServer(Options{Token: "short"}, newFakeGround()); err == nil {
		t.Error("a short token: no error")
	}
	if _, err := newServer(Options{}, newFakeGround()); err == nil {
		t.Error("no token: no error")
	}
	if _, err := newServer(Options{Token: testToken, TLSCert: "c.pem"}, newFakeGround()); err == nil {
		t.Error("a certificate without its key: no error")
	}
	for _, c := range []struct {
		listen string
		tls    bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true},
		{"[::1]:8080", false, true},
		{"localhost:8080", false, true},
		{"127.0.0.2:8080", false, true},
		{"0.0.0.0:8080", false, false},
		{":8080", false, false},
		{"[::]:8080", false, false},
		{"192.168.1.20:8080", false, false},
		{"ops-laptop:8080", false, false},
		{"0.0.0.0:8443", true, true},
		{"nonsense", true, false},
	} {
		if err := CheckListen(c.listen, c.tls); (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, tls %v) = %v, want ok %v", c.listen, c.tls, err, c.ok)
		}
	}
}
