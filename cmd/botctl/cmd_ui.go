package main

import (
	"flag"
	"fmt"
	"log/slog"

	"github.com/botd-project/botd/cmd/botctl/web"
)

func uiFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address the dashboard serves on")
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
	if !g.Conn().IsUp() {
		fmt.Fprintf(c.stderr, "botctl ui: connecting to the broker at %s (the dashboard says when it is up)\n", c.broker)
	}
	err = web.Serve(c.ctx, web.Options{Ground: g, Listen: c.listen, Robot: robot, Logger: log, Stdout: c.stdout, Broker: c.broker})
	if err != nil && c.ctx.Err() == nil {
		return fail(exitRefused, "%v", err)
	}
	return nil
}
