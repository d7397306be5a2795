package missions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"go.yaml.in/yaml/v3"
)

// JSON returns the document as indented botd JSON. Decode reads it back
// into an equal document.
func (d *Document) JSON() ([]byte, error) {
	return marshalJSON(d, "  ")
}

// YAML returns the document as botd YAML. Decode reads it back into an
// equal document.
func (d *Document) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Canonical returns the document as compact JSON with every object's keys
// sorted and no insignificant space: the bytes compared to tell whether
// two revisions have the same content, and the bytes missions are signed
// over. Documents that Decode returned always have canonical bytes; a
// document built in code that holds a value JSON cannot represent (NaN,
// an infinity, a channel) gives nil.
func Canonical(d *Document) []byte {
	raw, err := marshalJSON(d, "")
	if err != nil {
		return nil
	}
	// Re-encoding the generic value sorts the keys of struct fields too.
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	out, err := marshalJSON(v, "")
	if err != nil {
		return nil
	}
	return bytes.TrimSuffix(out, []byte("\n"))
}

// Hash returns the hex SHA-256 of the canonical bytes.
func (d *Document) Hash() string {
	sum := sha256.Sum256(Canonical(d))
	return hex.EncodeToString(sum[:])
}

// marshalJSON encodes without HTML escaping, so "<" in a Check stays
// readable.
func marshalJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
