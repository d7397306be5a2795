package telemetry

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Commands are UTF-8 JSON text without a byte-order mark (RFC 8259).
// Some tools send a UTF-8 byte-order mark first, or UTF-16 (Windows
// PowerShell, some editors): an e-stop that comes so is obeyed all the
// same, as a broken one is; any other command is refused (INVALID_JSON,
// under its id when it can be read), since a signed command is checked on
// its exact bytes.

// Encodings utf8Text recognises besides plain UTF-8.
const (
	encUTF8BOM = "UTF-8 with a byte-order mark"
	encUTF16LE = "UTF-16LE"
	encUTF16BE = "UTF-16BE"
)

var bomUTF8 = []byte{0xEF, 0xBB, 0xBF}

// utf8Text returns b as UTF-8 text and the encoding it came in ("" for
// UTF-8 without a mark, returned as it is). UTF-16 is recognised by its
// byte-order mark, or without one by a zero byte among the first two: JSON
// text starts with an ASCII character (whitespace or '{'), which UTF-16
// writes as a zero byte and the character. Anything else is returned as
// it is (then it is not JSON, and the parser says so).
func utf8Text(b []byte) ([]byte, string) {
	switch {
	case bytes.HasPrefix(b, bomUTF8):
		return b[len(bomUTF8):], encUTF8BOM
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return decodeUTF16(b[2:], false), encUTF16LE
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return decodeUTF16(b[2:], true), encUTF16BE
	case len(b) >= 2 && b[0] != 0 && b[1] == 0 && b[0] < utf8.RuneSelf:
		return decodeUTF16(b, false), encUTF16LE
	case len(b) >= 2 && b[0] == 0 && b[1] != 0 && b[1] < utf8.RuneSelf:
		return decodeUTF16(b, true), encUTF16BE
	}
	return b, ""
}

// decodeUTF16 decodes UTF-16 into UTF-8 (a trailing odd byte is dropped;
// unpaired surrogates become U+FFFD).
func decodeUTF16(b []byte, bigEndian bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	out := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out
}
