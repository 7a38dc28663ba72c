//go:build unix

package filestore

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive lock (flock, the lock bbolt takes) if no one
// holds it: locked is false, with no error, when someone does.
func tryLock(f *os.File) (locked bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}
