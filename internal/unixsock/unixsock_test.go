package unixsock

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook/internal/otheruser"
)

// shortDir makes a folder with a short path (a Unix socket's path must stay
// under about 100 bytes, which t.TempDir's may not) and removes it after t.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// connPair returns both ends of a connection over a Unix socket of this
// process's own: the accepted one and the dialed one.
func connPair(t *testing.T) (accepted, dialed net.Conn) {
	t.Helper()
	path := filepath.Join(shortDir(t), "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	dialed, err = net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dialed.Close() })
	accepted, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accepted.Close() })
	return accepted, dialed
}

// dialEnv names the socket TestHelperDial connects to: set, the test binary
// run as another user dials it and holds the connection until its standard
// input closes.
const dialEnv = "UNIXSOCK_TEST_DIAL"

// TestHelperDial is not a test: it is the other user's process of
// TestCheckPeerRefusesAnotherUser, and does nothing unless dialEnv is set.
func TestHelperDial(t *testing.T) {
	path := os.Getenv(dialEnv)
	if path == "" {
		return
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s as uid %d: %v", path, os.Geteuid(), err)
	}
	defer c.Close()
	otheruser.Ready()
}

// otherUser is the user the other processes of these tests run as.
const otherUser = otheruser.UID

func TestCheckPeerRefusesAnotherUser(t *testing.T) {
	euid := os.Geteuid()
	if euid != 0 {
		// Not root: the peer (this process) runs as euid, and a caller
		// that wants another user must be refused.
		for _, c := range []struct {
			name string
			conn func() net.Conn
		}{
			{"accepted", func() net.Conn { a, _ := connPair(t); return a }},
			{"dialed", func() net.Conn { _, d := connPair(t); return d }},
		} {
			conn := c.conn()
			err := checkPeerUID(conn, euid+1)
			if err == nil {
				t.Fatalf("%s: checkPeerUID(peer uid %d, want %d) = nil, want a refusal", c.name, euid, euid+1)
			}
			if !strings.Contains(err.Error(), "uid "+strconv.Itoa(euid)) {
				t.Errorf("%s: refusal %q does not name the peer's uid %d", c.name, err, euid)
			}
			if err := checkPeerUID(conn, euid); err != nil {
				t.Errorf("%s: checkPeerUID(own uid) = %v, want nil", c.name, err)
			}
			if err := CheckPeer(conn); err != nil {
				t.Errorf("%s: CheckPeer(own process) = %v, want nil", c.name, err)
			}
		}
		return
	}

	// Root: a peer of root's own is always accepted, so the peer that must
	// be refused is a process of another user, this test binary run as
	// otherUser. It cannot run the binary where go test put it (a folder
	// of mode 0700) nor reach the socket in one: copy both into open
	// folders.
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	otheruser.Start(t, dir, "TestHelperDial", dialEnv+"="+path)
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(5 * time.Second))
	other, err := ln.Accept()
	if err != nil {
		t.Fatalf("no connection from the helper as uid %d: %v", otherUser, err)
	}
	defer other.Close()

	err = CheckPeer(other)
	if err == nil {
		t.Fatalf("CheckPeer(peer of uid %d) as root = nil, want a refusal", otherUser)
	}
	if !strings.Contains(err.Error(), "uid "+strconv.Itoa(otherUser)) {
		t.Errorf("refusal %q does not name the peer's uid %d", err, otherUser)
	}
	if err := checkPeerUID(other, 0); err == nil {
		t.Errorf("checkPeerUID(peer of uid %d, want 0) = nil, want a refusal", otherUser)
	}
	if err := checkPeerUID(other, otherUser); err != nil {
		t.Errorf("checkPeerUID(peer of uid %d, want %d) = %v, want nil", otherUser, otherUser, err)
	}

	// A peer of root's own (this process) is accepted, on both ends.
	a, d := connPair(t)
	if err := CheckPeer(a); err != nil {
		t.Errorf("CheckPeer(own process, accepted end) = %v, want nil", err)
	}
	if err := CheckPeer(d); err != nil {
		t.Errorf("CheckPeer(own process, dialed end) = %v, want nil", err)
	}
	// Root is accepted whoever the caller is.
	if err := checkPeerUID(a, otherUser); err != nil {
		t.Errorf("checkPeerUID(root peer, want %d) = %v, want nil", otherUser, err)
	}
}

// listenEnv names the socket TestHelperListen listens on: set, the test
// binary run as another user listens there, says "ready" and holds the
// socket until its standard input closes.
const listenEnv = "UNIXSOCK_TEST_LISTEN"

// TestHelperListen is not a test: it is the other user's server of
// TestDialRefusesAServerOfAnotherUser, and does nothing unless listenEnv
// is set.
func TestHelperListen(t *testing.T) {
	path := os.Getenv(listenEnv)
	if path == "" {
		return
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("listen %s as uid %d: %v", path, os.Geteuid(), err)
	}
	defer ln.Close()
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
			c.Close()
		}
	}()
	otheruser.Ready()
}

// Dial, what luahook fire --socket and luahook-fire connect with, gives no
// connection to a server of another user: as root, a server run as
// otherUser (root's own are accepted); as another user, the rule's other
// half: a server of the caller's own user is connected to.
func TestDialRefusesAServerOfAnotherUser(t *testing.T) {
	ctx := context.Background()
	if os.Geteuid() != 0 {
		path := filepath.Join(shortDir(t), "s")
		ln, err := Listen(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		c, err := Dial(ctx, path)
		if err != nil {
			t.Fatalf("Dial(a server of our own) = %v, want a connection", err)
		}
		c.Close()
		return
	}
	dir := shortDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	otheruser.Start(t, dir, "TestHelperListen", listenEnv+"="+path)
	// The server is there and answers a plain dial...
	if c, err := net.Dial("unix", path); err != nil {
		t.Fatalf("plain dial of the other user's server: %v", err)
	} else {
		c.Close()
	}
	// ... but Dial refuses it, naming its user.
	c, err := Dial(ctx, path)
	if err == nil {
		c.Close()
		t.Fatalf("Dial(a server of uid %d) as root gave a connection, want a refusal", otherUser)
	}
	if !strings.Contains(err.Error(), "uid "+strconv.Itoa(otherUser)) {
		t.Errorf("refusal %q does not name the server's uid %d", err, otherUser)
	}
}

func TestCheckPeerRefusesANonUnixConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	err := CheckPeer(a)
	if err == nil {
		t.Fatal("CheckPeer(net.Pipe) = nil, want an error")
	}
	if errors.Is(err, ErrNoPeerCredentials) || !strings.Contains(err.Error(), "not a Unix socket") {
		t.Errorf("CheckPeer(net.Pipe) = %v, want it refused as not a Unix socket", err)
	}
}
