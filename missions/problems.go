package missions

import (
	"fmt"
	"strings"

	"github.com/botd-project/botd/bt"
)

// Problem codes used by this package in addition to bt's.
const (
	// CodeTooLarge: the document is over MaxDocumentBytes, or expands
	// (YAML aliases, nesting) beyond what a mission may hold.
	CodeTooLarge = "TOO_LARGE"
	// CodeInvalidSyntax: the bytes are not well-formed JSON, YAML or XML.
	// The protocol (PROTOCOL.md) names this code INVALID_JSON whatever the
	// format.
	CodeInvalidSyntax = "INVALID_JSON"
)

// MaxDocumentBytes is the largest mission document Decode accepts.
const MaxDocumentBytes = 1 << 20

// maxDepth bounds nesting in decoded documents, so a hostile input cannot
// exhaust the stack of the decoder or of the compiler after it.
const maxDepth = 256

// maxValues bounds the number of values a document expands to (YAML
// aliases can make a small file huge).
const maxValues = 1 << 20

// problems collects every problem found while decoding.
type problems struct{ list bt.Problems }

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
