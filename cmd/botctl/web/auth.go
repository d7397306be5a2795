package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The dashboard's login. Whoever opens it acts with the ground station's
// broker credentials (e-stop, abort, upload), so every API and stream
// request needs a session: a random token, printed when botctl ui starts
// (or read from --token-file), is exchanged once for a session cookie
// (HttpOnly, SameSite=Strict, Secure under TLS). The cross-site checks of
// ServeHTTP still apply to the login itself.

const (
	// MinTokenLen is the shortest token Serve accepts.
	MinTokenLen = 16
	// sessionCookie names the session cookie.
	sessionCookie = "botctl_session"
	// sessionTTL is how long a session lasts without a new login.
	sessionTTL = 12 * time.Hour
	// maxSessions bounds the sessions kept; a login past it drops the
	// oldest.
	maxSessions  = 64
	maxLoginBody = 4 << 10
)

// sessions holds the live sessions by their secret.
type sessions struct {
	token []byte
	now   func() time.Time

	mu   sync.Mutex
	live map[string]session // by secret
	made uint64             // sessions made: their order
}

type session struct {
	expires time.Time
	n       uint64
	// ctx ends with the session (logout, expiry, eviction): the requests
	// made under it, streams included, end with it.
	ctx    context.Context
	cancel context.CancelFunc
}

func newSessions(token string, now func() time.Time) *sessions {
	return &sessions{token: []byte(token), now: now, live: map[string]session{}}
}

// tokenOK compares in constant time.
func (a *sessions) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), a.token) == 1
}

func (a *sessions) create() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	secret := hex.EncodeToString(b[:])
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, se := range a.live {
		if !now.Before(se.expires) {
			a.drop(k)
		}
	}
	if len(a.live) >= maxSessions {
		oldest, first := "", true
		var n uint64
		for k, se := range a.live {
			if first || se.n < n {
				oldest, n, first = k, se.n, false
			}
		}
		a.drop(oldest)
	}
	a.made++
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(sessionTTL))
	a.live[secret] = session{expires: now.Add(sessionTTL), n: a.made, ctx: ctx, cancel: cancel}
	return secret
}

// drop ends a session; a.mu is held.
func (a *sessions) drop(secret string) {
	if se, ok := a.live[secret]; ok {
		se.cancel()
		delete(a.live, secret)
	}
}

// valid reports whether r carries a live session.
func (a *sessions) valid(r *http.Request) bool {
	_, ok := a.lookup(r)
	return ok
}

// lookup returns the context of r's live session.
func (a *sessions) lookup(r *http.Request) (context.Context, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || len(c.Value) != 64 {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	se, ok := a.live[c.Value]
	if ok && !a.now().Before(se.expires) {
		a.drop(c.Value)
		return nil, false
	}
	return se.ctx, ok
}

// bind returns r with a context that also ends when its session ends (a
// stream open at logout stops at once), and the function that releases
// it. A request without a session is returned as it is.
func (a *sessions) bind(r *http.Request) (*http.Request, func()) {
	sctx, ok := a.lookup(r)
	if !ok {
		return r, func() {}
	}
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(sctx, cancel)
	return r.WithContext(ctx), func() { stop(); cancel() }
}

func (a *sessions) end(r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		a.mu.Lock()
		a.drop(c.Value)
		a.mu.Unlock()
	}
}

// public reports whether a request needs no session: the login page, its
// files, and the login itself.
func public(r *http.Request) bool {
	p := r.URL.Path
	return p == "/login" || p == "/api/login" || strings.HasPrefix(p, "/static/")
}

// authorize answers a request without a session: 401 for the API and
// the stream, a redirect to the login page for pages.
func (s *server) authorize(w http.ResponseWriter, r *http.Request) bool {
	if public(r) || s.auth.valid(r) {
		return true
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		w.Header().Set("WWW-Authenticate", `Cookie realm="botctl"`)
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "log in first: open the URL botctl ui printed, or enter its token at /login")
		return false
	}
	next := r.URL.Path
	if r.URL.RawQuery != "" {
		next += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
	return false
}

func (s *server) loginPage(w http.ResponseWriter, _ *http.Request) {
	b, err := staticFiles.ReadFile("static/login.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// login exchanges the token for a session cookie.
func (s *server) login(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Token string `json:"token"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxLoginBody+1))
	if err != nil || len(body) > maxLoginBody {
		writeError(w, http.StatusRequestEntityTooLarge, "TOO_LARGE", "a login is a small JSON object {\"token\": ...}")
		return
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Token == "" {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "want JSON {\"token\": \"...\"}")
		return
	}
	if !s.auth.tokenOK(req.Token) {
		// s.loginLog counts repeats: a refusal per request would let
		// anyone fill the log.
		s.loginLog.Warn("dashboard login refused", "remote", r.RemoteAddr)
		writeError(w, http.StatusUnauthorized, "BAD_TOKEN", "wrong token")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.auth.create(), Path: "/",
		MaxAge: int(sessionTTL / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil,
	})
	s.log.Info("dashboard login", "remote", r.RemoteAddr)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *server) logout(w http.ResponseWriter, r *http.Request) {
	s.auth.end(r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}
