//go:build unix

package server

import (
	"io/fs"
	"syscall"
)

// noFollow makes the open of a token file fail on a symbolic link, so that
// a link put in the file's place after its check is not followed.
const noFollow = syscall.O_NOFOLLOW

// permBits: a file's permission bits say who may read it.
const permBits = true

// fileOwner returns the uid owning the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
