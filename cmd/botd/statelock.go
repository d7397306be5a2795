package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockFile is the state directory's lock: one daemon per journal and
// event outbox. Two daemons sharing them (two robots with the same id,
// or the same daemon started twice) would interleave journal records and
// event numbers; the second one refuses to start instead.
const lockFile = "botd.lock"

// errLocked is returned when another daemon holds the state directory.
var errLocked = errors.New("the state directory is in use by another botd")

// stateLock is held for the daemon's lifetime; the operating system
// releases it when the process ends, however it ends, so a crash leaves
// no stale lock.
type stateLock struct{ f *os.File }

// lockStateDir takes dir's lock, or says who holds it.
func lockStateDir(dir, robot string, now time.Time) (*stateLock, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state directory lock: %w", err)
	}
	if err := tryLock(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := strings.Join(strings.Fields(string(holder)), ", ")
		if who == "" {
			who = "no details"
		}
		return nil, fmt.Errorf("%w: %s is locked (%s; %s). Two daemons must not share a journal and an event outbox: "+
			"stop the other one, or give this one a state directory of its own (-state-dir, state_dir or $BOTD_STATE_DIR)",
			errLocked, dir, who, err)
	}
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid=%d robot=%s started=%s\n", os.Getpid(), robot, now.UTC().Format(time.RFC3339))
		_ = f.Sync()
	}
	return &stateLock{f: f}, nil
}

// Close releases the lock.
func (l *stateLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
