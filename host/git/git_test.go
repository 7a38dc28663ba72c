//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFunctionsReadTheRepositoryOfThePayloadsCwd(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	tests := []struct {
		name   string
		setup  func(t *testing.T) string // returns the cwd
		branch any
		dirty  any
		remote any
		commit bool // last_commit is the repository's HEAD
	}{
		{"clean branch", func(t *testing.T) string { return newRepo(t) }, "main", false, nil, true},
		{"modified file", func(t *testing.T) string {
			d := newRepo(t)
			write(t, filepath.Join(d, "a.txt"), "changed\n")
			return d
		}, "main", true, nil, true},
		{"staged file", func(t *testing.T) string {
			d := newRepo(t)
			write(t, filepath.Join(d, "b.txt"), "new\n")
			gitIn(t, d, "add", "b.txt")
			return d
		}, "main", true, nil, true},
		{"untracked file only", func(t *testing.T) string {
			d := newRepo(t)
			write(t, filepath.Join(d, "u.txt"), "untracked\n")
			return d
		}, "main", true, nil, true},
		{"untracked files even when the repository hides them", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "config", "status.showUntrackedFiles", "no")
			write(t, filepath.Join(d, "u.txt"), "untracked\n")
			return d
		}, "main", true, nil, true},
		{"other branch, from a subfolder", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "switch", "-q", "-c", "feature/x")
			sub := filepath.Join(d, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(sub, "new.txt"), "x")
			return sub
		}, "feature/x", true, nil, true},
		{"detached HEAD", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "switch", "-q", "--detach")
			return d
		}, nil, false, nil, true},
		{"no commits yet", func(t *testing.T) string {
			d := t.TempDir()
			gitIn(t, d, "init", "-q")
			return d
		}, "main", false, nil, false},
		{"origin", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "remote", "add", "origin", "https://ci:s3cret@git.example.com/team/app.git")
			return d
		}, "main", false, "https://ci@git.example.com/team/app.git", true},
		{"upstream remote before origin", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "remote", "add", "origin", "git@example.com:me/app.git")
			gitIn(t, d, "remote", "add", "upstream", "git@example.com:team/app.git")
			gitIn(t, d, "config", "branch.main.remote", "upstream")
			return d
		}, "main", false, "git@example.com:team/app.git", true},
		{"detached HEAD reads origin", func(t *testing.T) string {
			d := newRepo(t)
			gitIn(t, d, "remote", "add", "origin", "/srv/git/app.git")
			gitIn(t, d, "switch", "-q", "--detach")
			return d
		}, nil, false, "/srv/git/app.git", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			br, dt, rm, lc, err := all(callIn(context.Background(), dir))
			if err != nil {
				t.Fatal(err)
			}
			if br != tt.branch || dt != tt.dirty || rm != tt.remote {
				t.Errorf("branch, dirty, remote = %#v, %#v, %#v; want %#v, %#v, %#v", br, dt, rm, tt.branch, tt.dirty, tt.remote)
			}
			if !tt.commit {
				if lc != nil {
					t.Errorf("last_commit = %#v, want nil", lc)
				}
				return
			}
			want := map[string]any{"sha": gitIn(t, dir, "rev-parse", "HEAD"), "subject": "first",
				"author": "Ada Lovelace", "time": int64(1700000000)}
			if !reflect.DeepEqual(lc, want) {
				t.Errorf("last_commit = %#v, want %#v", lc, want)
			}
		})
	}
}

func TestOutsideAWorkTreeEveryFunctionIsNil(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	repo := newRepo(t)
	for name, ctx := range map[string]context.Context{
		"not a repository":  callIn(context.Background(), t.TempDir()),
		"the .git folder":   callIn(context.Background(), filepath.Join(repo, ".git")),
		"no cwd":            callIn(context.Background(), ""),
		"relative cwd":      callIn(context.Background(), "."),
		"missing folder":    callIn(context.Background(), filepath.Join(repo, "nope")),
		"a file":            callIn(context.Background(), filepath.Join(repo, "a.txt")),
		"not from a hook":   context.Background(),
		"a bare repository": callIn(context.Background(), bareRepo(t)),
	} {
		t.Run(name, func(t *testing.T) {
			br, dt, rm, lc, err := all(ctx)
			if err != nil || br != nil || dt != nil || rm != nil || lc != nil {
				t.Errorf("= %#v, %#v, %#v, %#v, %v; want nil everywhere", br, dt, rm, lc, err)
			}
		})
	}
}

