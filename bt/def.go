package bt

import (
	"fmt"
	"strings"
)

// NodeDef is one node of a mission document, before compilation.
type NodeDef struct {
	Type     string         `json:"type" yaml:"type"`
	ID       string         `json:"id,omitempty" yaml:"id,omitempty"`
	Name     string         `json:"name,omitempty" yaml:"name,omitempty"`
	Params   map[string]any `json:"params,omitempty" yaml:"params,omitempty"`
	Children []*NodeDef     `json:"children,omitempty" yaml:"children,omitempty"`
}

// Problem is one thing wrong with a mission, located by the JSON pointer of
// the offending node or parameter.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Code is a machine-readable class (UNKNOWN_NODE_TYPE, LIMIT_EXCEEDED,
	// VALIDATION_FAILED).
	Code string `json:"code,omitempty"`
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "/" // the whole document
	}
	return path + ": " + p.Message
}

// Problems is every problem found in a mission. It is an error.
type Problems []Problem

func (ps Problems) Error() string {
	if len(ps) == 1 {
		return ps[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(ps))
	for _, p := range ps {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Err returns ps as an error, or nil when there are none.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Problem codes.
const (
	CodeValidation  = "VALIDATION_FAILED"
	CodeUnknownType = "UNKNOWN_NODE_TYPE"
	CodeLimit       = "LIMIT_EXCEEDED"
	// CodeWarning marks a Tree's warnings, never a problem.
	CodeWarning = "WARNING"
)

// pathEscape escapes a JSON pointer token (RFC 6901).
func pathEscape(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}
