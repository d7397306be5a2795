package missions

import (
	"fmt"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
)

// The formats a document can be read and written in, behind one
// registry: each format registers itself (its name as `botd export
// -format` takes it, what it is, how a document in it is recognised and
// read, how a document is written in it), so a new format is one more
// registration rather than one more case in the decoder and in every
// command that writes missions. Decode tries the formats' Detect in the
// order they were registered and reads a document no format claims as
// botd's own JSON or YAML.

// ExportOptions are what a format may need to write a document.
type ExportOptions struct {
	// Registry says which node types botd knows (nil: the built-ins);
	// the BT.CPP model declares the device leaves it holds.
	Registry *bt.Registry
	// Home is a plan's planned home (latitude, longitude, altitude above
	// sea level); nil: an imported plan's own.
	Home *[3]float64
}

// Codec is one format a document can be read in, written in, or both.
type Codec struct {
	Name string // as `botd export -format` takes it
	Doc  string // what it is, for usage texts

	// Detect reports whether the source is in this format; it looks at
	// the bytes (Source.Body) or the parsed JSON (Source.JSON) and is
	// cheap. The formats' detectors claim disjoint documents. nil: the
	// format is written only.
	Detect func(s *Source) bool
	// Import reads a source Detect claimed into a botd document,
	// reporting every problem through the source; nil when the problems
	// leave no document.
	Import func(s *Source) *Document
	// Export writes a document in the format; nil: the format is read
	// only.
	Export func(d *Document, o ExportOptions) ([]byte, error)
	// Rules reads a file of stand-in rules (LoadSubstitutionFile) written
	// in the format's own JSON form; false when o is not in that form
	// (nil: the format has none). o is nil for JSON that is no object.
	Rules func(o *Object) (rules Substitutions, ok bool, err error)
	// Exts are the file name extensions (".ext", lower case) of the
	// files in a library folder that LoadLibrary reads as this format;
	// nil: none (a library reads botd's .json, .yaml and .yml).
	Exts []string
	// Annotate rewrites the problems found loading any document, whatever
	// format it arrived in, so that a mission this format generated names
	// the format's own parts in them (a generated mission travels on as
	// botd JSON too); it recognises its documents itself. nil: none.
	Annotate func(d *Document, list bt.Problems)
}

// Origin is a format's hook into loading one document it imported: what
// the format keeps of the file that botd's own form has no place for (a
// format whose files name their lines, includes other files or declares
// defaults the import already applied). The format's Import sets it as
// Document.Origin; the format's Export and Import may read it back
// (Document.Origin, Library.Origins) by asserting their own type. A
// document built in code, decoded from botd's own formats or from its
// JSON (Mission.Resolved) has none; nothing else differs then.
type Origin interface {
	// Compile compiles d, as reg.Compile(d.Spec(opts)) does: a format
	// whose own runtime loads a file and fails a node only when it runs
	// may stand in for such nodes (path rules, bt.Substitution) and say
	// why (notes, Code bt.CodeWarning), rather than refuse the file.
	Compile(d *Document, reg *bt.Registry, opts Options) (tree *bt.Tree, notes []bt.Problem, standIns []bt.Substitution, err error)
	// Locate rewrites the problems found in d (decoding and compiling,
	// each located by a JSON pointer in Path) to name their place in the
	// file as well, in messages that start "line N: " or "FILE: line N: "
	// (see ProblemText), and may reorder them (by file and line).
	Locate(list []bt.Problem)
}

// Source is a document being decoded: its bytes, where they came from,
// and the problems found so far (located by JSON pointers into the
// document the import produces, or into the imported file).
type Source struct {
	// Data is the whole document, its byte-order mark removed.
	Data []byte
	// Body is Data from its first byte that is not blank.
	Body []byte
	// File is the document's path; "" for bytes from elsewhere, which
	// may include no other file.
	File string
	// Library holds the trees a library provides (nil: none).
	Library *Library
	// Defaults are the daemon's choices for what the file leaves out
	// (Options.Imports; zero when decoding without options).
	Defaults ImportDefaults

	ps       *problems
	json     any
	jsonRead bool
	jsonOK   bool // parsed (json may be a JSON null)
}

// JSON is the document parsed as JSON when it starts with '{' or '['
// (parsed once, its syntax problems reported once); nil otherwise or
// when it does not parse.
func (s *Source) JSON() any {
	if !s.jsonRead {
		s.jsonRead = true
		if len(s.Body) > 0 && (s.Body[0] == '{' || s.Body[0] == '[') {
			s.json, s.jsonOK = parseJSON(s.Data, s.ps)
		}
	}
	return s.json
}

// jsonObject is the document's JSON when it is an object.
func (s *Source) jsonObject() *object {
	o, _ := s.JSON().(*object)
	return o
}

var (
	formats     = map[string]Codec{}
	formatOrder []string // as registered
)

// RegisterFormat adds a format; a name registered twice, or a format
// that can neither be read nor written, is a programming error.
func RegisterFormat(f Codec) {
	if f.Name == "" || (f.Export == nil && (f.Detect == nil || f.Import == nil)) {
		panic("missions: a format needs a name and an export or a detect and an import")
	}
	if (f.Detect == nil) != (f.Import == nil) {
		panic("missions: format " + f.Name + " needs both a detect and an import, or neither")
	}
	if _, dup := formats[f.Name]; dup {
		panic("missions: format " + f.Name + " registered twice")
	}
	formats[f.Name] = f
	formatOrder = append(formatOrder, f.Name)
}

// Formats lists the registered formats by name (botd's usage texts list
// them so, whichever package registered them first).
func Formats() []Codec {
	out := make([]Codec, 0, len(formatOrder))
	for _, name := range formatOrder {
		out = append(out, formats[name])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FormatNames is the names of the formats a document can be written in,
// "a|b|c".
func FormatNames() string {
	var names []string
	for _, f := range Formats() {
		if f.Export != nil {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, "|")
}

// Export writes d in the named format.
func Export(format string, d *Document, o ExportOptions) ([]byte, error) {
	f, ok := formats[format]
	if !ok || f.Export == nil {
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.ReplaceAll(FormatNames(), "|", ", "))
	}
	return f.Export(d, o)
}

// importFormat is the registered format whose Detect claims s; false
// when none does (a botd document).
func importFormat(s *Source) (Codec, bool) {
	for _, name := range formatOrder {
		if f := formats[name]; f.Detect != nil && f.Detect(s) {
			return f, true
		}
	}
	return Codec{}, false
}

func init() {
	RegisterFormat(Codec{Name: "botd", Doc: "botd's own mission JSON",
		Export: func(d *Document, _ ExportOptions) ([]byte, error) { return d.JSON() }})
}
