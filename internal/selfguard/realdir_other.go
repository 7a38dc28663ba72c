//go:build !linux

package selfguard

import (
	"os"
	"syscall"
)

// realDir is Linux's shortcut; elsewhere filepath.EvalSymlinks answers.
func realDir(string) (string, bool) { return "", false }

// openDir opens folder dir to read its names; a path that is no folder (a
// named pipe, whose open would wait for a writer) is refused with ENOTDIR
// before it is opened.
func openDir(dir string) (*os.File, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, syscall.ENOTDIR
	}
	return os.Open(dir)
}
