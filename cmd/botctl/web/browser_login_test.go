package web

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The login in a real browser: a page asked for without a session lands
// on the login page; a wrong token is refused there with a message; the
// right one opens the page first asked for, with a session cookie the
// page's scripts cannot read. Logging out sends the page back to the
// login. A second browser logs in by the URL botctl ui prints
// (#token=...), and the token leaves the address bar.
func TestBrowserLogin(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	f := newFakeGround(online("rover-1", nil))
	s, err := newServer(Options{Logger: slog.New(slog.DiscardHandler), Token: testToken}, f)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = s.Close() })

	ctx := browser(t, exe)
	// wait polls js until it is true; the page navigates under it (the
	// login moves on), so an evaluation that fails is tried again.
	wait := func(what, js string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			if err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + '\n' + document.body.innerText.slice(0, 1000)`))
				t.Fatalf("waiting for %s: %v\n%s", what, err, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("evaluating %s: %v", js, err)
		}
		return v
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/robot/rover-1")); err != nil {
		t.Fatal(err)
	}
	wait("the login page", `location.pathname === '/login' && document.getElementById('login-form') !== null`)
	if got := eval(`new URLSearchParams(location.search).get('next')`); got != "/robot/rover-1" {
		t.Errorf("next = %q", got)
	}
	if got := eval(`String(document.cookie)`); got != "" {
		t.Errorf("cookies before login: %q", got)
	}

	if err := chromedp.Do(ctx, chromedp.SendKeys("#token", "not-the-right-token"), chromedp.Click("#login-btn")); err != nil {
		t.Fatal(err)
	}
	wait("the refusal", `!document.getElementById('login-error').hidden && document.getElementById('login-error').textContent.includes('wrong token')`)
	if got := eval(`location.pathname`); got != "/login" {
		t.Fatalf("a wrong token left the login page for %s", got)
	}

	eval(`document.getElementById('token').value = ''`)
	if err := chromedp.Do(ctx, chromedp.SendKeys("#token", testToken), chromedp.Click("#login-btn")); err != nil {
		t.Fatal(err)
	}
	wait("the robot's page", `location.pathname === '/robot/rover-1' && document.getElementById('btn-estop') !== null`)
	wait("the robot opened", `document.getElementById('robot-name').textContent === 'rover-1'`)
	if got := eval(`String(document.cookie)`); got != "" {
		t.Errorf("the page's scripts can read cookies: %q (the session cookie must be HttpOnly)", got)
	}
	if got := eval(`fetch('/api/robots').then((r) => String(r.status))`); got != "200" {
		t.Errorf("the API from the logged-in page: %s", got)
	}

	// Logging out ends the session: the next command sends the page to
	// the login.
	if got := eval(`fetch('/api/logout', {method: 'POST', headers: {'X-Botctl': '1'}}).then((r) => String(r.status))`); got != "200" {
		t.Fatalf("logout: %s", got)
	}
	if got := eval(`fetch('/api/robots').then((r) => String(r.status))`); got != "401" {
		t.Errorf("the API after logout: %s", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#btn-pause")); err != nil {
		t.Fatal(err)
	}
	wait("the login page after logout", `location.pathname === '/login'`)
	if n := f.count("mission.pause"); n != 0 {
		t.Errorf("a command went out without a session (%d)", n)
	}

	// The printed URL logs a fresh browser in by itself.
	ctx = browser(t, exe)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login#token="+testToken)); err != nil {
		t.Fatal(err)
	}
	// The dashboard may open the one robot it knows by itself, so its
	// address is / or that robot's page.
	wait("the dashboard", `(location.pathname === '/' || location.pathname === '/robot/rover-1') && document.getElementById('btn-estop') !== null`)
	if got := eval(`location.hash`); got != "" {
		t.Errorf("the token stayed in the address bar: %q", got)
	}
}

// logIn opens the login URL botctl ui prints (base + /login#token=) and
// waits until the page it leads to has loaded, so that what the test
// polls next runs in that page.
func logIn(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/login#token="+testToken)); err != nil {
		t.Fatalf("opening the login page: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`location.pathname !== '/login' && document.readyState === 'complete'`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("logging in: still not past the login page (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
