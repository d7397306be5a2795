package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/botd-project/botd/missions"
)

// runExport writes a mission in another format: BehaviorTree.CPP v4 XML
// (Groot2 opens it), a Behavior3 Editor project, or botd JSON. It reads
// any format botd reads; the trees of included files and of -lib trees
// the mission calls are written into the output. -format plan writes a UAV
// mission's flight as a QGroundControl plan (package plan). Exit status 0 on success, 1 when the mission
// cannot be read or written, 2 on usage errors.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var formatDocs []string
	for _, f := range missions.Formats() {
		formatDocs = append(formatDocs, f.Name+" ("+f.Doc+")")
	}
	format := fs.String("format", "btcpp", "output format: "+strings.Join(formatDocs, ", "))
	homeFlag := fs.String("home", "", "plan: the planned home LAT,LON,ALT (degrees, m above sea level); GoTo x/y targets are metres from it (default: an imported plan's own)")
	outFile := fs.String("o", "", "write to FILE instead of stdout")
	hwFile := fs.String("hardware", "", "hardware config whose device leaves the model declares (default: the simulated rover)")
	var libs libFlag
	fs.Var(&libs, "lib", libUsage)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: botd export [-format %s] [-home LAT,LON,ALT] [-lib DIR|FILE]... [-o OUT] FILE\n", missions.FormatNames())
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	if !strings.Contains("|"+missions.FormatNames()+"|", "|"+*format+"|") {
		fmt.Fprintf(stderr, "botd export: unknown format %q (want %s)\n", *format, strings.ReplaceAll(missions.FormatNames(), "|", ", "))
		return 2
	}
	home, err := parseHome(*homeFlag)
	if err != nil {
		fmt.Fprintln(stderr, "botd export: -home:", err)
		return 2
	}
	hw, err := loadHardware(*hwFile)
	if err != nil {
		fmt.Fprintln(stderr, "botd export:", err)
		return 2
	}
	lib, err := libs.load()
	if err != nil {
		fmt.Fprintln(stderr, "botd export:", err)
		return 2
	}
	d, err := missions.DecodeFile(files[0], missions.Limits{}, lib)
	if err != nil {
		printProblems(stdout, files[0]+": ", err, nil)
		return 1
	}
	out, err := missions.Export(*format, d, missions.ExportOptions{Registry: newRegistry(hw), Home: home})
	if err != nil {
		fmt.Fprintf(stderr, "botd export: %s: %v\n", files[0], err)
		return 1
	}
	if *outFile == "" {
		_, err = stdout.Write(out)
	} else {
		err = os.WriteFile(*outFile, out, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "botd export:", err)
		return 1
	}
	return 0
}

// parseHome reads -home: "LAT,LON,ALT", or "" for none.
func parseHome(s string) (*[3]float64, error) {
	if s == "" {
		return nil, nil
	}
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return nil, fmt.Errorf("%q: want LAT,LON,ALT", s)
	}
	var h [3]float64
	for i, v := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x != x {
			return nil, fmt.Errorf("%q: %q is not a number", s, v)
		}
		h[i] = x
	}
	if h[0] < -90 || h[0] > 90 || h[1] < -180 || h[1] > 180 {
		return nil, fmt.Errorf("%q is not a place on Earth", s)
	}
	return &h, nil
}
