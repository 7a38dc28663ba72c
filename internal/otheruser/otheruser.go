// Package otheruser runs the calling test binary as another user, for the
// tests that must show a process of another user refused (the Unix socket's
// peer check). Only root can start one; the tests hold the other half of
// their rule when they run as anyone else.
package otheruser

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// UID is the other user (nobody on Debian).
const UID = 65534

// Start runs this test binary as UID with -test.run=^helper$ and env added
// to its environment, in dir (which UID can enter: Start links the binary
// there, since go test leaves it in a folder of mode 0700), and returns
// once the helper printed "ready". The helper holds its work until its
// standard input closes, which the test's cleanup does before waiting for
// it. A helper that does not start within 10 s fails the test.
func Start(t testing.TB, dir, helper string, env ...string) {
	t.Helper()
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
	cmd := exec.Command(exe, "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Dir = dir
	// Under the race detector a program sleeps a second as it exits
	// (atexit_sleep_ms): not here.
	cmd.Env = append(append(os.Environ(), env...), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	hold, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		hold.Close()
		cmd.Wait()
	}
	ready := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		ready <- l
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-ready:
		if l != "ready\n" {
			stop()
			t.Fatalf("%s as uid %d: %q\n%s", helper, UID, l, childErr.Bytes())
		}
	case <-time.After(10 * time.Second):
		stop()
		t.Fatalf("%s as uid %d did not start\n%s", helper, UID, childErr.Bytes())
	}
	t.Cleanup(stop)
}

// Ready tells Start that the helper is ready, then holds it until its
// standard input closes.
func Ready() {
	os.Stdout.WriteString("ready\n")
	io.Copy(io.Discard, os.Stdin)
}
