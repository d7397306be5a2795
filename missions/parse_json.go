package missions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// parseJSON reads one JSON value into the generic tree. Syntax errors are
// reported with their line, column and byte offset; duplicate keys and
// excessive nesting are reported by path. It returns ok false when the
// document could not be read at all.
func parseJSON(data []byte, ps *problems) (any, bool) {
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), ps: ps}
	p.dec.UseNumber()
	v, err := p.value("", 0)
	if err == nil {
		if _, err = p.dec.Token(); err == nil {
			err = fmt.Errorf("data after the end of the document at offset %d", p.dec.InputOffset())
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		p.syntax(err)
		return nil, false
	}
	return v, true
}

type jsonParser struct {
	data  []byte
	dec   *json.Decoder
	ps    *problems
	count int // values so far
}

// errTooDeep stops parsing once the nesting limit is reported.
var errTooDeep = errors.New("too deep")

func (p *jsonParser) value(path string, depth int) (any, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	if p.count++; p.count > p.ps.lim.Values {
		p.ps.add(path, CodeTooLarge, "the document holds more than %d values", p.ps.lim.Values)
		return nil, errTooDeep
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= p.ps.lim.Depth {
			p.ps.add(path, CodeTooLarge, "nesting deeper than %d levels", p.ps.lim.Depth)
			return nil, errTooDeep
		}
		if t == '[' {
			return p.array(path, depth)
		}
		return p.object(path, depth)
	case json.Number:
		return number(t), nil
	case string:
		if p.ps.longString(path, t) {
			return "", nil
		}
	}
	return tok, nil // string, bool or nil
}

func (p *jsonParser) array(path string, depth int) (any, error) {
	out := []any{}
	for p.dec.More() {
		v, err := p.value(ptr(path, len(out)), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	_, err := p.dec.Token() // ]
	return out, err
}

func (p *jsonParser) object(path string, depth int) (any, error) {
	o := newObject()
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, err
		}
		k := tok.(string) // the decoder only yields string keys
		v, err := p.value(ptr(path, k), depth+1)
		if err != nil {
			return nil, err
		}
		if !o.set(k, v) {
			p.ps.invalid(ptr(path, k), "duplicate key %q", k)
		}
	}
	_, err := p.dec.Token() // }
	return o, err
}

// syntax reports a decoder error as one problem at the document root.
func (p *jsonParser) syntax(err error) {
	if errors.Is(err, errTooDeep) {
		return
	}
	off := p.dec.InputOffset()
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		off = int64(len(p.data))
		err = errors.New("unexpected end of input")
	}
	line, col := lineCol(p.data, off)
	p.ps.add("", CodeInvalidSyntax, "invalid JSON at line %d, column %d (offset %d): %v", line, col, off, err)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
