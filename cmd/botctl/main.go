package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	// Before Bubble Tea's init: no terminal queries (see the package).
	_ "github.com/botd-project/botd/cmd/botctl/internal/quietterm"
	// The mission formats in packages of their own (Behavior3, plans).
	_ "github.com/botd-project/botd/missions/formats"
)

// Exit statuses.
const (
	exitOK          = 0 // done; a mission or command was accepted
	exitRefused     = 1 // the robot (or the local check) refused it
	exitUsage       = 2 // bad arguments, unreadable files
	exitUnreachable = 3 // broker unreachable, robot offline or no reply
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand.
type command struct {
	name  string
	args  string // usage after the name
	short string
	run   func(c *cli, args []string) error
	flags func(c *cli, fs *flag.FlagSet)
	// bind, for a command with options of its own, registers their flags
	// and returns what runs the command with them (instead of run and
	// flags).
	bind func(c *cli, fs *flag.FlagSet) func(args []string) error
	// ownsKey: --key is the command's signing key; the TLS client key is
	// then only --tls-key.
	ownsKey bool
}

var commands = []command{
	{name: "robots", args: "[--mode M,...] [--label KEY=VALUE]... [--online] [--sort KEY] [--labels]",
		short: "list every robot heard on the broker (filtered, sorted)", bind: with(func(c *cli) *robotsCmd { return &robotsCmd{cli: c} })},
	{name: "status", args: "[ROBOT]", short: "show a robot's state", run: (*cli).status},
	{name: "mission", args: "send FILE [--robot R | --robots SELECTOR] [--start] [--replace] [--key KEY]",
		short: "send a mission (any supported format)", bind: with(func(c *cli) *missionCmd { return &missionCmd{cli: c} }), ownsKey: true},
	{name: "missions", args: "[ROBOT]", short: "list the missions the robot keeps (the interrupted one marked), to start one by id", run: (*cli).missions},
	{name: "start", args: "[ROBOT] [--mission ID] [--replace] [--key KEY]", short: "start a stored mission (default: the current or last one)",
		bind: with(func(c *cli) *startCmd { return &startCmd{cli: c} }), ownsKey: true},
	{name: "pause", args: "[ROBOT]", short: "pause the running mission (halts nodes, stops motors)", run: control("mission.pause")},
	{name: "resume", args: "[ROBOT] [--key KEY]", short: "resume the paused mission where it paused", run: control("mission.resume"),
		flags: signingFlags, ownsKey: true},
	{name: "abort", args: "[ROBOT]", short: "abort the mission; the robot goes to its safe state", run: control("mission.abort")},
	{name: "estop", args: "[ROBOT | --all | --robots SELECTOR]", short: "emergency stop: nothing moves until estop-reset (--all: every robot at once)",
		bind: with(func(c *cli) *estopCmd { return &estopCmd{cli: c} })},
	{name: "estop-reset", args: "[ROBOT] [--key KEY]", short: "release the e-stop (a running mission stays paused until resumed)", run: control("estop.reset"),
		flags: signingFlags, ownsKey: true},
	{name: "set", args: "[ROBOT] KEY=VALUE... [--key KEY]", short: "write operator values on the robot's blackboard (keys its config marks writable): cruise=0.3, mode=\"auto\", armed=true",
		run: (*cli).set, flags: signingFlags, ownsKey: true},
	{name: "tree", args: "[ROBOT]", short: "print the active mission's tree with node statuses", run: (*cli).tree},
	{name: "events", args: "[ROBOT] [--follow] [--for DURATION] [--no-history]", short: "print the events the robot keeps, then the new ones as they arrive",
		bind: with(func(c *cli) *eventsCmd { return &eventsCmd{cli: c} })},
	{name: "sign", args: "FILE --key KEY [--out[=PATH]]", short: "write a detached signature of a mission file (for review; robots check what --key signs)",
		bind: with(func(c *cli) *signCmd { return &signCmd{cli: c} }), ownsKey: true},
	{name: "keygen", args: "--out FILE [--id ID]", short: "make an Ed25519 key pair for signed commands (FILE, FILE.pub)",
		bind: with(func(c *cli) *keygenCmd { return &keygenCmd{cli: c} })},
	{name: "debug", args: "[ROBOT] [break|force|step|continue|list|clear ...] [--key KEY]",
		short: "debug the running mission: breakpoints, steps, forced statuses (a session; help lists its commands)", run: (*cli).debug, flags: debugFlags, ownsKey: true},
	{name: "watch", args: "[ROBOT]", short: "live terminal view of a robot's tree (default: the only robot online)", run: (*cli).watch},
	{name: "ui", args: "[--listen ADDR] [--token-file FILE] [--https-cert FILE --https-key FILE] [--key KEY] [ROBOT]", short: "web dashboard (log in with the URL it prints)", bind: with(func(c *cli) *uiCmd { return &uiCmd{cli: c} }), ownsKey: true},
}

// run is the whole program as a function; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI(ctx, stdin, stdout, stderr)
	global := flag.NewFlagSet("botctl", flag.ContinueOnError)
	global.SetOutput(io.Discard)
	c.globalFlags(global, false)
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return exitOK
		}
		fmt.Fprintln(stderr, "botctl:", err)
		usage(stderr)
		return exitUsage
	}
	rest := global.Args()
	if len(rest) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := rest[0]
	switch name {
	case "help":
		usage(stdout)
		return exitOK
	case "version":
		fmt.Fprintln(stdout, "botctl", version)
		return exitOK
	}
	for _, cmd := range commands {
		if cmd.name != name {
			continue
		}
		fs := flag.NewFlagSet("botctl "+name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.globalFlags(fs, cmd.ownsKey)
		runCmd := func(args []string) error { return cmd.run(c, args) }
		if cmd.bind != nil {
			runCmd = cmd.bind(c, fs)
		} else if cmd.flags != nil {
			cmd.flags(c, fs)
		}
		pos, err := parseInterspersed(fs, rest[1:])
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				commandUsage(stdout, cmd, fs)
				return exitOK
			}
			fmt.Fprintf(stderr, "botctl %s: %v\n", name, err)
			commandUsage(stderr, cmd, fs)
			return exitUsage
		}
		return c.finish(cmd, fs, runCmd(pos))
	}
	fmt.Fprintf(stderr, "botctl: unknown command %q\n", name)
	usage(stderr)
	return exitUsage
}

