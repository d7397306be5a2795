package main

import (
	"flag"
	"log/slog"

	"github.com/botd-project/botd/cmd/botctl/web"
)

func uiFlags(c *cli, fs *flag.FlagSet) {
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address the dashboard serves on")
}

// ui serves the web dashboard until interrupted. The ground station stays
// connected with its presence, so robots count it as their operator link.
func (c *cli) ui(args []string) error {
	robot, err := robotArg(args)
	if err != nil {
		return err
	}
	g, err := c.connect(true)
	if err != nil {
		return err
	}
	defer g.Close()
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err = web.Serve(c.ctx, web.Options{Ground: g, Listen: c.listen, Robot: robot, Logger: log, Stdout: c.stdout})
	if err != nil && c.ctx.Err() == nil {
		return fail(exitRefused, "%v", err)
	}
	return nil
}
