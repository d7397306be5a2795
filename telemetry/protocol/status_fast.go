package protocol

import (
	"strconv"
	"unicode/utf8"
)

// decodeStatusFast decodes a status message in the compact form the daemon
// writes (json.Marshal: no spaces, no escapes, known members once each)
// without reflection: a dashboard following a thousand robots decodes
// tens of thousands of these a second. Anything else, including every
// malformed input, returns ok false, and encoding/json decides; for what
// it accepts the result is the same as encoding/json's
// (FuzzDecodeStatus checks that).
func decodeStatusFast(b []byte) (m StatusMsg, ok bool) {
	s := statusScanner{b: b}
	if !s.byte('{') {
		return m, false
	}
	var seen uint16
	for first := true; ; first = false {
		if s.peek() == '}' && first {
			s.i++
			break
		}
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return m, false
		}
		bit, ok := statusKeys[key]
		if !ok || seen&bit != 0 {
			return m, false // unknown or repeated: let encoding/json decide
		}
		seen |= bit
		switch key {
		case "robot":
			m.Robot, ok = s.str()
		case "ts":
			m.TS, ok = s.str()
		case "mission":
			m.Mission, ok = s.str()
		case "tick_ts":
			m.TickTS, ok = s.str()
		case "keyframe":
			m.Keyframe, ok = s.str()
		case "seq":
			m.Seq, ok = s.uint()
		case "boot":
			m.Boot, ok = s.uint()
		case "tick":
			m.Tick, ok = s.uint()
		case "changes":
			m.Changes, ok = s.changes()
		}
		if !ok {
			return StatusMsg{}, false
		}
		if s.peek() == ',' {
			s.i++
			continue
		}
		if !s.byte('}') {
			return StatusMsg{}, false
		}
		break
	}
	return m, s.i == len(b)
}

var statusKeys = map[string]uint16{"robot": 1, "seq": 2, "ts": 4, "boot": 8, "mission": 16, "tick": 32, "tick_ts": 64, "changes": 128, "keyframe": 256}

type statusScanner struct {
	b []byte
	i int
}

func (s *statusScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *statusScanner) byte(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// str reads a string without escapes or control characters.
func (s *statusScanner) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return "", false
			}
			return string(v), true
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// digits reads an optional minus and digits (no leading zero).
func (s *statusScanner) digits(neg bool) ([]byte, bool) {
	start := s.i
	if neg && s.peek() == '-' {
		s.i++
	}
	d := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == d || (s.b[d] == '0' && s.i-d > 1) {
		return nil, false
	}
	if c := s.peek(); c == '.' || c == 'e' || c == 'E' {
		return nil, false // a fraction or exponent: encoding/json decides
	}
	return s.b[start:s.i], true
}

func (s *statusScanner) uint() (uint64, bool) {
	d, ok := s.digits(false)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(string(d), 10, 64)
	return v, err == nil
}

// changes reads [[index,"S"],...].
func (s *statusScanner) changes() ([]NodeStatus, bool) {
	if s.peek() == 'n' { // null
		if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
			s.i += 4
			return nil, true
		}
		return nil, false
	}
	if !s.byte('[') {
		return nil, false
	}
	out := make([]NodeStatus, 0, 16)
	if s.byte(']') {
		return out, true
	}
	for {
		if !s.byte('[') {
			return nil, false
		}
		d, ok := s.digits(true)
		if !ok {
			return nil, false
		}
		n, err := strconv.ParseInt(string(d), 10, 32)
		if err != nil || !s.byte(',') || !s.byte('"') {
			return nil, false
		}
		st := s.peek()
		if !ValidStatus(st) {
			return nil, false
		}
		s.i++
		if !s.byte('"') || !s.byte(']') {
			return nil, false
		}
		out = append(out, NodeStatus{Node: int32(n), Status: st})
		if s.byte(',') {
			continue
		}
		if s.byte(']') {
			return out, true
		}
		return nil, false
	}
}
