package missions

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
)

// Problem codes used by this package in addition to bt's.
const (
	// CodeTooLarge: the document is over MaxDocumentBytes, or expands
	// (YAML aliases, nesting) beyond what a mission may hold.
	CodeTooLarge = "TOO_LARGE"
	// CodeInvalidSyntax: the bytes are not well-formed in their format.
	// The protocol (PROTOCOL.md) names this code INVALID_JSON whatever the
	// format.
	CodeInvalidSyntax = "INVALID_JSON"
)

// MaxDocumentBytes is the largest mission document Decode accepts (the
// default of Limits.DocumentBytes).
const MaxDocumentBytes = 1 << 20

// Limits bound what a mission may cost before the work is done: each is
// checked while the document is read or compiled, so a hostile input is
// refused after doing at most that much work. A zero field takes its
// default (DefaultLimits); the defaults fit a Raspberry Pi.
type Limits struct {
	// DocumentBytes is the largest document [1 MiB].
	DocumentBytes int `yaml:"document_bytes"`
	// Values bounds the values a document decodes to, counting every
	// copy a YAML alias makes [100,000].
	Values int `yaml:"values"`
	// AliasValues bounds the values reached through YAML aliases and
	// merges, so a small file cannot expand into a huge tree [10,000].
	AliasValues int `yaml:"alias_values"`
	// Depth bounds nesting in the document [256].
	Depth int `yaml:"depth"`
	// StringBytes bounds any one string (a name, an expression, a log
	// message) [16 KiB].
	StringBytes int `yaml:"string_bytes"`
	// Nodes bounds the compiled tree, sub-trees expanded [5,000].
	Nodes int `yaml:"nodes"`
}

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{DocumentBytes: MaxDocumentBytes, Values: 100_000, AliasValues: 10_000, Depth: 256, StringBytes: 16 << 10, Nodes: 5_000}
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&l.DocumentBytes, d.DocumentBytes}, {&l.Values, d.Values}, {&l.AliasValues, d.AliasValues},
		{&l.Depth, d.Depth}, {&l.StringBytes, d.StringBytes}, {&l.Nodes, d.Nodes},
	} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	return l
}

// problems collects every problem found while decoding, under the limits
// the decoding keeps to.
type problems struct {
	list bt.Problems
	lim  Limits
}

// longString reports (once per path) a string over the limit.
func (p *problems) longString(path string, s string) bool {
	if len(s) <= p.lim.StringBytes {
		return false
	}
	p.add(path, CodeTooLarge, "a string of %d bytes, above the limit of %d", len(s), p.lim.StringBytes)
	return true
}

func (p *problems) add(path, code, format string, args ...any) {
	p.list = append(p.list, bt.Problem{Path: path, Code: code, Message: fmt.Sprintf(format, args...)})
}

// invalid records a VALIDATION_FAILED problem.
func (p *problems) invalid(path, format string, args ...any) {
	p.add(path, bt.CodeValidation, format, args...)
}

func (p *problems) err() error { return p.list.Err() }

// has reports whether a problem was found at exactly path.
func (p *problems) has(path string) bool {
	for _, q := range p.list {
		if q.Path == path {
			return true
		}
	}
	return false
}

// ptr appends a JSON pointer token (RFC 6901) to a path.
func ptr(path string, token any) string {
	s := fmt.Sprint(token)
	s = strings.ReplaceAll(s, "~", "~0")
	s = strings.ReplaceAll(s, "/", "~1")
	return path + "/" + s
}

// describe names a decoded value for messages ("the number 3").
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case number:
		return "the number " + string(x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case []any:
		return "a list"
	case *object, map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// under reports whether path is p or inside it.
func under(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+"/")
}

// located matches a message that starts with its place in a file: "line
// 3: ..." or "FILE: line 3: ...".
var located = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:(.+?): )?line ([0-9]+): `) })

// ProblemText is how a problem reads to a person: its place in the file
// when the message starts with one (a format that reads lines names
// them, see Origin.Locate), else its JSON pointer, then the message.
func ProblemText(p bt.Problem) string {
	if located().MatchString(p.Message) {
		return p.Message
	}
	return p.String()
}
