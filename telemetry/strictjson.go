package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/botd-project/botd/telemetry/protocol"
)

// maxCommandDepth bounds the nesting of a command. A mission document may
// nest 256 levels (the missions package reports deeper ones with their
// path); the command around it adds one.
const maxCommandDepth = 260

// jsonProblem is what is wrong with a command's JSON, as a reply error.
type jsonProblem struct{ code, path, msg string }

// parseStrict reads b as one JSON object. Unlike encoding/json, which
// keeps the last of two members with the same name without a word, it
// refuses a duplicate key anywhere in the command (VALIDATION_FAILED at
// the duplicate's path), and nesting deeper than maxDepth (TOO_LARGE).
// Values are what a Decoder with UseNumber yields.
func parseStrict(b []byte, maxDepth int) (map[string]any, *jsonProblem) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxProblem(err)
	}
	if tok != json.Delim('{') {
		return nil, &jsonProblem{code: protocol.ErrInvalidJSON, msg: "a command is a JSON object"}
	}
	p := strictParser{dec: dec, maxDepth: maxDepth}
	m, prob := p.object("", 1)
	if prob != nil {
		return nil, prob
	}
	switch _, err := dec.Token(); {
	case errors.Is(err, io.EOF):
		return m, nil
	case err != nil:
		return nil, syntaxProblem(err)
	}
	return nil, &jsonProblem{code: protocol.ErrInvalidJSON, msg: "data after the command object"}
}

func syntaxProblem(err error) *jsonProblem {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &jsonProblem{code: protocol.ErrInvalidJSON, msg: "unexpected end of JSON input"}
	}
	return &jsonProblem{code: protocol.ErrInvalidJSON, msg: err.Error()}
}

type strictParser struct {
	dec      *json.Decoder
	maxDepth int
}

// object reads the members of an object whose '{' was read.
func (p *strictParser) object(path string, depth int) (map[string]any, *jsonProblem) {
	m := map[string]any{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, syntaxProblem(err)
		}
		k, _ := tok.(string) // a Decoder yields only string keys
		at := path + "/" + pointerEscape(k)
		if _, dup := m[k]; dup {
			return nil, &jsonProblem{code: protocol.ErrValidation, path: at, msg: fmt.Sprintf("duplicate key %q", k)}
		}
		v, prob := p.value(at, depth)
		if prob != nil {
			return nil, prob
		}
		m[k] = v
	}
	if _, err := p.dec.Token(); err != nil { // '}'
		return nil, syntaxProblem(err)
	}
	return m, nil
}

func (p *strictParser) array(path string, depth int) ([]any, *jsonProblem) {
	out := []any{}
	for p.dec.More() {
		v, prob := p.value(fmt.Sprintf("%s/%d", path, len(out)), depth)
		if prob != nil {
			return nil, prob
		}
		out = append(out, v)
	}
	if _, err := p.dec.Token(); err != nil { // ']'
		return nil, syntaxProblem(err)
	}
	return out, nil
}

// value reads one value inside a container at depth.
func (p *strictParser) value(path string, depth int) (any, *jsonProblem) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, syntaxProblem(err)
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= p.maxDepth {
		return nil, &jsonProblem{code: protocol.ErrTooLarge, path: path, msg: fmt.Sprintf("nesting deeper than %d levels", p.maxDepth)}
	}
	if d == '[' {
		return p.array(path, depth+1)
	}
	return p.object(path, depth+1)
}

// pointerEscape escapes a JSON pointer token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// topLevel is what the MQTT callback needs to know of a command without
// parsing all of it: whether it is an e-stop, and its id when usable.
type topLevel struct {
	estop bool   // a top-level member "op" (in any letter case) is "estop"
	id    string // "" unless usable
	// idProblem says why there is no usable id ("" when there is one).
	idProblem string
}

// scanTop reads the top-level members of a command, leniently: it stops at
// the first syntax error and keeps what it found before it, so that a
// truncated or otherwise broken e-stop is still recognised. A duplicate
// "op" counts as an e-stop if any of its values is "estop" (an e-stop is
// obeyed whatever else is wrong with it); a duplicate "id" is not usable.
func scanTop(b []byte) topLevel {
	t := topLevel{idProblem: "missing id"}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.idProblem = "not a JSON object"
		return t
	}
	ids := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := k.(string)
		v, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := v.(json.Delim); ok {
			if key == "id" {
				ids++
				t.id, t.idProblem = "", "id is not a string"
			}
			if skipValue(dec, d) != nil {
				break
			}
			continue
		}
		switch {
		case key == "id":
			ids++
			t.id, t.idProblem = checkID(v)
		case strings.EqualFold(key, "op"):
			if s, _ := v.(string); s == protocol.OpEStop {
				t.estop = true
			}
		}
	}
	if ids > 1 {
		t.id, t.idProblem = "", "duplicate id"
	}
	return t
}

// skipValue reads the rest of the object or array opened by d.
func skipValue(dec *json.Decoder, d json.Delim) error {
	if d != '{' && d != '[' {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// checkID returns a decoded id value when it is usable as a command id: a
// non-empty JSON string of valid UTF-8, at most maxCommandID bytes. A
// decoder turns invalid UTF-8 (and a lone surrogate escape) into U+FFFD,
// so an id holding U+FFFD is refused: echoing it would not give the
// ground station back the id it sent.
func checkID(v any) (id, problem string) {
	s, ok := v.(string)
	switch {
	case !ok:
		return "", "id is not a string"
	case s == "":
		return "", "empty id"
	case len(s) > maxCommandID:
		return "", fmt.Sprintf("id longer than %d bytes", maxCommandID)
	case strings.ContainsRune(s, '\uFFFD'):
		return "", "id is not valid UTF-8 (or holds U+FFFD)"
	}
	return s, ""
}
