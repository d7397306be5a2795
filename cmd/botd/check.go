package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/hint"
)

// runCheck validates every file and prints, for each, one line per
// problem ("FILE: path: message") or "FILE: ok (N nodes)", the same for
// one file as for many, and warnings: a key that looks like a typo of a
// sensor key, an expression whose constants put it over its budget
// ("FILE: path: warning: message"). Unknown node types and parameters near a known one get a
// "did you mean". Exit status 0 when all are valid, 1 otherwise (2 on
// usage errors).
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	subst := fs.String("substitute", "", substituteUsage)
	hwFile := fs.String("hardware", "", "hardware config whose device leaves missions may use (default: the simulated rover)")
	cfgFile := fs.String("config", "", "daemon config: its hardware's device leaves, and its geofence, which the missions' targets must keep inside (instead of -hardware)")
	var libs libFlag
	fs.Var(&libs, "lib", libUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd check [-substitute RULES] [-lib DIR|FILE]... [-hardware FILE | -config FILE] FILE...")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	subs, err := loadSubstitutions(*subst)
	if err != nil {
		fmt.Fprintln(stderr, "botd check:", err)
		return 2
	}
	if *hwFile != "" && *cfgFile != "" {
		fmt.Fprintln(stderr, "botd check: -hardware and -config both name the hardware: give one")
		return 2
	}
	hw, fence, imports, err := checkTarget(*hwFile, *cfgFile)
	if err != nil {
		fmt.Fprintln(stderr, "botd check:", err)
		return 2
	}
	lib, err := libs.load()
	if err != nil {
		fmt.Fprintln(stderr, "botd check:", err)
		return 2
	}
	reg := newRegistry(hw)
	var types []string
	for _, t := range reg.Catalog() {
		types = append(append(types, t.Name), t.Aliases...)
	}
	var sensors []string
	if hw != nil {
		sensors = hw.SensorKeys()
	}
	bad := false
	for _, f := range files {
		prefix := f + ": "
		m, err := loadFileWith(f, reg, hw, subs, lib, imports)
		if err == nil && fence != nil {
			err = fenceMissionCheck(fence)(m)
		}
		if err != nil {
			bad = true
			printProblems(stdout, prefix, err, types)
			if t := ownNodeClash(err); t != "" && strings.EqualFold(filepath.Ext(f), ".xml") {
				fmt.Fprintf(stdout, "%snote: if %s in this file is a node of your own rather than botd's %s, stand in for it: -substitute '%s=Succeed'\n", prefix, t, t, t)
			}
			continue
		}
		fmt.Fprintf(stdout, "%sok (%d nodes)\n", prefix, m.Tree.Len())
		for _, w := range standInWarnings(m.Tree.StandIns()) {
			fmt.Fprintf(stdout, "%swarning: %s\n", prefix, w)
		}
		for _, n := range m.Notes {
			fmt.Fprintf(stdout, "%swarning: %s\n", prefix, missions.ProblemText(n))
		}
		for _, w := range m.Tree.Warnings() {
			fmt.Fprintf(stdout, "%s%s: warning: %s\n", prefix, w.Path, w.Message)
		}
		var used, own []string
		for _, k := range m.Tree.Keys() {
			if k.Scope == bt.ScopeGlobal {
				used = append(used, k.Name)
			}
		}
		for k := range m.Doc.Blackboard {
			own = append(own, k)
		}
		for _, k := range hint.Keys(used, sensors, own) {
			fmt.Fprintf(stdout, "%swarning: %s\n", prefix, k)
		}
	}
	if bad {
		return 1
	}
	return 0
}

// checkTarget is the robot missions are checked for: a hardware file, or
// a daemon config's hardware, geofence and defaults for imported files
// (who flies a plan), or the simulated rover.
func checkTarget(hwFile, cfgFile string) (*drivers.Config, *drivers.Fence, missions.ImportDefaults, error) {
	if cfgFile == "" {
		hw, err := loadHardware(hwFile)
		return hw, nil, missions.ImportDefaults{}, err
	}
	cfg, err := loadConfig(cfgFile)
	if err != nil {
		return nil, nil, missions.ImportDefaults{}, err
	}
	data, name, err := cfg.hardwareYAML()
	if err != nil {
		return nil, nil, missions.ImportDefaults{}, fmt.Errorf("%s: hardware: %w", cfg.source, err)
	}
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		return nil, nil, missions.ImportDefaults{}, fmt.Errorf("%s: hardware (%s): %w", cfg.source, name, err)
	}
	fence, err := compileFence(cfg, hw)
	return hw, fence, cfg.imports(), err
}

