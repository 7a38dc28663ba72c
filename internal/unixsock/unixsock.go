// Package unixsock holds what luahook serve's Unix socket and its clients
// share: the check that the process at the other end of a connection is
// the caller's own user (or root), and the socket's folder rules.
//
// It imports of luahook's only the leaves internal/safefile (the folder's
// rules, shared by every file luahook writes) and internal/regfile, both
// on the standard library alone, so that the one-shot client
// (cmd/luahook-fire) links little more than the standard library.
package unixsock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
)

// ErrNoPeerCredentials is returned where the system gives no way to learn
// a Unix socket peer's user.
var ErrNoPeerCredentials = errors.New("this system does not tell a Unix socket peer's user")

// CheckPeer returns nil when the process at the other end of c runs as the
// caller's effective user or as root. A socket in a folder that another
// user could write, or a listener that another user started before ours,
// fails here: luahook never takes a decision from a process that is not
// the operator's own.
func CheckPeer(c net.Conn) error {
	return checkPeerUID(c, os.Geteuid())
}

func checkPeerUID(c net.Conn, want int) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection (%T)", c)
	}
	uid, err := peerUID(uc)
	if err != nil {
		return err
	}
	if uid != want && uid != 0 {
		return fmt.Errorf("the socket's other end runs as uid %d, not as this user (uid %d) or root", uid, want)
	}
	return nil
}

// Dial connects to the Unix socket at path and returns the connection only
// when CheckPeer accepts the process at its other end: what every client of
// luahook serve's socket (luahook fire --socket, luahook-fire) dials with.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := CheckPeer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
