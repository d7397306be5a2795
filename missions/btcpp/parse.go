package btcpp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/botd-project/botd/missions"
)

// xmlElem is an element of a parsed XML document. Text, comments and
// processing instructions are dropped: BehaviorTree.CPP puts everything in
// elements and attributes.
type xmlElem struct {
	name  string
	attrs []xml.Attr
	kids  []*xmlElem
	line  int
	text  string // of a <TreeNodesModel> port (its description)
}

// attr returns an attribute's value, or "".
func (e *xmlElem) attr(name string) string {
	for _, a := range e.attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// parseXML reads the document's root element.
func parseXML(data []byte, ps *missions.Problems) (*xmlElem, bool) {
	dec := xml.NewDecoder(bytes.NewReader(escapeAttrValues(data)))
	var root *xmlElem
	var stack []*xmlElem
	count := 0
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			ps.Add("", missions.CodeInvalidSyntax, "invalid XML: %s", xmlError(err))
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= ps.Limits().Depth {
				ps.Add("", missions.CodeTooLarge, "line %d: nesting deeper than %d levels", line, ps.Limits().Depth)
				return nil, false
			}
			if count++; count > ps.Limits().Values {
				ps.Add("", missions.CodeTooLarge, "line %d: more than %d elements", line, ps.Limits().Values)
				return nil, false
			}
			for _, a := range t.Attr {
				if ps.LongString("", a.Value) {
					return nil, false
				}
			}
			e := &xmlElem{name: t.Name.Local, attrs: t.Attr, line: line}
			switch {
			case len(stack) > 0:
				p := stack[len(stack)-1]
				p.kids = append(p.kids, e)
			case root != nil:
				ps.Add("", missions.CodeInvalidSyntax, "invalid XML: line %d: a second root element <%s>", line, e.name)
				return nil, false
			default:
				root = e
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			// A <TreeNodesModel> port's description is its text; no other
			// element's text means anything.
			if len(stack) > 0 {
				if e := stack[len(stack)-1]; strings.HasSuffix(e.name, "_port") && len(e.text)+len(t) <= ps.Limits().StringBytes {
					e.text += string(t)
				}
			}
		}
	}
	if root == nil {
		ps.Add("", missions.CodeInvalidSyntax, "invalid XML: no root element")
		return nil, false
	}
	return root, true
}

func xmlError(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return "line " + strconv.Itoa(se.Line) + ": " + se.Msg
	}
	return err.Error()
}
