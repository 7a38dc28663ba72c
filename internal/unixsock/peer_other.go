//go:build !linux

package unixsock

import "net"

func peerUID(*net.UnixConn) (int, error) { return 0, ErrNoPeerCredentials }
