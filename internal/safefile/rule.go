package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// CheckFile returns an *Error when fi, the status of path, is not a file
// luahook may write: anything but a regular file (a link, a named pipe, a
// device, a folder), a file of another user, or one that others, or its
// group, can write (a group that is the owner's private group aside: that
// group is the owner alone). Where the system gives no owner (Windows), the
// kind alone is checked.
func CheckFile(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	if !fi.Mode().IsRegular() {
		return kindError(path, fi.Mode(), "a regular file")
	}
	uid, ok := owner(fi)
	if !ok {
		return nil
	}
	if me := os.Geteuid(); uid != me {
		return &Error{Path: path, Problem: fmt.Sprintf("is owned by uid %d, not by this user (uid %d)", uid, me)}
	}
	return checkMode(path, fi)
}

// CheckDir returns an *Error when fi, the status of path, is not a folder
// luahook may write in: anything but a folder, a folder of another user than
// the caller or root, or one that others, or its group, can write (the
// owner's private group aside), since whoever can write a folder can swap
// the files in it.
func CheckDir(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	if !fi.IsDir() {
		return kindError(path, fi.Mode(), "a folder")
	}
	uid, ok := owner(fi)
	if !ok {
		return nil
	}
	if me := os.Geteuid(); uid != me && uid != 0 {
		return &Error{Path: path, Problem: fmt.Sprintf("is owned by uid %d, not by this user (uid %d) nor root", uid, me)}
	}
	return checkMode(path, fi)
}

// checkMode refuses a mode that lets others, or a group that is not the
// owner's private group, write.
func checkMode(path string, fi fs.FileInfo) error {
	m := fi.Mode().Perm()
	switch {
	case m&0o002 != 0:
		return &Error{Path: path, Problem: fmt.Sprintf("mode %04o lets others write it (chmod go-w %s)", m, path)}
	case m&0o020 != 0 && !PrivateGroup(fi):
		return &Error{Path: path, Problem: fmt.Sprintf("mode %04o lets its group write it (chmod go-w %s)", m, path)}
	}
	return nil
}
