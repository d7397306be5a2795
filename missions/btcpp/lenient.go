package btcpp

import (
	"bytes"
	"regexp"
	"sync"
)

// BehaviorTree.CPP reads its XML with tinyxml2, which takes a bare '&' or
// '<' inside an attribute value as the character itself; scripts use
// both (`_skipIf="A < 2 && B"`). It also ends a comment at the first
// "-->" whatever comes before, "--" included (`<!-- <Node/--->`, a node
// commented out by hand), and it reads an XML declaration of any version
// (`<?xml version="2.0"?>`). escapeAttrValues escapes the characters,
// blanks the dashes of such comments and a version other than 1.0 before
// the strict decoder sees the document, leaving everything else (and the
// line numbers) as it was.

// xmlVersion matches the version in an XML declaration.
var xmlVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<\?xml\s[^?]*?(version\s*=\s*("[^"]*"|'[^']*'))`) })

// entityRef matches a character or entity reference at the start.
var entityRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z_][A-Za-z0-9._-]*);`)
})

// escapeAttrValues returns data with '<' and lone '&' in quoted attribute
// values escaped (data itself when there are none).
func escapeAttrValues(data []byte) []byte {
	var out []byte
	from := 0 // data[from:i] not yet copied to out
	put := func(i int, s string) {
		if out == nil {
			out = make([]byte, 0, len(data)+64)
		}
		out = append(append(out, data[from:i]...), s...)
		from = i + 1
	}
	inTag := false
	var quote byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			switch {
			case c == quote:
				quote = 0
			case c == '<':
				put(i, "&lt;")
			case c == '&' && !entityRef().Match(data[i:]):
				put(i, "&amp;")
			}
		case inTag:
			switch c {
			case '"', '\'':
				quote = c
			case '>':
				inTag = false
			}
		case c == '<':
			end := ""
			switch rest := data[i:]; {
			case bytes.HasPrefix(rest, []byte("<!--")):
				end = "-->"
			case bytes.HasPrefix(rest, []byte("<![CDATA[")):
				end = "]]>"
			case bytes.HasPrefix(rest, []byte("<?")):
				end = "?>"
			case bytes.HasPrefix(rest, []byte("<!")):
				end = ">"
			default:
				inTag = true
				continue
			}
			from := i + 1
			if end == "-->" {
				from = i + 4 // tinyxml2 looks for the end after the "<!--"
			}
			j := bytes.Index(data[from:], []byte(end))
			if j < 0 {
				i = len(data) // unterminated: the decoder reports it
				continue
			}
			if m := xmlVersion().FindSubmatchIndex(data[i : from+j]); m != nil {
				if v := string(data[i+m[4]+1 : i+m[5]-1]); v != "1.0" {
					for k := i + m[2]; k < i+m[3]; k++ {
						if data[k] != '\n' {
							put(k, " ")
						}
					}
				}
			}
			if end == "-->" {
				// The comment's text, data[from:from+j]: a dash next to
				// another, or before the closing "-->", is a space.
				for k := from; k < from+j; k++ {
					if data[k] == '-' && (k == from+j-1 || data[k+1] == '-' || k > from && data[k-1] == '-') {
						put(k, " ")
					}
				}
			}
			i = from + j + len(end) - 1
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[from:]...)
}
