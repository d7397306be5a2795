package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// events --follow says what history the robot keeps before printing it,
// and that it follows the new events after it: on one terminal, the note,
// the kept events, then "following".
func TestEventsHistoryNoteFirst(t *testing.T) {
	d := startBotd(t)
	waitOnline(t, d, "rover-1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &syncBuffer{} // stdout and stderr interleaved, as on a terminal
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"events", "rover-1", "--follow", "--broker", d.url, "--timeout", "15s"}, strings.NewReader(""), term, term)
	}()
	waitFor(t, 15*time.Second, "following", func() bool { return strings.Contains(term.String(), "following the events") }, d)
	cancel()
	<-done
	out := term.String()
	note, started, follow := strings.Index(out, "rover-1 keeps "), strings.Index(out, "daemon.started"), strings.Index(out, "following the events")
	if note < 0 || started < 0 || !(note < started && started < follow) {
		t.Errorf("want the note, the kept events, then following:\n%s", out)
	}
	if strings.Contains(out, "come first") {
		t.Errorf("a note after the events says they come first:\n%s", out)
	}
}
