package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/botd-project/botd/cmd/botctl/web"
)

func uiFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address the dashboard serves on")
	signingFlags(c, fs)
}

// ui serves the web dashboard until interrupted. The ground station stays
// connected with its presence, so robots count it as their operator link.
// It starts without waiting for the broker: the page says it is
// connecting, and the robots appear when it is up.
func (c *cli) ui(args []string) error {
	robot, err := robotArg(args)
	if err != nil {
		return err
	}
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
	err = web.Serve(c.ctx, web.Options{Ground: g, Listen: c.listen, Robot: robot, Logger: log, Stdout: c.stdout, Broker: c.broker})
	if err != nil && c.ctx.Err() == nil {
		return fail(exitRefused, "%v", err)
	}
	return nil
}
