//go:build unix

package transports

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// isolate puts the child in a process group of its own, so that the whole
// tree it spawns can be killed at once.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree sends SIGKILL to the process group led by p, grandchildren included.
func killTree(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// signalled describes how the process ended when a signal killed it.
func signalled(ps *os.ProcessState) (string, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal()), true
}
