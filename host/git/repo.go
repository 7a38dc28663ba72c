package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/luahook/luahook/host"
)

// maxFilters bounds the filter drivers a repository may configure; more
// is refused rather than passed to git as that many overrides.
const maxFilters = 256

// repo is what one hook call learned of the repository at the payload's
// cwd: one git config run and one git status run.
type repo struct {
	dir string
	// in: dir is in a work tree. Everything below is zero otherwise.
	in bool
	// branch is the checked-out branch, "" when HEAD is detached.
	branch string
	// oid is the commit checked out, "" when the branch has none yet.
	oid   string
	dirty bool
	// branchRemote maps a branch to its upstream's remote
	// (branch.NAME.remote); remoteURL a remote to its first URL.
	branchRemote, remoteURL map[string]string
	// filters are the overrides that neutralise the configured filter
	// drivers, for every run in dir.
	filters []string
}

// current returns the repository state of the hook call's cwd, read once
// per call (host.Memo); nil when ctx carries no call, the payload has no
// absolute cwd naming a directory, or the cwd is not in a work tree.
func current(ctx context.Context) (*repo, error) {
	dir := callDir(ctx)
	if dir == "" {
		return nil, nil
	}
	v, err := host.Memo(ctx, "git.status\x00"+dir, func() (any, error) { return load(ctx, dir) })
	if err != nil {
		return nil, err
	}
	r := v.(*repo)
	if !r.in {
		return nil, nil
	}
	return r, nil
}

// callDir returns the payload's cwd when it is an absolute path to a
// directory, else "".
func callDir(ctx context.Context) string {
	c := host.CallOf(ctx)
	if c == nil || c.Input == nil || !filepath.IsAbs(c.Input.Cwd) {
		return ""
	}
	if fi, err := os.Stat(c.Input.Cwd); err != nil || !fi.IsDir() {
		return ""
	}
	return c.Input.Cwd
}

// load reads the repository at dir: its configuration first (the filter
// drivers to neutralise, the remotes), then its status.
func load(ctx context.Context, dir string) (*repo, error) {
	r := &repo{dir: dir}
	cfg, err := runGit(ctx, dir, nil, nil, "config", "-z", "--get-regexp", `^(filter|branch|remote)\.`)
	var ee *exitError
	switch {
	case errors.As(err, &ee) && ee.code == 1: // no such key
		cfg = &run{}
	case err != nil:
		return nil, r.fail(err)
	case cfg.cut:
		return nil, r.fail(fmt.Errorf("git config wrote more than %d KiB", maxOutput>>10))
	}
	if err := r.readConfig(cfg.out); err != nil {
		return nil, r.fail(err)
	}

	st, err := runGit(ctx, dir, r.filters, statusEnough, "status", "--porcelain=v2", "--branch", "-z",
		"--untracked-files=normal", "--ignore-submodules=dirty", "--no-renames")
	if errors.As(err, &ee) && notWorkTree(ee.stderr) {
		return r, nil
	}
	if err != nil {
		return nil, r.fail(err)
	}
	if st.cut {
		return nil, r.fail(fmt.Errorf("git status wrote more than %d KiB of headers", maxOutput>>10))
	}
	r.in = true
	r.readStatus(st.out)
	return r, nil
}

// fail names the folder and the module in err.
func (r *repo) fail(err error) error {
	var ee *exitError
	if errors.As(err, &ee) && strings.Contains(ee.stderr, "dubious ownership") {
		return fmt.Errorf("host.git: %s: the repository belongs to another user and git refuses to read it "+
			"(add it to safe.directory in the global git config if it is trusted): %w", r.dir, err)
	}
	return fmt.Errorf("host.git: %s: %w", r.dir, err)
}

