//go:build unix

package transports

import (
	"fmt"
	"os"
	"syscall"
)

// signalled describes how the process ended when a signal killed it.
func signalled(ps *os.ProcessState) (string, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal()), true
}
