//go:build !unix

package transports

import "os"

// signalled reports a process that ended without an exit code.
func signalled(ps *os.ProcessState) (string, bool) {
	if ps.ExitCode() < 0 {
		return "killed", true
	}
	return "", false
}
