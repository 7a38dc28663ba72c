package unixsock

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/luahook/luahook/internal/regfile"
	"github.com/luahook/luahook/internal/safefile"
)

// Listen listens on a Unix socket at path for luahook serve. The socket's
// folder is made (mode 0700) when missing and opened as internal/safefile
// opens the folders luahook writes in: it must be a folder (not a link) of
// the caller's own, or root's, that neither group nor others can write, so
// that no one else can put their own socket in its place; the socket is
// made mode 0600. A socket already at path is taken over when nothing
// answers on it (left by a process that died) and refused when something
// does; anything else at path (a link, a file, a named pipe) is refused,
// naming it. Closing the listener removes the socket.
func Listen(path string) (net.Listener, error) {
	if path == "" {
		return nil, errors.New("no socket path")
	}
	path = filepath.Clean(path)
	dir, err := safefile.OpenDir(safefile.Scope{Dir: filepath.Dir(path), What: "the socket's folder"}, "", 0o700)
	if err != nil {
		return nil, fmt.Errorf("socket folder: %w", err)
	}
	defer dir.Close()
	name := filepath.Base(path)
	if fi, err := dir.Lstat(name); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, &safefile.Error{Path: path, Problem: "not a socket: it is " + regfile.Kind(fi.Mode())}
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s: another process answers on this socket (a luahook serve already running?)", path)
		}
		// A stale socket, left by a process that died: removed by its
		// name in the folder checked, never through a link.
		if err := dir.Remove(name); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
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
