package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/botd-project/botd/cmd/botctl/web"
)

// uiOpts are botctl ui's own flags.
type uiOpts struct {
	tokenFile, httpsCert, httpsKey string
}

// uiCmd is `botctl ui` with its options.
type uiCmd struct {
	*cli
	listen string
	uiOpt  uiOpts
}

func (c *uiCmd) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address the dashboard serves on (other than loopback: only with --https-cert and --https-key)")
	signingFlags(c.cli, fs)
	fs.StringVar(&c.uiOpt.tokenFile, "token-file", "", "file holding the login token (first line, at least 16 characters); default: a random token, printed")
	fs.StringVar(&c.uiOpt.httpsCert, "https-cert", "", "serve HTTPS with this certificate (PEM)")
	fs.StringVar(&c.uiOpt.httpsKey, "https-key", "", "the key of --https-cert (PEM)")
}

// uiToken is the dashboard's login token: the first line of --token-file,
// or a random one (shown is true: print it).
func (c *uiCmd) uiToken() (token string, shown bool, err error) {
	if c.uiOpt.tokenFile == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, err
		}
		return hex.EncodeToString(b[:]), true, nil
	}
	if st, err := os.Stat(c.uiOpt.tokenFile); err == nil && st.Mode().Perm()&0o077 != 0 {
		return "", false, usageError("--token-file %s is readable by other users (%v): chmod 600 it", c.uiOpt.tokenFile, st.Mode().Perm())
	}
	data, err := os.ReadFile(c.uiOpt.tokenFile)
	if err != nil {
		return "", false, usageError("--token-file: %v", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	if len(line) < web.MinTokenLen {
		return "", false, usageError("--token-file %s: the token must be at least %d characters", c.uiOpt.tokenFile, web.MinTokenLen)
	}
	return line, false, nil
}

// uiCheck refuses what the dashboard must not start with: TLS files
// half given, or an address other machines reach without TLS.
func (c *uiCmd) uiCheck() error {
	if (c.uiOpt.httpsCert == "") != (c.uiOpt.httpsKey == "") {
		return usageError("--https-cert and --https-key go together")
	}
	if err := web.CheckListen(c.listen, c.uiOpt.httpsCert != ""); err != nil {
		return usageError("%s (--https-cert, --https-key)", strings.TrimPrefix(err.Error(), "web: "))
	}
	return nil
}

// ui serves the web dashboard until interrupted. The ground station stays
// connected with its presence, so robots count it as their operator link.
// It starts without waiting for the broker: the page says it is
// connecting, and the robots appear when it is up.
func (c *uiCmd) run(args []string) error {
	robot, err := robotArg(args)
	if err != nil {
		return err
	}
	if err := c.uiCheck(); err != nil {
		return err
	}
	token, shown, err := c.uiToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fail(exitRefused, "%v\n%s", err, portTakenHint(c.listen))
		}
		return fail(exitRefused, "%v", err)
	}
	defer ln.Close()
	g, err := c.dial(true)
	if err != nil {
		return err
	}
	defer g.Close()
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// A moment for a broker that is there; the page waits for one that is not.
	wctx, cancel := context.WithTimeout(c.ctx, min(2*time.Second, c.timeout))
	if g.WaitUp(wctx) != nil && c.ctx.Err() == nil {
		fmt.Fprintf(c.stderr, "botctl ui: no broker at %s yet: connecting, and again after every loss (the dashboard says when it is up)\n", c.broker)
	}
	cancel()
	err = web.Serve(c.ctx, web.Options{Ground: g, Listen: c.listen, Listener: ln, Robot: robot, Logger: log, Stdout: c.stdout, Broker: c.broker,
		Token: token, ShowToken: shown, TLSCert: c.uiOpt.httpsCert, TLSKey: c.uiOpt.httpsKey})
	if err != nil && c.ctx.Err() == nil {
		return fail(exitRefused, "%v", err)
	}
	return nil
}

// portTakenHint says how to serve the dashboard when its address is taken
// (another dashboard, or anything else on that port): the next port, or
// any free one.
func portTakenHint(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	next := "8081"
	if p, perr := strconv.Atoi(port); err == nil && perr == nil && p > 0 && p < 65535 {
		next = strconv.Itoa(p + 1)
	}
	return fmt.Sprintf("%s is taken (another botctl ui?): serve on another port with --listen %s, or --listen %s for any free one (the URL is printed)",
		listen, net.JoinHostPort(host, next), net.JoinHostPort(host, "0"))
}
