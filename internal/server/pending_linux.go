//go:build linux

package server

import (
	"net"
	"syscall"
	"unsafe"
)

// pending reports whether bytes wait unread in c's socket (FIONREAD), or
// whether it cannot tell: a request on its way must not be cut.
func pending(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	n, errno := 0, syscall.Errno(0)
	if err := rc.Control(func(fd uintptr) {
		var v int32
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&v)))
		n = int(v)
	}); err != nil || errno != 0 {
		return true
	}
	return n > 0
}
