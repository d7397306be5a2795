package missions

import (
	"bytes"

	"github.com/botd-project/botd/bt"
)

// The format kit: what a format package (those package formats links)
// needs from the decoder to read a document into a botd Document with
// every problem located, under the same limits as botd's own format. A
// format registers a Codec (formats.go) and reads through its Source.

// Object is a JSON or YAML mapping as the decoder reads it: its keys in
// the order they were written. Its values are nil, bool, string, a
// number (kept as its text; Normalize makes it a float64), []any and
// *Object.
type Object = object

// Get returns the value at k.
func (o *object) Get(k string) (any, bool) { return o.get(k) }

// Str returns the string at k, or "" when absent or not a string.
func (o *object) Str(k string) string { return o.str(k) }

// Value returns the value at k (nil when absent).
func (o *object) Value(k string) any { return o.m[k] }

// Keys returns the keys in the order they were written; the caller does
// not change it.
func (o *object) Keys() []string { return o.keys }

// Len is the number of keys.
func (o *object) Len() int { return len(o.keys) }

// Problems collects every problem found while a document is read, under
// the limits the reading keeps to.
type Problems = problems

// NewProblems returns an empty collection under lim (zero fields: the
// defaults).
func NewProblems(lim Limits) *Problems { return &problems{lim: lim.withDefaults()} }

// Add records a problem at a JSON pointer.
func (p *problems) Add(path, code, format string, args ...any) { p.add(path, code, format, args...) }

// Invalid records a VALIDATION_FAILED problem.
func (p *problems) Invalid(path, format string, args ...any) { p.invalid(path, format, args...) }

// Limits are the limits the reading keeps to (defaults filled in).
func (p *problems) Limits() Limits { return p.lim }

// List is the problems found so far; the caller does not change it.
func (p *problems) List() bt.Problems { return p.list }

// Err is the problems as an error; nil when there are none.
func (p *problems) Err() error { return p.err() }

// Problems is where the source's problems are reported.
func (s *Source) Problems() *Problems { return s.ps }

// Object is the document's JSON when it is an object (see JSON); nil
// otherwise.
func (s *Source) Object() *Object { return s.jsonObject() }

// Ptr appends a JSON pointer token (RFC 6901) to a path.
func Ptr(path string, token any) string { return ptr(path, token) }

// Describe names a decoded value for messages ("the number 3").
func Describe(v any) string { return describe(v) }

// ParseJSON reads one JSON value into Objects and values, reporting
// syntax problems with their line and column; false when the document
// could not be read at all.
func ParseJSON(data []byte, ps *Problems) (any, bool) { return parseJSON(data, ps) }

// Normalize turns a decoded value into a parameter or blackboard value
// (numbers as float64, objects as maps), reporting what has no such
// value at path.
func Normalize(v any, path string, ps *Problems) any { return normalize(v, path, ps) }

// NormalizeMap is Normalize for each value of an object.
func NormalizeMap(o *Object, path string, ps *Problems) map[string]any {
	return normalizeMap(o, path, ps)
}

// MarshalJSON encodes v as JSON without HTML escaping ("<" in a Check
// stays readable), each level indented by indent.
func MarshalJSON(v any, indent string) ([]byte, error) { return marshalJSON(v, indent) }

// DefaultRegistry is the registry of the node types botd knows without
// hardware (bt/catalog's), built once.
func DefaultRegistry() *bt.Registry { return defaultRegistry() }

// NewObject returns an empty Object.
func NewObject() *Object { return newObject() }

// Set adds a key at the end; false when the key is already there.
func (o *object) Set(k string, v any) bool { return o.set(k, v) }

// DecodeAs decodes data as the contents of the file at path (the files it
// names are read relative to it); lib holds the trees a library
// provides (nil: none). DecodeFile is DecodeAs on the file's contents.
func DecodeAs(data []byte, path string, lim Limits, lib *Library) (*Document, error) {
	d, ps := decodeFile(data, path, lib, lim, ImportDefaults{})
	if err := ps.err(); err != nil {
		return nil, err
	}
	lib.use(d)
	return d, nil
}

// NewSource returns the source of data read from file ("" for bytes
// from elsewhere), under lim, for a format's Detect and Import (Decode
// makes its own).
func NewSource(data []byte, file string, lim Limits) *Source {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return &Source{Data: data, Body: bytes.TrimLeft(data, " \t\r\n"), File: file, ps: NewProblems(lim)}
}

// Append records problems found elsewhere (a format's own parser), as
// they are.
func (p *problems) Append(list ...bt.Problem) { p.list = append(p.list, list...) }

// LongString records a TOO_LARGE problem at path when s is longer than
// the limit on strings, and reports whether it did.
func (p *problems) LongString(path, s string) bool { return p.longString(path, s) }
