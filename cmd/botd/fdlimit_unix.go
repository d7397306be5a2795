//go:build unix

package main

import "syscall"

// fdLimit is the process's open-file limit (0: unknown). Go raises the
// soft limit to the hard one at start.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}
