package nodes

import (
	"github.com/botd-project/botd/bt"
	"math"
	"strconv"
	"strings"
)

// numFormat is a format spec of a Log message's "{key:spec}", a subset
// of Python's format mini-language that people already write:
// [0][width][.precision][f|e|g|d|%] ("{battery.percent:.0f}",
// "{x:8.3f}", "{ratio:.1%}"). A value that is not a number is written as
// it is, padded to the width.
type numFormat struct {
	verb    byte // 'f', 'e', 'g', 'd', '%', or 0: shortest, as Value.String
	prec    int  // when hasPrec; else the verb's default (6, as Python)
	hasPrec bool
	width   int
	zero    bool // pad with zeros after the sign instead of spaces
}

// splitFormat splits "key:spec" at its last colon when what follows is a
// format spec ("tree:x" stays the tree key x). A tail that starts like a
// spec but is none is reported as a warning, and the whole text is the key.
func splitFormat(b *bt.Builder, k string) (string, numFormat) {
	i := strings.LastIndexByte(k, ':')
	if i < 0 {
		return k, numFormat{}
	}
	key, spec := k[:i], k[i+1:]
	if key == "" || key == "tree" || key == "node" {
		return k, numFormat{}
	}
	if f, ok := parseNumFormat(spec); ok {
		return key, f
	}
	if spec != "" && strings.ContainsRune(".0123456789%", rune(spec[0])) {
		b.Warnf("message", "{%s}: %q is not a format ([0][width][.precision] then f, e, g, d or %%, e.g. {%s:.1f}); read as the key %q",
			k, spec, key, k)
	}
	return k, numFormat{}
}

// parseNumFormat reads [0][width][.precision][verb]; width and precision
// are at most 2 digits (a message is a line, not a page).
func parseNumFormat(s string) (numFormat, bool) {
	var f numFormat
	if s == "" {
		return f, false
	}
	if s[0] == '0' && len(s) > 1 {
		f.zero = true
		s = s[1:]
	}
	digits := func() (int, bool) {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 2 {
			return 0, n == 0
		}
		v, _ := strconv.Atoi(s[:n])
		s = s[n:]
		return v, true
	}
	var ok bool
	if f.width, ok = digits(); !ok {
		return f, false
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if s == "" || s[0] < '0' || s[0] > '9' {
			return f, false
		}
		if f.prec, ok = digits(); !ok {
			return f, false
		}
		f.hasPrec = true
	}
	switch s {
	case "":
	case "f", "e", "g", "d", "%":
		f.verb = s[0]
	default:
		return f, false
	}
	if f.verb == 'd' && f.hasPrec {
		return f, false // Python refuses a precision with d too
	}
	return f, true
}

// appendNumber appends x formatted. NaN and infinities are written as
// Value.String writes them, whatever the verb.
func (f numFormat) appendNumber(buf []byte, x float64) []byte {
	start := len(buf)
	prec := f.prec
	if !f.hasPrec {
		prec = 6
	}
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || f.verb == 0 && !f.hasPrec:
		buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
	case f.verb == 0:
		buf = strconv.AppendFloat(buf, x, 'g', prec, 64)
	case f.verb == 'd':
		buf = strconv.AppendFloat(buf, math.RoundToEven(x), 'f', 0, 64)
	case f.verb == '%':
		buf = append(strconv.AppendFloat(buf, x*100, 'f', prec, 64), '%')
	default:
		buf = strconv.AppendFloat(buf, x, f.verb, prec, 64)
	}
	return f.pad(buf, start, true)
}

// pad right-aligns buf[start:] to the width, with zeros after a sign
// when f.zero and it is a number (a text is padded with spaces).
func (f numFormat) pad(buf []byte, start int, number bool) []byte {
	n := f.width - (len(buf) - start)
	if n <= 0 {
		return buf
	}
	fill, at := byte(' '), start
	if f.zero && number && start < len(buf) && (buf[start] == '-' || buf[start] == '+' || buf[start] >= '0' && buf[start] <= '9') {
		fill = '0'
		if buf[start] == '-' || buf[start] == '+' {
			at++
		}
	}
	for range n {
		buf = append(buf, 0)
	}
	copy(buf[at+n:], buf[at:len(buf)-n])
	for i := at; i < at+n; i++ {
		buf[i] = fill
	}
	return buf
}
