package missions

import (
	"fmt"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions/plan"
)

// The formats a document can be written in, behind one registry: each
// format registers itself (its name as `botd export -format` takes it,
// what it is, how it writes a document), so a new format is one more
// registration rather than one more case in every command that writes
// missions. Decode reads every format it knows from the content.

// ExportOptions are what a format may need to write a document.
type ExportOptions struct {
	// Registry says which node types botd knows (nil: the built-ins);
	// the BT.CPP model declares the device leaves it holds.
	Registry *bt.Registry
	// Home is a plan's planned home (latitude, longitude, altitude above
	// sea level); nil: an imported plan's own.
	Home *[3]float64
}

// Writer is one format a document can be written in.
type Writer struct {
	Name   string // as `botd export -format` takes it
	Doc    string // what it is, for usage texts
	Export func(d *Document, o ExportOptions) ([]byte, error)
}

var (
	formats     = map[string]Writer{}
	formatOrder []string // as registered
)

// RegisterFormat adds a format; a name registered twice is a programming
// error.
func RegisterFormat(f Writer) {
	if f.Name == "" || f.Export == nil {
		panic("missions: a format needs a name and an export")
	}
	if _, dup := formats[f.Name]; dup {
		panic("missions: format " + f.Name + " registered twice")
	}
	formats[f.Name] = f
	formatOrder = append(formatOrder, f.Name)
}

// Formats lists the registered formats in the order they were
// registered (botd's usage texts list them so).
func Formats() []Writer {
	out := make([]Writer, 0, len(formatOrder))
	for _, name := range formatOrder {
		out = append(out, formats[name])
	}
	return out
}

// FormatNames is the names of the formats, "a|b|c".
func FormatNames() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	return strings.Join(names, "|")
}

// Export writes d in the named format.
func Export(format string, d *Document, o ExportOptions) ([]byte, error) {
	f, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.ReplaceAll(FormatNames(), "|", ", "))
	}
	return f.Export(d, o)
}

func init() {
	RegisterFormat(Writer{Name: "btcpp", Doc: "BehaviorTree.CPP v4 XML (Groot2)",
		Export: func(d *Document, o ExportOptions) ([]byte, error) { return ExportBTCPP(d, o.Registry) }})
	RegisterFormat(Writer{Name: "b3", Doc: "a Behavior3 Editor 0.3 project",
		Export: func(d *Document, _ ExportOptions) ([]byte, error) { return ExportB3(d) }})
	RegisterFormat(Writer{Name: "b3tree", Doc: "the current Behavior3 editor's tree file",
		Export: func(d *Document, _ ExportOptions) ([]byte, error) { return ExportB3Tree(d) }})
	RegisterFormat(Writer{Name: "botd", Doc: "botd's own mission JSON",
		Export: func(d *Document, _ ExportOptions) ([]byte, error) { return d.JSON() }})
	RegisterFormat(Writer{Name: "plan", Doc: "a QGroundControl .plan of a UAV mission's flight",
		Export: func(d *Document, o ExportOptions) ([]byte, error) {
			return plan.Export(d.Trees, d.Main, d.Blackboard, plan.ExportOptions{Home: o.Home})
		}})
}
