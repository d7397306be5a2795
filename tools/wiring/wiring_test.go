package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const root = "../.."

// Every kind HARDWARE.md gives a wiring diagram has its SVG, the SVG is
// well-formed XML with an <svg> root, it is what this program draws from
// its table, and every diagram the program draws is in the doc.
func TestDiagramsInDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs/HARDWARE.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(wiring/([a-z_0-9]+)\.svg\)`).FindAllStringSubmatch(string(doc), -1) {
		linked[m[1]] = true
	}
	if len(linked) == 0 {
		t.Fatal("HARDWARE.md links no wiring diagram")
	}
	drawn := map[string]bool{}
	for _, d := range diagrams {
		drawn[d.kind] = true
		if !linked[d.kind] {
			t.Errorf("%s: drawn, not in HARDWARE.md", d.kind)
		}
	}
	for kind := range linked {
		p := filepath.Join(root, "docs/wiring", kind+".svg")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: in HARDWARE.md, no diagram: %v", kind, err)
			continue
		}
		if !drawn[kind] {
			t.Errorf("%s: %s is not drawn by tools/wiring", kind, p)
		}
		checkSVG(t, p, data)
	}
	for _, d := range diagrams {
		p := filepath.Join(root, "docs/wiring", d.kind+".svg")
		if got, err := os.ReadFile(p); err == nil && !bytes.Equal(got, svg(d)) {
			t.Errorf("%s is out of date: go run ./tools/wiring", p)
		}
	}
}

// checkSVG parses the whole file: one <svg> root in the SVG namespace,
// with a size, every element closed.
func checkSVG(t *testing.T, p string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth, roots, texts := 0, 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if e.Name.Local != "svg" || e.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("%s: root %v, want an svg element", p, e.Name)
				}
				for _, a := range e.Attr {
					if a.Name.Local == "width" || a.Name.Local == "height" {
						if n, err := strconv.Atoi(a.Value); err != nil || n <= 0 {
							t.Errorf("%s: %s=%q", p, a.Name.Local, a.Value)
						}
					}
				}
			}
			if e.Name.Local == "text" {
				texts++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 || texts < 4 {
		t.Errorf("%s: %d roots, depth %d at the end, %d texts", p, roots, depth, texts)
	}
}

// The diagrams of the reference rover's kinds use its config's pins.
func TestDiagramsMatchRover(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "configs/rover-raspi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Devices []map[string]any `yaml:"devices"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dev := range cfg.Devices {
		kind, _ := dev["kind"].(string)
		i := slices.IndexFunc(diagrams, func(d diagram) bool { return d.kind == kind })
		if i < 0 {
			t.Errorf("the rover's %s has no diagram", kind)
			continue
		}
		if kind == "battery" || kind == "imu" { // on I2C: no GPIO of their own
			continue
		}
		var pins []string
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if _, err := strconv.Atoi(v); err == nil {
					pins = append(pins, v)
				}
			case map[string]any:
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		for k, v := range dev {
			if k != "name" && k != "kind" && k != "key" {
				walk(v)
			}
		}
		slices.Sort(pins)
		if got := diagrams[i].gpioPins(); !slices.Equal(got, pins) {
			t.Errorf("%s: the diagram's pins %v, the rover's %v", kind, got, pins)
		}
		for _, w := range diagrams[i].wires {
			if !strings.Contains(pinName(w.header), "pin "+strconv.Itoa(w.header)) {
				t.Errorf("%s: %d named %q", kind, w.header, pinName(w.header))
			}
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d of the rover's devices checked", checked)
	}
}
