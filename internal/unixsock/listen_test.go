package unixsock

import (
	"bufio"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/safefile"
)

// echo answers each line sent on ln's connections with the same line, until
// ln closes.
func echo(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if _, err := c.Write([]byte(l)); err != nil {
					return
				}
			}
		}()
	}
}

// answers fails t unless a server answers a line on the socket at path.
func answers(t *testing.T, path string) {
	t.Helper()
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatalf("write to %s: %v", path, err)
	}
	l, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || l != "ping\n" {
		t.Fatalf("answer on %s: %q, %v; want %q", path, l, err, "ping\n")
	}
}

// listen runs Listen(path), which must succeed, serves echo on it and
// closes it after t.
func listen(t *testing.T, path string) net.Listener {
	t.Helper()
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen(%s): %v", path, err)
	}
	t.Cleanup(func() { ln.Close() })
	go echo(ln)
	return ln
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s: Lstat = %v, want it absent", path, err)
	}
}

func TestListenRefusesAFolderOthersCanWrite(t *testing.T) {
	for _, perm := range []fs.FileMode{0o770, 0o707, 0o720, 0o702, 0o777} {
		t.Run(perm.String(), func(t *testing.T) {
			dir := filepath.Join(shortDir(t), "d")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, perm); err != nil { // past the umask
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s")
			if fi, err := os.Lstat(dir); err == nil && perm&0o002 == 0 && safefile.PrivateGroup(fi) {
				// The group is the user's private group: the user alone.
				listen(t, path)
				answers(t, path)
				return
			}
			ln, err := Listen(path)
			if err == nil {
				ln.Close()
				t.Fatalf("Listen in a folder of mode %v succeeded, want a refusal", perm)
			}
			if !strings.Contains(err.Error(), "chmod go-w") {
				t.Errorf("refusal %q does not say to chmod go-w", err)
			}
			absent(t, path)
			if got := mode(t, dir).Perm(); got != perm {
				t.Errorf("folder mode now %v, want it left %v", got, perm)
			}
		})
	}
	// The same folder closed to others is fine.
	dir := filepath.Join(shortDir(t), "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	listen(t, path)
	answers(t, path)
}

func TestListenRefusesAPathThatIsNotASocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s")
	const content = "not a socket\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(path)
	if err == nil {
		ln.Close()
		t.Fatal("Listen on a regular file succeeded, want a refusal")
	}
	if !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("refusal %q does not say the path is not a socket", err)
	}
	if m := mode(t, path); !m.IsRegular() {
		t.Fatalf("%s is now %v, want the regular file left", path, m)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != content {
		t.Errorf("%s now holds %q, %v; want %q left untouched", path, b, err, content)
	}

	// A symbolic link to a socket is not a socket either.
	live := filepath.Join(filepath.Dir(path), "live")
	listen(t, live)
	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(live, link); err != nil {
		t.Fatal(err)
	}
	if ln, err := Listen(link); err == nil {
		ln.Close()
		t.Fatal("Listen on a link to a socket succeeded, want a refusal")
	}
	if m := mode(t, link); m.Type() != fs.ModeSymlink {
		t.Errorf("%s is now %v, want the link left", link, m)
	}
	answers(t, live)
}

func TestListenRefusesASocketALiveServerAnswers(t *testing.T) {
	path := filepath.Join(shortDir(t), "s")
	listen(t, path)
	ln, err := Listen(path)
	if err == nil {
		ln.Close()
		t.Fatal("second Listen on a live socket succeeded, want a refusal")
	}
	if !strings.Contains(err.Error(), "answers") {
		t.Errorf("refusal %q does not say another process answers", err)
	}
	if m := mode(t, path); m.Type() != fs.ModeSocket {
		t.Fatalf("%s is now %v, want the live socket left", path, m)
	}
	answers(t, path)
}

func TestListenTakesOverAStaleSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close()
	if m := mode(t, path); m.Type() != fs.ModeSocket {
		t.Fatalf("stale socket %s is %v, want a socket left by the closed listener", path, m)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		t.Fatal("something answers on the stale socket")
	}
	listen(t, path)
	answers(t, path)
	if m := mode(t, path).Perm(); m != 0o600 {
		t.Errorf("socket mode %v, want 0600", m)
	}
}

func TestListenMakesAMissingFolderClosed(t *testing.T) {
	dir := filepath.Join(shortDir(t), "a", "b")
	path := filepath.Join(dir, "s")
	listen(t, path)
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatalf("folder not made: %v", err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder %s made %v, want a folder of mode 0700", dir, fi.Mode())
	}
	if m := mode(t, path); m.Type() != fs.ModeSocket || m.Perm() != 0o600 {
		t.Errorf("socket %s made %v, want a socket of mode 0600", path, m)
	}
	answers(t, path)
}

func TestListenRefusesAFolderThatIsALink(t *testing.T) {
	base := shortDir(t)
	target := filepath.Join(base, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(filepath.Join(link, "s"))
	if err == nil {
		ln.Close()
		t.Fatal("Listen in a folder that is a link succeeded, want a refusal")
	}
	if want := link + ": is a symbolic link (to " + target + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not say %q", err, want)
	}
	absent(t, filepath.Join(target, "s"))
}

func TestListenRefusesNoPath(t *testing.T) {
	if ln, err := Listen(""); err == nil {
		ln.Close()
		t.Fatal(`Listen("") succeeded, want an error`)
	}
}

func TestListenCloseRemovesTheSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s")
	ln := listen(t, path)
	answers(t, path)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	absent(t, path)
	// And the path can be listened on again.
	listen(t, path)
	answers(t, path)
}

// A folder of another user (but root) is refused: that user could put a
// socket of their own in its place. Only root can give a folder to another
// user; run as another user, the test holds the other half of the rule: a
// folder of the caller's own is taken.
func TestListenRefusesAFolderOfAnotherUser(t *testing.T) {
	dir := filepath.Join(shortDir(t), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	if os.Geteuid() != 0 {
		listen(t, path)
		answers(t, path)
		return
	}
	if err := os.Chown(dir, otherUser, otherUser); err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(path)
	if err == nil {
		ln.Close()
		t.Fatalf("Listen in a folder of uid %d succeeded, want a refusal", otherUser)
	}
	if !strings.Contains(err.Error(), "owned by uid "+strconv.Itoa(otherUser)) {
		t.Errorf("refusal %q does not name the folder's owner", err)
	}
	absent(t, path)
	// Given back to root, the same folder is taken.
	if err := os.Chown(dir, 0, 0); err != nil {
		t.Fatal(err)
	}
	listen(t, path)
	answers(t, path)
}
