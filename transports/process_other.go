//go:build !unix

package transports

import (
	"os"
	"os/exec"
)

// isolate is a no-op where process groups do not exist.
func isolate(*exec.Cmd) {}

// killTree kills the direct child only; process groups are a Unix feature.
func killTree(p *os.Process) error { return p.Kill() }

// signalled reports a process that ended without an exit code.
func signalled(ps *os.ProcessState) (string, bool) {
	if ps.ExitCode() < 0 {
		return "killed", true
	}
	return "", false
}
