package unixsock

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Listen listens on a Unix socket at path for luahook serve. The socket's
// folder is made (mode 0700) when missing and must then be a folder (not
// a link) of the caller's own that neither group nor others can write, so
// that no one else can put their own socket in its place; the socket is
// made mode 0600. A socket already at path is taken over when nothing
// answers on it (left by a process that died) and refused when something
// does; anything else at path is refused. Closing the listener removes
// the socket.
func Listen(path string) (net.Listener, error) {
	if path == "" {
		return nil, errors.New("no socket path")
	}
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if err := closedFolder(fi); err != nil {
		return nil, fmt.Errorf("socket folder %s: %w", dir, err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: another process answers on this socket (a luahook serve already running?)", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// closedFolder checks that fi (from Lstat) is a folder the caller owns (or
// root does) that neither group nor others can write.
func closedFolder(fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("not a folder (%s)", fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("mode %04o lets others write it (chmod go-w)", m)
	}
	return nil
}
