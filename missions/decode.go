package missions

// Decode reads a mission document, detecting its format from the content
// through the registered formats (RegisterFormat: each format's Detect,
// in the order they were registered; a program links the format
// packages through package formats, which lists them and what each
// claims). A document no format claims is a botd mission: JSON when it
// starts with '{' or '[', YAML otherwise.
//
// It reports every problem it finds as bt.Problems located by JSON
// pointers into the botd document (for imports, into the document the
// import produces, or into the imported file where nothing was produced).
// A document is returned only when there are none.
func Decode(data []byte) (*Document, error) {
	return DecodeWithLimits(data, Limits{})
}

// DecodeWithLimits is Decode under limits (zero fields: the defaults).
func DecodeWithLimits(data []byte, lim Limits) (*Document, error) {
	d, ps := decode(data, lim)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// decode returns the document it could build (nil when the input could
// not be read at all) and every problem found.
func decode(data []byte, lim Limits) (*Document, *problems) {
	return decodeFile(data, "", nil, lim, ImportDefaults{})
}

// decodeFile decodes the contents of a file (file "" for bytes from
// elsewhere); lib holds the trees a library provides, def the defaults
// of imported formats.
func decodeFile(data []byte, file string, lib *Library, lim Limits, def ImportDefaults) (*Document, *problems) {
	src := NewSource(data, file, lim)
	src.Library = lib
	src.Defaults = def
	ps := src.ps
	if len(data) > ps.lim.DocumentBytes {
		ps.add("", CodeTooLarge, "the document is %d bytes, above the limit of %d", len(data), ps.lim.DocumentBytes)
		return nil, ps
	}
	if len(src.Body) == 0 {
		ps.add("", CodeInvalidSyntax, "empty document")
		return nil, ps
	}
	if f, ok := importFormat(src); ok {
		return f.Import(src), ps
	}
	if c := src.Body[0]; c == '{' || c == '[' {
		if v := src.JSON(); src.jsonOK {
			return decodeBotd(v, ps), ps
		}
		return nil, ps
	}
	v, ok := parseYAML(src.Data, ps)
	if !ok {
		return nil, ps
	}
	return decodeBotd(v, ps), ps
}
