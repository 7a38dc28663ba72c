//go:build unix

package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/hostcall"
)

// callIn returns the context a host function gets from a hook call whose
// payload has cwd dir.
func callIn(ctx context.Context, dir string) context.Context {
	return hostcall.With(ctx, &hostcall.Call{Hook: "test-hook", File: "test.lua",
		Input: &luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", Cwd: dir}})
}

// isolateHome points HOME at an empty folder, so that neither the tests'
// git nor host.git reads the user's ~/.gitconfig.
func isolateHome(t testing.TB) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// gitIn runs a real git in dir for the test's setup, with a fixed author.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	argv := append([]string{"-c", "user.name=Ada Lovelace", "-c", "user.email=ada@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)
	cmd := exec.Command("git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=1700000000 +0000", "GIT_AUTHOR_DATE=1700000000 +0000")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with one commit ("first") on main.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.txt"), "hello\n")
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shimGit puts a script named git first on PATH; $REAL_GIT in the script
// is replaced by the real git's path (host.git gives git no such variable).
func shimGit(t *testing.T, script string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\n"+strings.ReplaceAll(script, "$REAL_GIT", real)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// all calls the four functions in one hook call, in a Lua hook's order.
func all(ctx context.Context) (br, dt, rm, lc any, err error) {
	if br, err = branch(ctx); err != nil {
		return
	}
	if dt, err = dirty(ctx); err != nil {
		return
	}
	if rm, err = remote(ctx); err != nil {
		return
	}
	lc, err = lastCommit(ctx)
	return
}

func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}
