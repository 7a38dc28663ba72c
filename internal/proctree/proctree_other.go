//go:build !unix

package proctree

import (
	"os"
	"os/exec"
)

// Isolate is a no-op where process groups do not exist.
func Isolate(*exec.Cmd) {}

// KillTree kills the direct child only; process groups are a Unix feature.
func KillTree(p *os.Process) error { return p.Kill() }
