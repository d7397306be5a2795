package broker

import (
	"context"
	"log/slog"
	"strings"
)

// quietEnds is a slog handler for mochi's log: mochi reports the end of
// every client connection as a warning with no message ("read
// connection: EOF" each time a CLI exits). Ordinary ends (EOF, a closed
// or reset connection) become debug records that say what happened; other
// connection errors stay warnings, with a message.
type quietEnds struct{ slog.Handler }

var ordinaryEnds = []string{"EOF", "use of closed network connection", "connection reset by peer", "broken pipe"}

func (h quietEnds) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "" || r.Level != slog.LevelWarn {
		return h.Handler.Handle(ctx, r)
	}
	errText := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" {
			errText = a.Value.String()
			return false
		}
		return true
	})
	out := slog.NewRecord(r.Time, slog.LevelWarn, "client connection failed", r.PC)
	for _, end := range ordinaryEnds {
		if strings.Contains(errText, end) {
			out = slog.NewRecord(r.Time, slog.LevelDebug, "client disconnected", r.PC)
			break
		}
	}
	if !h.Handler.Enabled(ctx, out.Level) {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(a); return true })
	return h.Handler.Handle(ctx, out)
}

// Enabled lets debug records through to Handle, which decides; the
// wrapped handler filters again there.
func (h quietEnds) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.Handler.Enabled(ctx, l)
}

func (h quietEnds) WithAttrs(as []slog.Attr) slog.Handler { return quietEnds{h.Handler.WithAttrs(as)} }
func (h quietEnds) WithGroup(g string) slog.Handler       { return quietEnds{h.Handler.WithGroup(g)} }
