//go:build !unix

package main

import "os"

// Without flock the lock file only records who runs; nothing is enforced.
func tryLock(*os.File) error { return nil }

func unlock(*os.File) error { return nil }
