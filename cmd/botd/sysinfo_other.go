//go:build !unix

package main

import (
	"io/fs"
	"time"
)

func fileOwner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

func processCPU() (time.Duration, bool) { return 0, false }
