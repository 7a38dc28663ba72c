package selfguard

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// realDir returns the real path of the folder dir the Linux way: open it
// and read the link the kernel keeps for the descriptor in /proc, three
// system calls however deep dir is (filepath.EvalSymlinks looks at each
// component). ok is false when that cannot be done (not a folder, no
// /proc, no permission): the caller falls back to EvalSymlinks.
func realDir(dir string) (string, bool) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	var buf [maxPathBytes]byte
	n, err := syscall.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf[:])
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		return "", false
	}
	real := string(buf[:n])
	if strings.HasSuffix(real, " (deleted)") {
		return "", false
	}
	return real, true
}

// openDir opens folder dir to read its names without ever waiting: a named
// pipe, a device or any other path that is no folder is refused (ENOTDIR)
// by the kernel at the open, which a pipe with no writer would otherwise
// hold.
func openDir(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}
