package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/botd-project/botd/internal/ratelog"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// DefaultListen is where Serve listens when Options.Listen is empty.
const DefaultListen = "127.0.0.1:8080"

// Options configure the dashboard.
type Options struct {
	// Ground is the connected ground station the dashboard watches robots
	// and sends commands through (required). Serve does not close it.
	Ground *ground.Client
	// Listen is the address to serve on [DefaultListen].
	Listen string
	// Listener, when set, is already listening on Listen; Serve serves on
	// it and closes it. botctl ui opens it before it connects to the
	// broker, so that a port in use is said at once.
	Listener net.Listener
	// Robot is opened when the page's URL names none (optional).
	Robot string
	// Logger gets the server's log lines [discarded].
	Logger *slog.Logger
	// Stdout gets the dashboard's URL once it listens [discarded].
	Stdout io.Writer
	// Broker names the broker on the page (optional).
	Broker string
	// Token is the login secret (required, at least MinTokenLen bytes):
	// a browser exchanges it for a session cookie at /login.
	Token string
	// ShowToken puts the token in the printed URL (#token=, which the
	// login page submits by itself); off when the user has it in a file.
	ShowToken bool
	// TLSCert and TLSKey serve HTTPS; required when Listen is not a
	// loopback address.
	TLSCert, TLSKey string
}

// CheckListen refuses to serve on an address other machines can reach
// without TLS: the session cookie and the token would cross the network
// in the clear.
func CheckListen(listen string, tls bool) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("web: listen address %q: %w", listen, err)
	}
	if tls || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("web: %s is reachable from other machines: serve it with TLS (a certificate and its key) or listen on 127.0.0.1", listen)
}

// station is what the dashboard uses of a *ground.Client; tests put a
// fake in its place.
type station interface {
	Robots() []ground.RobotInfo
	Watch(robot string, h ground.RobotHandlers) (stop func() error, err error)
	Send(ctx context.Context, robot string, c protocol.Command) (protocol.Reply, error)
	Dropped() uint64
	// Up reports whether the broker connection is up.
	Up() bool
}

var _ station = (*ground.Client)(nil)

//go:embed static
var staticFiles embed.FS

// Limits on what a browser may send.
const (
	maxCommandBody = 16 << 10
	// maxUploadBody leaves room for a JSON string's escaping or a
	// multipart envelope around a document of MaxDocumentBytes.
	maxUploadBody  = 3*missions.MaxDocumentBytes + 64<<10
	commandTimeout = 12 * time.Second
	shutdownGrace  = 5 * time.Second
)

// server is the http.Handler behind Handler and Serve.
type server struct {
	opts  Options
	g     station
	log   *slog.Logger
	hub   *hub
	mux   *http.ServeMux
	index []byte
	names map[string]bool // host names (besides IPs and localhost) a request may use
	now   func() time.Time
	// fleet is the summary of every robot (fleet.go).
	fleet     *fleet
	fleetStop func() error
	auth      *sessions
	// loginLog writes refused logins, 10 per 10 s, then a count.
	loginLog *slog.Logger
}

// Handler returns the dashboard as an http.Handler, for tests
// (httptest) and for callers that run their own server. The value also
// implements io.Closer: Close ends the robot watches it started and waits
// for its background requests; Serve calls it on the way out.
func Handler(opts Options) (http.Handler, error) {
	if opts.Ground == nil {
		return nil, errors.New("web: Options.Ground is nil")
	}
	return newServer(opts, opts.Ground)
}

func newServer(opts Options, g station) (*server, error) {
	if opts.Robot != "" {
		if err := protocol.ValidRobotID(opts.Robot); err != nil {
			return nil, fmt.Errorf("web: robot: %w", err)
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if len(opts.Token) < MinTokenLen {
		return nil, fmt.Errorf("web: the login token must be at least %d characters", MinTokenLen)
	}
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return nil, errors.New("web: a TLS certificate and its key go together")
	}
	index, err := staticFiles.ReadFile("static/index.html")
	if err != nil {
		return nil, fmt.Errorf("web: embedded page: %w", err)
	}
	s := &server{
		opts:  opts,
		g:     g,
		log:   opts.Logger.With("component", "web"),
		index: index,
		names: allowedNames(opts.Listen),
		now:   time.Now,
	}
	s.auth = newSessions(opts.Token, func() time.Time { return s.now() })
	s.loginLog = slog.New(ratelog.New(s.log.Handler(), 0, 0))
	s.hub = newHub(g, s.log, s.now)
	s.startFleet()
	s.routes()
	return s, nil
}

func (s *server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.page)
	m.HandleFunc("GET /robot/{robot}", s.page)
	static, _ := fs.Sub(staticFiles, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	m.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /api/login", s.login)
	m.HandleFunc("POST /api/logout", s.logout)
	m.HandleFunc("GET /api/robots", s.listRobots)
	m.HandleFunc("GET /api/robots/{robot}", s.robotSnapshot)
	m.HandleFunc("GET /api/stream", s.stream)
	m.HandleFunc("POST /api/robots/{robot}/commands/{command}", s.command)
	m.HandleFunc("POST /api/robots/{robot}/hooks/{op}", s.hook) // debug.go
	m.HandleFunc("POST /api/robots/{robot}/mission", s.upload)
	s.fleetRoutes(m)
	s.mux = m
}

// ServeHTTP applies the guards every request goes through.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; "+
		"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, "FORBIDDEN_HOST",
			fmt.Sprintf("host %q is not this machine's (DNS rebinding protection); open the dashboard by IP address or localhost", r.Host))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if msg := crossSite(r); msg != "" {
			writeError(w, http.StatusForbidden, "CROSS_SITE", msg)
			return
		}
	}
	if !s.authorize(w, r) {
		return
	}
	r, release := s.auth.bind(r)
	defer release()
	s.mux.ServeHTTP(w, r)
}

