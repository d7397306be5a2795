package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// testHost is the machine hwtest checks (tests point it at a directory).
var testHost = thisHost()

// runHWTest is `botd hwtest`: before the first mission on a new robot, open every device of
// its hardware config, read it or exercise it briefly, and report what each returned. Exit
// status 0 when every device answered, 1 when one failed, 2 on usage errors.
func runHWTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hwtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configFile := fs.String("config", "", "daemon config whose hardware is tested (default: the built-in simulated rover)")
	hwFile := fs.String("hardware", "", "a hardware config file to test instead (adaptors and devices)")
	move := fs.Bool("move", false, "exercise the actuators: pulse the motors forward, backward and left (THE WHEELS TURN: lift the robot), sweep servos, switch outputs")
	pulse := fs.Duration("pulse", 300*time.Millisecond, "how long each motor pulse and output lasts")
	speed := fs.Float64("speed", 0.3, "the motor pulses' share of max_linear")
	wait := fs.Duration("wait", 3*time.Second, "how long a sensor has to give its first sample")
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd hwtest [-config FILE | -hardware FILE] [-move] [-pulse D] [-speed S] [-wait D] [-json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*configFile != "" && *hwFile != "") || *pulse <= 0 || *wait <= 0 || !(*speed > 0 && *speed <= 1) {
		fs.Usage()
		return 2
	}
	cfg, hw, hwYAML, source, err := hwtestConfig(*configFile, *hwFile)
	if err != nil {
		fmt.Fprintln(stderr, "botd hwtest:", err)
		return 1
	}
	// The machine first: an interface left off, a missing group, another
	// daemon holding the pins (hwcheck.go).
	notes := hwPreflight(testHost, hwYAML)
	if *hwFile == "" && needsOf(hwYAML).realBoard {
		// The daemon of this config holds its state directory's lock while
		// it runs; hwtest holds it while it tests, so that daemon cannot
		// start in the middle (a lock hwtest cannot open is no answer).
		if dir, err := resolveStateDir(cfg); err == nil {
			lock, err := lockStateDir(dir, cfg.Robot+" (botd hwtest)", time.Now())
			if errors.Is(err, errLocked) {
				notes = append(notes, hwNote{Problem: true, stop: true, What: "the daemon of this config is running: " + err.Error(),
					Fix: "stop it first (sudo systemctl stop botd), run hwtest, then start it again (sudo systemctl start botd)"})
			}
			defer lock.Close()
		}
	}
	noteOut := stdout
	if *asJSON {
		noteOut = stderr
	}
	stopped := false
	for _, n := range notes {
		fmt.Fprintln(noteOut, n)
		stopped = stopped || n.stop
	}
	if len(notes) > 0 {
		fmt.Fprintln(noteOut)
	}
	if stopped {
		fmt.Fprintln(stderr, "botd hwtest: not testing: another botd may be driving these devices")
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	slog.SetDefault(log) // Gobot logs through the standard logger
	var world *sim.World
	for _, a := range hw.Adaptors {
		if a.Kind == drivers.BoardSim && world == nil {
			if world, err = loadWorld(cfg); err != nil {
				fmt.Fprintln(stderr, "botd hwtest:", err)
				return 1
			}
		}
	}
	tctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if world != nil {
		wg.Add(1)
		go func() { defer wg.Done(); stepWorld(tctx, world) }()
	}
	broker := ""
	if urls := cfg.brokers(); len(urls) > 0 {
		broker = urls[0]
	} else {
		broker = "tcp://" + cfg.Broker.Embedded.Listen // a running daemon's embedded broker
	}
	events := func(e drivers.Event) { log.Warn(e.Message, "event", e.Kind) }
	opts := drivers.Options{World: world, Name: cfg.Robot, Logger: log, Events: events,
		MQTT: mqttDialer(cfg, func() string { return broker }, log)}
	if *move {
		fmt.Fprintln(stderr, "botd hwtest: -move: the motors will turn")
	}
	reports, err := drivers.SelfTest(tctx, hw, opts, drivers.SelfTestOptions{Move: *move, Pulse: *pulse, Speed: *speed, Wait: *wait})
	stop()
	wg.Wait()
	if err != nil {
		fmt.Fprintf(stderr, "botd hwtest: %s: %v\n", source, err)
		return 1
	}
	failed := 0
	for _, r := range reports {
		if r.Status == drivers.TestFailed {
			failed++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(reports)
	} else {
		printReports(stdout, source, reports, failed)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// hwtestConfig loads what hwtest tests: a daemon config's hardware (the built-in one by
// default), or a hardware file alone.
func hwtestConfig(configFile, hwFile string) (*Config, *drivers.Config, []byte, string, error) {
	if hwFile != "" {
		hw, err := deviceKinds.LoadConfig(hwFile)
		if err != nil {
			return nil, nil, nil, "", err
		}
		data, err := os.ReadFile(hwFile)
		if err != nil {
			return nil, nil, nil, "", err
		}
		cfg := &Config{source: hwFile}
		cfg.setDefaults()
		return cfg, hw, data, hwFile, nil
	}
	var cfg *Config
	var err error
	if configFile != "" {
		cfg, err = loadConfig(configFile)
	} else {
		cfg, err = defaultConfig()
	}
	if err != nil {
		return nil, nil, nil, "", err
	}
	data, name, err := cfg.hardwareYAML()
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("%s: hardware: %w", cfg.source, err)
	}
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("%s: hardware (%s): %w", cfg.source, name, err)
	}
	if name == "hardware" {
		name = "inline"
	}
	return cfg, hw, data, cfg.source + " (hardware " + name + ")", nil
}

func printReports(w io.Writer, source string, reports []drivers.DeviceReport, failed int) {
	fmt.Fprintf(w, "hardware test of %s\n\n", source)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tKIND\tCONFIG\tRESULT\tWHAT IT RETURNED")
	for _, r := range reports {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Device, r.Kind, r.Path, r.Status, strings.ReplaceAll(r.Message, "\n", " "))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n%d devices: %d ok, %d failed\n", len(reports), len(reports)-failed, failed)
}
