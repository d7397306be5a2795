// Command botd is the mission-control daemon: it ticks behavior-tree
// missions at a fixed rate on a robot. `botd check` validates missions and
// `botd sim` runs one headless on virtual time; `botd export` writes one
// in another format; `botd hwtest` checks a robot's devices.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	// The mission formats in packages of their own (Behavior3, plans).
	_ "github.com/botd-project/botd/missions/formats"
)

// version is set at link time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program as a function, so tests can drive it. It
// returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && !isHelp(args[0])) {
		return runDaemon(ctx, args, stdout, stderr)
	}
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return runCheck(args[1:], stdout, stderr)
		case "sim":
			return runSim(ctx, args[1:], stdout, stderr)
		case "check-config":
			return runCheckConfig(args[1:], stdout, stderr)
		case "nodes":
			return runNodes(args[1:], stdout, stderr)
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "hwtest":
			return runHWTest(ctx, args[1:], stdout, stderr)
		case "fleet":
			return runFleet(ctx, args[1:], stdout, stderr)
		case "version", "-version", "--version":
			fmt.Fprintln(stdout, "botd", version)
			return 0
		case "help", "-h", "-help", "--help":
			usage(stdout)
			return 0
		}
	}
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `botd: behavior-tree mission control for robots

Usage:
  botd [-config FILE] [flags] run the daemon (default: simulated rover, embedded broker, demo mission)
  botd check FILE...        validate missions (botd JSON/YAML, Behavior3 JSON, BehaviorTree.CPP XML)
  botd sim [flags] FILE     run a mission headless on virtual time and print its trace
  botd check-config FILE    validate a daemon config (hardware, world and mission included), as the daemon does before it starts
  botd check-config -hardware FILE
                            validate a hardware file (adaptors and devices) alone
  botd export [-format b3|b3tree|botd|btcpp|plan] FILE
                            write a mission as BehaviorTree.CPP XML (Groot2), Behavior3 (0.3 project or
                            current tree file), botd JSON or a QGroundControl plan
  botd nodes [-format F]    print the node catalog (markdown, json, or btcpp: a TreeNodesModel for Groot2)
  botd hwtest [-config FILE] [-move]
                            open, read and (with -move) exercise every device, and report each
  botd fleet -n N [-config FILE] [-broker URL]
                            run N simulated robots in one process (load a broker and ground stations)
  botd version              print the version

Daemon flags:
`)
	fs, _ := daemonFlags(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Run 'botd sim -h' for the simulator's flags, 'botd check -h' for check's.
`)
}

func isHelp(a string) bool {
	return a == "-h" || a == "-help" || a == "--help" || a == "-version" || a == "--version"
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