// Close ends the robot watches and waits for background requests.
func (s *server) Close() error {
	s.stopFleet()
	s.hub.close()
	return nil
}

func (s *server) page(w http.ResponseWriter, r *http.Request) {
	if robot := r.PathValue("robot"); robot != "" && protocol.ValidRobotID(robot) != nil {
		http.Error(w, fmt.Sprintf("bad robot id %q", robot), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(s.index)
}

// crossSite explains why a state-changing request is refused: it must
// come from the page itself (same origin, with the X-Botctl header that
// a cross-site form cannot set).
func crossSite(r *http.Request) string {
	if r.Header.Get("X-Botctl") == "" {
		return "missing X-Botctl header: commands are accepted from the dashboard page or a client that sets it"
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "cross-site request refused (Sec-Fetch-Site: " + site + ")"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			return fmt.Sprintf("cross-origin request refused (Origin %q, Host %q)", origin, r.Host)
		}
	}
	return ""
}

// allowedNames are the host names a request may carry besides IP
// addresses and localhost: the listen host and this machine's name.
func allowedNames(listen string) map[string]bool {
	names := map[string]bool{}
	if h, _, err := net.SplitHostPort(listen); err == nil && h != "" && net.ParseIP(h) == nil {
		names[strings.ToLower(h)] = true
	}
	if hn, err := os.Hostname(); err == nil && hn != "" {
		hn = strings.ToLower(hn)
		names[hn] = true
		short, _, _ := strings.Cut(hn, ".")
		names[short] = true
		names[short+".local"] = true
	}
	return names
}

func (s *server) hostAllowed(host string) bool {
	if host == "" {
		return true
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	if net.ParseIP(h) != nil || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	return s.names[h]
}

// apiError is the error member of every JSON answer.
type apiError struct {
	Code     string                  `json:"code"`
	Message  string                  `json:"message"`
	Path     string                  `json:"path,omitempty"`
	Problems []protocol.ReplyProblem `json:"problems,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]any{"ok": false, "error": apiError{Code: "INTERNAL", Message: err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"ok": false, "error": apiError{Code: code, Message: msg}})
}

// Serve serves the dashboard on opts.Listen until ctx is done, then shuts
// the server down (open streams end with ctx) and returns nil; it
// returns an error when it cannot listen or the server fails.
func Serve(ctx context.Context, opts Options) error {
	if opts.Ground == nil {
		return errors.New("web: Options.Ground is nil")
	}
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if err := CheckListen(opts.Listen, opts.TLSCert != ""); err != nil {
		return err
	}
	s, err := newServer(opts, opts.Ground)
	if err != nil {
		return err
	}
	return s.serve(ctx)
}

func (s *server) serve(ctx context.Context) error {
	defer s.Close()
	ln := s.opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.opts.Listen); err != nil {
			return fmt.Errorf("web: %w", err)
		}
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	tls := s.opts.TLSCert != ""
	u := dashboardURL(ln.Addr(), s.opts.Robot, tls)
	login := strings.TrimSuffix(dashboardURL(ln.Addr(), "", tls), "/") + "/login"
	if s.opts.Robot != "" {
		login += "?next=" + url.QueryEscape("/robot/"+url.PathEscape(s.opts.Robot))
	}
	if s.opts.ShowToken {
		login += "#token=" + url.QueryEscape(s.opts.Token)
	}
	fmt.Fprintf(s.opts.Stdout, "botctl ui: dashboard on %s\nbotctl ui: log in at %s\n", u, login)
	s.log.Info("dashboard listening", "addr", ln.Addr().String(), "tls", tls)

	errc := make(chan error, 1)
	go func() {
		if tls {
			errc <- srv.ServeTLS(ln, s.opts.TLSCert, s.opts.TLSKey)
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("web: %w", err)
	case <-ctx.Done():
	}
	// Streams end with ctx (BaseContext); Shutdown waits for the rest.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	<-errc // http.ErrServerClosed
	return nil
}

// dashboardURL is the URL to print: an unspecified listen address is
// reachable as localhost.
func dashboardURL(a net.Addr, robot string, tls bool) string {
	scheme := "http://"
	if tls {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return scheme + a.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	u := scheme + net.JoinHostPort(host, port) + "/"
	if robot != "" {
		u += "robot/" + url.PathEscape(robot)
	}
	return u
}
