package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/botd-project/botd/"

// rule is one row of the table: the botd packages a package may import.
type rule struct {
	allowed map[string]bool
	any     bool // "everything on the robot side", "robot and ground packages"
}

var ticked = regexp.MustCompile("`([^`]+)`")

// readTable reads docs/ARCHITECTURE.md's "may import (of botd's own)" table.
func readTable(t *testing.T) map[string]rule {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string]rule{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "| package |") && strings.Contains(line, "may import") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cols := strings.Split(strings.Trim(line, "|"), "|")
		if len(cols) < 3 || strings.HasPrefix(strings.TrimSpace(cols[0]), "---") {
			continue
		}
		last := cols[len(cols)-1]
		r := rule{allowed: map[string]bool{}}
		switch {
		case strings.Contains(last, "everything on the robot side"), strings.Contains(last, "robot and ground packages"):
			r.any = true
		default:
			for _, m := range ticked.FindAllStringSubmatch(last, -1) {
				r.allowed[m[1]] = true
			}
		}
		for _, m := range ticked.FindAllStringSubmatch(cols[0], -1) {
			rules[m[1]] = r
		}
	}
	if len(rules) == 0 {
		t.Fatal("no package table found in docs/ARCHITECTURE.md")
	}
	return rules
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command(goTool, "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var ps []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestImportsFollowTheArchitecture: every package of the module is in the
// table, and imports (outside its tests) only the botd packages its row
// allows; nothing imports cmd/... but its own subpackages; the packages
// marked "Imported by tests only" are (by tests and by each other).
func TestImportsFollowTheArchitecture(t *testing.T) {
	rules := readTable(t)
	testsOnly := []string{"internal/mqtttest", "internal/testutil", "internal/mavtest", "internal/faultnet", "internal/archtest", "bt/bttest", "drivers/drivertest"}
	for _, p := range listPackages(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		r, ok := rules[name]
		if !ok {
			t.Errorf("%s is not in docs/ARCHITECTURE.md's package table: add its row (what it is, what it may import)", name)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			switch {
			case slices.Contains(testsOnly, dep) && !slices.Contains(testsOnly, name): // a test kit may build on another
				t.Errorf("%s imports %s, which is for tests only", name, dep)
			case strings.HasPrefix(dep, "cmd/") && !strings.HasPrefix(dep, name+"/"):
				t.Errorf("%s imports %s: nothing imports cmd/...", name, dep)
			case r.any || r.allowed[dep]:
			default:
				t.Errorf("%s imports %s, which docs/ARCHITECTURE.md does not allow it (it allows %s)", name, dep, allowedList(r))
			}
		}
	}
}

func allowedList(r rule) string {
	var out []string
	for k := range r.allowed {
		out = append(out, k)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// familyWords is the word that marks a family in the core's source where its package name is
// a word the core uses of other things: "GPS" is also a MAVLink vehicle's fix and a pose
// source in the docs, while NMEA is the gps family's alone; "gpio" is also Gobot's package of
// pin drivers, which the boards use, while diff_drive is the gpio family's kind alone.
var familyWords = map[string]string{"drivers/gps": "nmea", "drivers/gpio": "diff_drive"}

// TestDeviceFamilies: the device families are the packages drivers/standard
// lists; the drivers core imports none of them (not even through another
// package), names none of them in its source, and no family imports another.
func TestDeviceFamilies(t *testing.T) {
	ps := listPackages(t)
	imports := map[string][]string{}
	for _, p := range ps {
		imports[strings.TrimPrefix(p.ImportPath, module)] = p.Imports
	}
	var families []string
	for _, imp := range imports["drivers/standard"] {
		if dep := strings.TrimPrefix(imp, module); dep != imp && dep != "drivers" {
			families = append(families, dep)
		}
	}
	if len(families) == 0 {
		t.Fatal("drivers/standard lists no device family")
	}
	cmd := exec.Command("go", "list", "-deps", "./drivers")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./drivers: %v", err)
	}
	deps := strings.Fields(string(out))
	core, err := filepath.Glob(filepath.Join("..", "..", "drivers", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if slices.Contains(deps, module+f) {
			t.Errorf("the drivers core depends on the family %s", f)
		}
		for _, imp := range imports[f] {
			if dep := strings.TrimPrefix(imp, module); dep != f && slices.Contains(families, dep) {
				t.Errorf("the family %s imports the family %s: families import the core, never each other", f, dep)
			}
		}
		name := filepath.Base(f)
		if w, ok := familyWords[f]; ok {
			name = w
		}
		word := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(name))
		for _, file := range core {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if loc := word.FindIndex(data); loc != nil {
				t.Errorf("%s names the family %s (line %d): the core knows kinds only through the registry",
					filepath.Base(file), f, 1+strings.Count(string(data[:loc[0]]), "\n"))
			}
		}
	}
}
