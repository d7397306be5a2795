package btcpp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// btcppDeclared is one entry of a BT.CPP file's <TreeNodesModel> as
// written: its kind (Action, Condition, Decorator, Control, SubTree),
// its ID and its ports with their direction, type, default and
// description. Export writes the entries of an imported file back
// as they were, so a Condition stays a Condition, an output port an
// output, and a port keeps its C++ type: botd -> Groot2 -> botd loses
// nothing of them.
type btcppDeclared struct {
	kind, id string
	ports    []btcppDeclaredPort
}

type btcppDeclaredPort struct {
	dir, name, typ, def, desc string
	hasDef                    bool
	descText                  bool // the description is the element's text (BT.CPP 4), not an attribute
}

// declaredModel reads one <TreeNodesModel> entry.
func declaredModel(m *xmlElem) btcppDeclared {
	d := btcppDeclared{kind: m.name, id: m.attr("ID")}
	for _, p := range m.kids {
		switch p.name {
		case "input_port", "output_port", "inout_port":
			port := btcppDeclaredPort{dir: p.name, name: p.attr("name"), typ: p.attr("type"), desc: p.attr("description")}
			if text := strings.TrimSpace(p.text); text != "" {
				port.desc, port.descText = text, true
			}
			for _, a := range p.attrs {
				if a.Name.Local == "default" && a.Name.Space == "" {
					port.def, port.hasDef = a.Value, true
				}
			}
			d.ports = append(d.ports, port)
		}
	}
	return d
}

// declared returns the imported file's declaration of a node type or
// SubTree (kind "SubTree"), if it has one.
func (s *btcppSource) declared(id string, subtree bool) (btcppDeclared, bool) {
	if s == nil {
		return btcppDeclared{}, false
	}
	for _, m := range s.models {
		if m.id == id && (m.kind == "SubTree") == subtree {
			return m, true
		}
	}
	return btcppDeclared{}, false
}

// write writes the entry as it was declared.
func (m btcppDeclared) write(b *bytes.Buffer, indent string) {
	if len(m.ports) == 0 {
		fmt.Fprintf(b, "%s<%s ID=%s/>\n", indent, m.kind, attr(m.id))
		return
	}
	fmt.Fprintf(b, "%s<%s ID=%s>\n", indent, m.kind, attr(m.id))
	for _, p := range m.ports {
		fmt.Fprintf(b, "%s  <%s name=%s", indent, p.dir, attr(p.name))
		if p.typ != "" {
			fmt.Fprintf(b, " type=%s", attr(p.typ))
		}
		if p.hasDef {
			fmt.Fprintf(b, " default=%s", attr(p.def))
		}
		switch {
		case p.descText:
			b.WriteString(">")
			xml.EscapeText(b, []byte(p.desc))
			fmt.Fprintf(b, "</%s>\n", p.dir)
			continue
		case p.desc != "":
			fmt.Fprintf(b, " description=%s", attr(p.desc))
		}
		b.WriteString("/>\n")
	}
	fmt.Fprintf(b, "%s</%s>\n", indent, m.kind)
}

// modelKinds are the <TreeNodesModel> elements that declare a node type.
var modelKinds = map[string]bool{"Action": true, "Condition": true, "Decorator": true, "Control": true}

// isModelKind reports whether an element declares a node type.
func isModelKind(name string) bool { return modelKinds[strings.TrimSpace(name)] }
