package protocol

import (
	"fmt"
	"unicode/utf8"
)

// Bounds on what the robot publishes, so that no message comes near a
// broker's packet limit (a broker closes the connection of a client that
// sends a larger packet, and the client's resend after the reconnect
// closes it again).
const (
	// MaxReplyProblems is how many problems a reply lists; ReplyError.More
	// counts the rest.
	MaxReplyProblems = 20
	// MaxReplyMessage bounds a reply's message and each problem's message,
	// in bytes.
	MaxReplyMessage = 4 << 10
	// MaxEventMessage bounds an event's message (a Log node's line), in
	// bytes.
	MaxEventMessage = 4 << 10
	// MaxValueBytes bounds one blackboard value as published: a longer
	// string is cut, and any other value whose JSON is longer is replaced
	// by the cut JSON text.
	MaxValueBytes = 4 << 10
	// DefaultMaxPublish is the largest message the robot publishes unless
	// configured otherwise: a quarter of the embedded broker's 2 MiB
	// packet limit.
	DefaultMaxPublish = 512 << 10
)

// Truncate cuts s to at most max bytes, on a UTF-8 boundary, and marks
// the cut with how many bytes were left off: "...[truncated: 1234 more
// bytes]". A string within max is returned as it is.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	marker := func(n int) string { return fmt.Sprintf("…[truncated: %d more bytes]", n) }
	cut := max - len(marker(len(s)))
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker(len(s)-cut)
}

// Bound keeps a reply error small: the first MaxReplyProblems problems
// (More counts the others, added to any count already there) and
// messages of at most MaxReplyMessage bytes.
func (e *ReplyError) Bound() {
	if e == nil {
		return
	}
	e.Message = Truncate(e.Message, MaxReplyMessage)
	if n := len(e.Problems); n > MaxReplyProblems {
		e.More += n - MaxReplyProblems
		e.Problems = e.Problems[:MaxReplyProblems:MaxReplyProblems]
	}
	for i := range e.Problems {
		p := &e.Problems[i]
		if len(p.Message) > MaxReplyMessage || len(p.Path) > MaxReplyMessage {
			p.Message = Truncate(p.Message, MaxReplyMessage)
			p.Path = Truncate(p.Path, MaxReplyMessage)
		}
	}
}
