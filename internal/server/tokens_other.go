//go:build !unix

package server

import "io/fs"

// noFollow: this system's open has no flag to refuse a symbolic link; the
// check before the open stands alone.
const noFollow = 0

// permBits: this system's permission bits do not say who may read a
// file (access control lists do).
const permBits = false

// fileOwner: this system does not say who owns a file in its status.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