// printProblems prints one line per problem ("path: message").
func printProblems(w io.Writer, prefix string, err error, types []string) {
	var ps bt.Problems
	if errors.As(err, &ps) {
		for _, p := range hint.Problems(ps, types) {
			fmt.Fprintf(w, "%s%s\n", prefix, missions.ProblemText(p))
		}
		return
	}
	fmt.Fprintf(w, "%s%v\n", prefix, err)
}

// loadFile reads and compiles a mission file (a BehaviorTree.CPP file's
// includes relative to it, lib's trees available to its SubTrees); the
// sensor keys of hw exist on the blackboard.
func loadFile(path string, reg *bt.Registry, hw *drivers.Config, subs missions.Substitutions, lib *missions.Library) (*missions.Mission, error) {
	return loadFileWith(path, reg, hw, subs, lib, missions.ImportDefaults{})
}

// loadFileWith is loadFile with a daemon config's defaults for imported
// files (botd check -config).
func loadFileWith(path string, reg *bt.Registry, hw *drivers.Config, subs missions.Substitutions, lib *missions.Library, imports missions.ImportDefaults) (*missions.Mission, error) {
	var keys []string
	if hw != nil {
		keys = hw.SensorKeys()
	}
	return missions.LoadFile(path, missions.Options{Registry: reg, Substitutions: subs, Keys: keys, Library: lib, Imports: imports})
}

// libUsage documents -lib.
const libUsage = "a tree library: a file, or a folder of .xml/.json/.yaml files, whose trees the missions' SubTrees may call (repeatable)"

// libFlag collects -lib arguments.
type libFlag []string

func (l *libFlag) String() string     { return strings.Join(*l, ",") }
func (l *libFlag) Set(v string) error { *l = append(*l, v); return nil }

// load reads the library (nil when no -lib was given).
func (l libFlag) load() (*missions.Library, error) {
	if len(l) == 0 {
		return nil, nil
	}
	return missions.LoadLibrary(l, missions.Limits{})
}

// substituteUsage documents -substitute for check and sim.
const substituteUsage = "stand-ins for nodes botd cannot run: rules like '*=Succeed,FollowPath=Running:3,Success,@plan=Fail,/trees/main/children/2=2s' " +
	"(PATTERN=STAND-IN: a type, @name or JSON pointer; a node type, a status script or a duration), or a substitution file"

// loadSubstitutions reads -substitute: a file when one exists at that
// path, else inline rules.
func loadSubstitutions(v string) (missions.Substitutions, error) {
	if v == "" {
		return nil, nil
	}
	if st, err := os.Stat(v); err == nil && !st.IsDir() {
		return missions.LoadSubstitutionFile(v)
	}
	return missions.ParseSubstitutions(v)
}

// parseInterspersed parses flags that may come before or after the
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// standInWarnings says, one line per tree, which SubTrees named a tree
// that no file or library holds and were stood in for.
func standInWarnings(ins []bt.StandIn) []string {
	var order []string
	byTree := map[string][]bt.StandIn{}
	for _, in := range ins {
		k := in.Tree + "\x00" + in.Type + "\x00" + in.With
		if _, seen := byTree[k]; !seen {
			order = append(order, k)
		}
		byTree[k] = append(byTree[k], in)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		list := byTree[k]
		tree := list[0].Tree
		where := list[0].Path
		if len(list) > 1 {
			where = fmt.Sprintf("%s and %d more", where, len(list)-1)
		}
		if tree == "" {
			out = append(out, fmt.Sprintf("%s takes other parameters than botd's %s here (another framework's node): it stands in as %s (%s)",
				list[0].Type, list[0].Type, list[0].With, where))
			continue
		}
		out = append(out, fmt.Sprintf("no tree %q in the files or the library: its SubTree stands in as %s (%s)", tree, list[0].With, where))
	}
	return out
}

var paramOfType = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:.*?: )?unknown parameter "[^"]*" for ([A-Za-z0-9_.]+)`)
})

// ownNodeClash returns the type of the first node given parameters that
// are no typo of its own (no "did you mean"): in a BehaviorTree.CPP file
// that is most often the project's own node sharing a name with one of
// botd's (MoveTo, Stop, Turn), which '*' does not stand in for because
// botd knows the name.
func ownNodeClash(err error) string {
	var ps bt.Problems
	if !errors.As(err, &ps) {
		return ""
	}
	for _, p := range hint.Problems(ps, nil) {
		if m := paramOfType().FindStringSubmatch(p.Message); m != nil && !strings.Contains(p.Message, "did you mean") {
			return m[1]
		}
	}
	return ""
}
