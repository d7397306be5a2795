package broker

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// A client that simply goes away is not a warning; a real connection
// error stays one, and says what it is.
func TestQuietEnds(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(quietEnds{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})})
	log.Warn("", "error", errors.New("read connection: "+io.EOF.Error()))
	log.Warn("", "error", errors.New("read tcp 127.0.0.1:1883->127.0.0.1:5000: use of closed network connection"))
	if buf.Len() != 0 {
		t.Fatalf("ordinary disconnects logged at warn: %s", buf.String())
	}
	log.Warn("", "error", errors.New("tls: bad certificate"))
	if out := buf.String(); !strings.Contains(out, `level=WARN msg="client connection failed" error="tls: bad certificate"`) {
		t.Fatalf("a real error: %q", out)
	}
	buf.Reset()
	debug := slog.New(quietEnds{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})})
	debug.Warn("", "error", io.EOF)
	if out := buf.String(); !strings.Contains(out, `level=DEBUG msg="client disconnected" error=EOF`) {
		t.Fatalf("at debug: %q", out)
	}
}
