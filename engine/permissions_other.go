//go:build !unix

package engine

import "io/fs"

// processUID reports -1: without Unix modes and owners there is nothing to
// check.
func processUID() int { return -1 }

func fileOwner(fs.FileInfo) (int, bool) { return 0, false }

func privateGroup(fs.FileInfo) bool { return false }
