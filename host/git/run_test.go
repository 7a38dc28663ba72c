//go:build linux

package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestGitMissingFromPathIsAnError(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	t.Setenv("PATH", t.TempDir())
	for name, f := range map[string]func(context.Context) (any, error){
		"branch": branch, "dirty": dirty, "remote": remote, "last_commit": lastCommit,
	} {
		v, err := f(callIn(context.Background(), dir))
		if v != nil || err == nil || !strings.Contains(err.Error(), "git not found in PATH") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s = %#v, %v; want an error saying git is not in PATH, naming the folder", name, v, err)
		}
	}
}

func TestARepositoryOfAnotherUserIsAClearError(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	if os.Geteuid() != 0 {
		t.Skip("giving the repository to another user needs root")
	}
	dir := newRepo(t)
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	br, err := branch(callIn(context.Background(), dir))
	if br != nil || err == nil || !strings.Contains(err.Error(), "belongs to another user") ||
		!strings.Contains(err.Error(), "safe.directory") || !strings.Contains(err.Error(), dir) {
		t.Errorf("branch = %#v, %v; want an error naming the folder and safe.directory", br, err)
	}
}

// hangingGit is a git that forks a child into its own process group's
// background, records the child's pid, and waits for ever.
func hangingGit(t *testing.T) (pidFile string) {
	pidFile = filepath.Join(t.TempDir(), "child.pid")
	shimGit(t, `sleep 1000 &
echo $! > `+pidFile+`
wait
`)
	return pidFile
}

func TestTheHooksDeadlineStopsGitAndItsChildren(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	pidFile := hangingGit(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	br, err := branch(callIn(ctx, dir))
	if br != nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("branch = %#v, %v; want the deadline, naming the folder", br, err)
	}
	requireDead(t, pidFile)
}

func TestGitsOwnCeilingHoldsWithoutADeadline(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	pidFile := hangingGit(t)
	_, err := dirty(callIn(context.Background(), dir))
	if err == nil || !strings.Contains(err.Error(), "took longer than 2s") {
		t.Fatalf("dirty: %v, want the 2 s ceiling", err)
	}
	requireDead(t, pidFile)
}

// requireDead fails unless the process whose pid is in pidFile has died
// (gone, or a zombie waiting for its reaper).
func requireDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent to the group before the call returned; its
	// delivery is the kernel's, so look until the process has gone.
	for range 1000 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			return
		}
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("git's child %d outlived the call", pid)
}