func bareRepo(t *testing.T) string {
	d := t.TempDir()
	gitIn(t, d, "init", "-q", "--bare")
	return d
}

func TestOneHookCallRunsGitAtMostThreeTimes(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	gitIn(t, dir, "remote", "add", "origin", "https://example.com/app.git")
	count := filepath.Join(t.TempDir(), "runs")
	shimGit(t, `echo "$*" >> `+count+`
exec $REAL_GIT "$@"
`)
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "\n")
	}
	ctx := callIn(context.Background(), dir)
	for range 3 {
		if _, _, _, _, err := all(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := runs(); n != 3 {
		b, _ := os.ReadFile(count)
		t.Fatalf("git ran %d times in one call, want 3 (config, status, log):\n%s", n, b)
	}
	// A new call reads again: the cache is the call's.
	gitIn(t, dir, "switch", "-q", "-c", "next")
	before := runs()
	if br, err := branch(callIn(context.Background(), dir)); err != nil || br != "next" {
		t.Errorf("branch in the next call = %#v, %v; want next", br, err)
	}
	if n := runs() - before; n != 2 {
		t.Errorf("git ran %d times in a second call to branch, want 2 (config, status)", n)
	}
}

func TestLastCommitIsACopyPerCaller(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	ctx := callIn(context.Background(), newRepo(t))
	a, err := lastCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a.(map[string]any)["sha"] = "changed"
	b, _ := lastCommit(ctx)
	if b.(map[string]any)["sha"] == "changed" {
		t.Error("changing one caller's last_commit changed the next caller's")
	}
}

func TestStatusStopsAtTheFirstEntry(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	// A git that writes its headers and then entries without end: host.git
	// must read the first entry, stop git and answer.
	shimGit(t, `case "$*" in
*" status "*) printf '# branch.oid 0123456789abcdef0123456789abcdef01234567\0# branch.head main\0'
	while :; do printf '? untracked-file-with-a-long-name\0'; done ;;
*) exec $REAL_GIT "$@" ;;
esac
`)
	br, err := branch(callIn(context.Background(), dir))
	dt, err2 := dirty(callIn(context.Background(), dir))
	if err != nil || err2 != nil || br != "main" || dt != true {
		t.Errorf("branch, dirty = %#v, %#v (%v, %v); want main, true", br, dt, err, err2)
	}
}

func TestEndlessHeadersAreCutAtTheBound(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	shimGit(t, `case "$*" in
*" status "*) while :; do printf '# branch.ab +0 -0\0'; done ;;
*) exec $REAL_GIT "$@" ;;
esac
`)
	_, err := branch(callIn(context.Background(), dir))
	if err == nil || !strings.Contains(err.Error(), "more than 1024 KiB") || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want the bound and the folder named", err)
	}
}

func TestBoundedKeepsItsLimitAndStopsOnce(t *testing.T) {
	stops := 0
	b := &bounded{limit: 8, stop: func() { stops++ }}
	for _, s := range []string{"abcde", "fghij", "klmno"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if string(b.buf) != "abcdefgh" || !b.cut || stops != 1 {
		t.Errorf("buf %q cut %v stops %d; want the first 8 bytes, cut, one stop", b.buf, b.cut, stops)
	}
}

func TestStatusEnough(t *testing.T) {
	for in, want := range map[string]bool{
		"":                        false,
		"# branch.oid x\x00":      false,
		"# branch.oid x":          false,
		"# branch.head main\x001": true,
		"? a\x00":                 true,
		"# a\x00# b\x00":          false,
	} {
		if got := statusEnough([]byte(in)); got != want {
			t.Errorf("statusEnough(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestWithoutPassword(t *testing.T) {
	for in, want := range map[string]string{
		"https://ci:s3cret@example.com/a.git": "https://ci@example.com/a.git",
		"https://ci:p@ss@example.com/a.git":   "https://ci@example.com/a.git",
		"https://ci@example.com/a.git":        "https://ci@example.com/a.git",
		"https://example.com/a@b.git":         "https://example.com/a@b.git",
		"ssh://git:x@example.com:22/a.git":    "ssh://git@example.com:22/a.git",
		"git@example.com:team/app.git":        "git@example.com:team/app.git",
		"/srv/git/app.git":                    "/srv/git/app.git",
		"https://:tok@example.com":            "https://@example.com",
	} {
		if got := withoutPassword(in); got != want {
			t.Errorf("withoutPassword(%q) = %q, want %q", in, got, want)
		}
	}
}
