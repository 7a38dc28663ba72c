//go:build !unix

package safefile

import "io/fs"

// owner: this system gives no owner in a file's status.
func owner(fs.FileInfo) (int, bool) { return 0, false }

// PrivateGroup: no group here.
func PrivateGroup(fs.FileInfo) bool { return false }
