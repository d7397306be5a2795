package main

import (
	"os"
	"os/exec"
	"strings"
)

// selfCommand runs this test binary again, as a child daemon. Under
// emulation without binfmt_misc (deploy/arm-test.sh runs the ARM test
// binaries under qemu-user in a container), exec of the binary itself
// fails with "exec format error": BOTD_TEST_EXEC names the emulator to
// run it with, as go test's -exec does for the parent.
func selfCommand(exe string, args ...string) *exec.Cmd {
	if w := strings.Fields(os.Getenv("BOTD_TEST_EXEC")); len(w) > 0 {
		return exec.Command(w[0], append(append(w[1:], exe), args...)...)
	}
	return exec.Command(exe, args...)
}
