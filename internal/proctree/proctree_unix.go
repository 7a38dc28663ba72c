//go:build unix

package proctree

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Isolate puts the child in a process group of its own, so that the whole
// tree it spawns can be killed at once. Call it before cmd.Start.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillTree sends SIGKILL to the process group led by p, grandchildren
// included; os.ErrProcessDone when the group is gone.
func KillTree(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
