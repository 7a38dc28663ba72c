package unixsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	io.Copy(io.Discard, os.Stdin)
}

// otherUser is the user the peer runs as in TestCheckPeerRefusesAnotherUser
// when the test runs as root.
const otherUser = 65534

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
	exe := filepath.Join(dir, "t")
	if err := os.Link(os.Args[0], exe); err != nil {
		bin, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, bin, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(exe, 0o755); err != nil {
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

	cmd := exec.Command(exe, "-test.run=^TestHelperDial$", "-test.count=1")
	cmd.Dir = dir
	// Under the race detector a program sleeps a second as it exits
	// (atexit_sleep_ms): not here.
	cmd.Env = append(os.Environ(), dialEnv+"="+path, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUser, Gid: otherUser}}
	var childOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	hold, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		hold.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper as uid %d: %v\n%s", otherUser, err, childOut.Bytes())
		}
	}()
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(5 * time.Second))
	other, err := ln.Accept()
	if err != nil {
		hold.Close()
		cmd.Wait()
		t.Fatalf("no connection from the helper as uid %d: %v\n%s", otherUser, err, childOut.Bytes())
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
