//go:build linux

package server

import (
	"net"
	"os"
	"syscall"
)

// maxBacklog bounds the connections taken from a listener's backlog; the
// system's own bound (net.core.somaxconn) is 4096 by default.
const maxBacklog = 65536

// acceptBacklog accepts, without waiting, every connection the system has
// completed on ln, then closes it (closeLn) at once: between the last
// accept that found none and the close, no goroutine is parked or woken.
func acceptBacklog(ln net.Listener, closeLn func() error) []net.Conn {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		closeLn()
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		closeLn()
		return nil
	}
	var fds []int
	rc.Read(func(fd uintptr) bool {
		for len(fds) < maxBacklog {
			nfd, _, err := syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			if err == syscall.EINTR || err == syscall.ECONNABORTED {
				continue
			}
			if err != nil {
				break
			}
			fds = append(fds, nfd)
		}
		return true // done: never wait for readability
	})
	// Not from inside Read: a close waits for the Read to end.
	closeLn()
	conns := make([]net.Conn, 0, len(fds))
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "")
		c, err := net.FileConn(f)
		f.Close()
		if err == nil {
			conns = append(conns, c)
		}
	}
	return conns
}
