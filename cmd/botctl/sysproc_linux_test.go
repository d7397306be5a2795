package main

import "syscall"

// daemonSysProcAttr kills a test's botd when the test process dies, so
// that an interrupted test leaves no daemon behind.
func daemonSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
