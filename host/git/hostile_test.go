//go:build unix

package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostileRepo makes a repository whose configuration names a program for
// every way git has to run one while reading status or log: each program
// creates a marker file named for it in the returned markers folder.
func hostileRepo(t *testing.T) (dir, markers string) {
	t.Helper()
	dir, markers = newRepo(t), t.TempDir()
	progs := t.TempDir()
	prog := func(name, rest string) string {
		p := filepath.Join(progs, name+".sh")
		write(t, p, "#!/bin/sh\ntouch '"+filepath.Join(markers, name)+"'\n"+rest)
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Files under filter drivers, committed, then changed without a
	// change of size and with a later mtime: status must hash them again,
	// through the clean filter.
	write(t, filepath.Join(dir, ".gitattributes"),
		"*.clean filter=evil\n*.proc filter=proc\n*.case filter=CaseDrv\n*.dot filter=a.b\n")
	files := []string{"f.clean", "f.proc", "f.case", "f.dot"}
	for _, f := range files {
		write(t, filepath.Join(dir, f), "before\n")
	}
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "filtered files")
	later := time.Now().Add(time.Hour)
	for _, f := range files {
		write(t, filepath.Join(dir, f), "after!\n")
		if err := os.Chtimes(filepath.Join(dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}

	// A commit signed (badly): with log.showSignature, git log runs
	// gpg.program to check it.
	raw := gitIn(t, dir, "cat-file", "commit", "HEAD")
	head, body, _ := strings.Cut(raw, "\n\n")
	signed := head + "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n" + body + "\n"
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(signed)
	sha, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "update-ref", "refs/heads/main", strings.TrimSpace(string(sha)))

	// Hooks last: the setup's own commits would run them.
	hooks := filepath.Join(progs, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"post-index-change", "post-checkout", "pre-commit", "reference-transaction"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch '"+filepath.Join(markers, "hook-"+h)+"'\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, ".git", "hooks", h), "#!/bin/sh\ntouch '"+filepath.Join(markers, "githook-"+h)+"'\n")
		if err := os.Chmod(filepath.Join(dir, ".git", "hooks", h), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	for _, kv := range [][2]string{
		{"core.fsmonitor", prog("fsmonitor", "")},
		{"filter.evil.clean", prog("clean-filter", "cat\n")},
		{"filter.evil.smudge", prog("smudge-filter", "cat\n")},
		{"filter.evil.required", "true"},
		{"filter.proc.process", prog("process-filter", "")},
		{"filter.CaseDrv.clean", prog("case-filter", "cat\n")},
		{"filter.a.b.clean", prog("dotted-filter", "cat\n")},
		{"core.pager", prog("pager", "cat\n")},
		{"pager.status", prog("pager-status", "cat\n")},
		{"core.hooksPath", hooks},
		{"diff.external", prog("diff-external", "")},
		{"log.showSignature", "true"},
		{"gpg.program", prog("gpg", "")},
		{"status.submoduleSummary", "true"},
		{"core.sshCommand", prog("ssh", "")},
		{"credential.helper", prog("credential", "")},
		{"core.askPass", prog("askpass", "")},
		{"remote.origin.url", "ext::" + prog("remote-ext", "")},
	} {
		gitIn(t, dir, "config", kv[0], kv[1])
	}
	return dir, markers
}

func markersIn(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestAHostileRepositoryRunsNothingItConfigures(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir, markers := hostileRepo(t)

	br, dt, rm, lc, err := all(callIn(context.Background(), dir))
	if err != nil {
		t.Fatal(err)
	}
	if br != "main" || dt != true || rm == nil || lc == nil {
		t.Errorf("branch, dirty, remote, last_commit = %#v, %#v, %#v, %#v; want them read", br, dt, rm, lc)
	}
	if ran := markersIn(t, markers); len(ran) > 0 {
		t.Errorf("reading the repository ran %v", ran)
	}

	// The same reads by a plain git run those programs: the repository
	// really is hostile, and the test would see a hardening that broke.
	plain := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		_ = cmd.Run() // the fake programs make git fail; what matters is what ran
	}
	plain("status", "--porcelain=v2")
	plain("log", "-1", "--format=%H")
	ran := markersIn(t, markers)
	for _, want := range []string{"fsmonitor", "clean-filter", "process-filter", "case-filter", "dotted-filter", "gpg"} {
		if !slices.Contains(ran, want) {
			t.Errorf("a plain git status and log did not run %s (ran %v): the hostile repository is not hostile", want, ran)
		}
	}
}

func TestAFilterDriverThatCannotBeOverriddenIsRefused(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	dir := newRepo(t)
	markers := t.TempDir()
	gitIn(t, dir, "config", "filter.x=y.clean", "touch "+filepath.Join(markers, "ran"))
	_, err := branch(callIn(context.Background(), dir))
	if err == nil || !strings.Contains(err.Error(), `"x=y"`) || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v, want the driver and the folder named", err)
	}
	if ran := markersIn(t, markers); len(ran) > 0 {
		t.Errorf("ran %v", ran)
	}
}

func TestASubmodulesOwnFiltersDoNotRun(t *testing.T) {
	requireGit(t)
	isolateHome(t)
	inner, dir, markers := newRepo(t), newRepo(t), t.TempDir()
	write(t, filepath.Join(inner, ".gitattributes"), "*.txt filter=evil\n")
	gitIn(t, inner, "add", ".")
	gitIn(t, inner, "commit", "-q", "-m", "attributes")
	gitIn(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "sub")
	gitIn(t, dir, "commit", "-q", "-m", "submodule")
	sub := filepath.Join(dir, "sub")
	// The submodule's own config names a filter the outer repository's
	// does not; its file is changed so that a status inside it would hash
	// it again.
	gitIn(t, sub, "config", "filter.evil.clean", "touch '"+filepath.Join(markers, "submodule-filter")+"'; cat")
	later := time.Now().Add(time.Hour)
	write(t, filepath.Join(sub, "a.txt"), "HELLO\n")
	if err := os.Chtimes(filepath.Join(sub, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	br, dt, _, _, err := all(callIn(context.Background(), dir))
	if err != nil || br != "main" || dt != false {
		t.Errorf("branch, dirty = %#v, %#v, %v; want main, false (the submodule's work tree is not looked into)", br, dt, err)
	}
	if ran := markersIn(t, markers); len(ran) > 0 {
		t.Errorf("ran %v", ran)
	}
	// A plain status looks into it, and runs the filter.
	cmd := exec.Command("git", "status", "--porcelain=v2")
	cmd.Dir = dir
	_ = cmd.Run()
	if ran := markersIn(t, markers); len(ran) == 0 {
		t.Error("a plain git status did not run the submodule's filter: the test shows nothing")
	}
}