// notWorkTree reports whether git refused because its folder is not in a
// work tree: no repository, a bare one (safe.bareRepository=explicit), or
// the .git folder itself.
func notWorkTree(stderr string) bool {
	for _, s := range []string{"not a git repository", "cannot use bare repository", "must be run in a work tree"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// readConfig reads `git config -z --get-regexp` output: records of
// "key\nvalue" (a key without a value has no "\n").
func (r *repo) readConfig(out []byte) error {
	seen := map[string]bool{}
	for _, rec := range records(out) {
		k, v, _ := bytes.Cut(rec, []byte("\n"))
		key := string(k)
		section, rest, _ := strings.Cut(key, ".")
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 {
			continue // no subsection: not a driver, branch or remote
		}
		name, variable := rest[:dot], rest[dot+1:]
		switch {
		case section == "filter" && !seen[name]:
			// git -c splits at the first '=': a name holding one
			// cannot be overridden, so the repository is refused.
			if strings.Contains(name, "=") {
				return fmt.Errorf("the filter driver %q has '=' in its name; git is not run there", name)
			}
			if seen[name] = true; len(seen) > maxFilters {
				return fmt.Errorf("more than %d filter drivers are configured; git is not run there", maxFilters)
			}
			p := "filter." + name + "."
			r.filters = append(r.filters, p+"clean=", p+"smudge=", p+"process=", p+"required=false")
		case section == "branch" && variable == "remote":
			if r.branchRemote == nil {
				r.branchRemote = map[string]string{}
			}
			r.branchRemote[name] = string(v)
		case section == "remote" && variable == "url":
			if r.remoteURL == nil {
				r.remoteURL = map[string]string{}
			}
			if _, ok := r.remoteURL[name]; !ok {
				r.remoteURL[name] = string(v)
			}
		}
	}
	return nil
}

// statusEnough reports whether porcelain v2 output holds its headers and
// the start of a first entry: all that branch and dirty need. git is
// stopped there, however many changed or untracked files follow.
func statusEnough(b []byte) bool {
	for pos := 0; pos < len(b); {
		if b[pos] != '#' {
			return true
		}
		i := bytes.IndexByte(b[pos:], 0)
		if i < 0 {
			return false
		}
		pos += i + 1
	}
	return false
}

// readStatus reads the headers of `git status --porcelain=v2 --branch -z`
// and whether an entry follows them.
func (r *repo) readStatus(out []byte) {
	for _, rec := range records(out) {
		if len(rec) == 0 || rec[0] != '#' {
			r.dirty = true
			break
		}
		switch h := string(rec); {
		case strings.HasPrefix(h, "# branch.oid "):
			if oid := h[len("# branch.oid "):]; oid != "(initial)" {
				r.oid = oid
			}
		case strings.HasPrefix(h, "# branch.head "):
			if b := h[len("# branch.head "):]; b != "(detached)" {
				r.branch = b
			}
		}
	}
	// An entry whose NUL has not arrived yet (git was stopped on it).
	if !r.dirty && statusEnough(out) {
		r.dirty = true
	}
}

// lastCommit reads the checked-out commit: one git log run, once per call.
func (r *repo) lastCommit(ctx context.Context) (map[string]any, error) {
	if r.oid == "" || !isHex(r.oid) {
		return nil, nil
	}
	v, err := host.Memo(ctx, "git.log\x00"+r.dir, func() (any, error) {
		lg, err := runGit(ctx, r.dir, r.filters, nil, "log", "-1", "--no-show-signature", "--no-mailmap",
			"--format=%H%x00%ct%x00%an%x00%s", r.oid, "--")
		if err != nil {
			return nil, r.fail(err)
		}
		f := bytes.SplitN(bytes.TrimSuffix(lg.out, []byte("\n")), []byte{0}, 4)
		if len(f) < 4 {
			return nil, r.fail(fmt.Errorf("git log wrote %q, not sha, time, author and subject", lg.out))
		}
		t, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			return nil, r.fail(fmt.Errorf("git log: commit time %q: %w", f[1], err))
		}
		return map[string]any{"sha": string(f[0]), "time": t, "author": string(f[2]), "subject": string(f[3])}, nil
	})
	if err != nil {
		return nil, err
	}
	// A fresh copy per caller: the memo's map is shared by the call.
	c := v.(map[string]any)
	return map[string]any{"sha": c["sha"], "time": c["time"], "author": c["author"], "subject": c["subject"]}, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}