// version is set at link time (-ldflags "-X main.version=...").
var version = "dev"

// parseInterspersed parses flags that may come before, between or after
// the positional arguments; everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// finish turns a command's error into its message and exit status.
func (c *cli) finish(cmd command, fs *flag.FlagSet, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = &exitError{code: exitRefused, err: err}
	}
	if ee.err != nil {
		fmt.Fprintf(c.stderr, "botctl %s: %v\n", cmd.name, ee.err)
	}
	if ee.code == exitUsage && ee.showUsage {
		commandUsage(c.stderr, cmd, fs)
	}
	return ee.code
}

// exitError carries an exit status; a nil err means the message was
// already printed.
type exitError struct {
	code      int
	err       error
	showUsage bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), showUsage: true}
}

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// silent is an exit status whose message was already printed.
func silent(code int) error { return &exitError{code: code} }

func usage(w io.Writer) {
	fmt.Fprint(w, `botctl: the ground station of botd

Usage: botctl [flags] COMMAND [arguments] [flags]

Commands:
`)
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", cmd.name, cmd.short)
	}
	fmt.Fprint(w, `
Flags (anywhere on the line):
  --broker URL          broker URL(s), comma-separated (default tcp://127.0.0.1:1883, a local botd)
  --broker-kind KIND    rabbitmq: subscribe at QoS 0 and wait 3 s before a reconnect (back
                        on a cluster whose node died), and find robots by their live
                        state, which takes 1.5 s (docs/FLEET.md)
  --username NAME       broker user name
  --password-file FILE  broker password (first line); else $BOTCTL_MQTT_PASSWORD
  --ca FILE             CA certificate for TLS (ssl://, wss://)
  --cert FILE --key FILE  TLS client certificate and key (also --tls-cert, --tls-key;
                        for mission send, start, resume, estop-reset, ui and sign, --key is
                        the signing key: use --tls-key)
  --prefix PREFIX       topic prefix (default botd/v1)
  --gcs NAME            ground-station name (default: the broker user name, else
                        the host name); each process is botd-gcs-NAME-<random>
  --timeout DURATION    how long to wait for the broker and for replies (default 10s)
  --json                machine-readable output

Signed commands: a robot with security.require_signed_missions takes mission send,
start, resume and estop-reset only signed: give --key FILE (botctl keygen) or set
$BOTCTL_SIGNING_KEY; pause, abort and estop never need a key.

Exit status: 0 done/accepted, 1 refused, 2 usage, 3 broker unreachable, robot offline or no reply.
A command that acts on one robot takes the only robot online when none is named.
Fleet commands (mission send --robots, estop --all | --robots) take a selector:
robot id globs (rover-*, rover-00[1-3],uav-?) or labels (site=yard-a,kind=rover;
team!=red; values may be globs). They send to every robot at once and print each
robot's reply; a robot that does not answer within --timeout is NO_REPLY (exit 3),
and a selector that matches no robot is an error (exit 3).
Run 'botctl COMMAND -h' for a command's flags.
`)
}

func commandUsage(w io.Writer, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: botctl %s %s\n  %s\n", cmd.name, cmd.args, cmd.short)
	own := func(f *flag.Flag) bool { return !isGlobalFlag(f.Name) || (cmd.ownsKey && f.Name == "key") }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if !own(f) {
			return
		}
		if first {
			fmt.Fprintln(tw, "flags:")
			first = false
		}
		name, u := flag.UnquoteUsage(f)
		if name != "" {
			name = " " + name
		}
		fmt.Fprintf(tw, "  --%s%s\t%s\n", f.Name, name, u)
	})
	tw.Flush()
	fmt.Fprintln(w, "(and the global flags: botctl help)")
}
