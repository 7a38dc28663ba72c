//go:build unix

package engine

import (
	"io/fs"
	"os"
	"syscall"
)

func processUID() int { return os.Geteuid() }

// fileOwner returns the uid that owns the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
