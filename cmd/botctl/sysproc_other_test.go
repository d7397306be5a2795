//go:build !linux

package main

import "syscall"

func daemonSysProcAttr() *syscall.SysProcAttr { return nil }
