// Package git is the built-in host module host.git: what a policy may
// want to know of the repository the agent works in (the checked-out
// branch, whether the work tree has changes, the remote, the last
// commit), read by running git in the payload's cwd. The luahook command
// (fire, serve, check, test, ...) gives it to every hook file:
//
//	local git = require("host.git")
//	if git.branch() == "main" then ... end
//
// Every function reads the payload's cwd (host.CallOf). A payload without
// a cwd, a cwd that is not an absolute path to a directory, or a folder
// that is not in a git work tree gives nil. A git that cannot be run
// (missing from PATH, refusing a repository another user owns, taking
// longer than the hook's deadline or 2 s) is an error, so the hook fails
// and its failure policy decides.
//
// git reads at most three times per hook call, however many functions the
// hook calls: its configuration and its status once (host.Memo, keyed by
// the cwd), and its log for last_commit.
//
// The repository is written by others, so git is run hardened: a fixed
// environment (PATH, HOME, LANG=C, no system config, no GIT_DIR or
// GIT_WORK_TREE from the parent, no optional locks, no replace objects),
// and command-line configuration that the repository's own cannot
// override, turning off everything that would make git run a program it
// names: core.fsmonitor, hooks, the pager, external diff, signature
// verification (gpg.program), credential helpers, every transport (no
// lazy fetch), and each filter driver the configuration names (clean,
// smudge and process empty, required false). With the filters off, a file
// whose only change would be undone by its clean filter (Git LFS, for
// one) can count as a change. Submodules' own work trees are not looked
// into (--ignore-submodules=dirty). git is killed with its whole process
// group when the deadline passes, and its output is read through a
// bounded buffer: status stops at the first changed or untracked file.
package git

import (
	"context"
	"strings"

	"github.com/luahook/luahook/host"
)

// Module returns host.git, for engine.Options.Host: require("host.git")
// in a hook file. Its members:
//
//   - branch(): the checked-out branch's name; nil when HEAD is detached
//     or the cwd is not in a work tree. A branch with no commit yet has
//     its name.
//   - dirty(): true when the index or the work tree has a change,
//     untracked files included; false when clean; nil outside a work
//     tree.
//   - remote(): the URL of the checked-out branch's upstream remote, else
//     of "origin", else nil. A password in the URL is left out.
//   - last_commit(): the checked-out commit as a table {sha, subject,
//     author (the author's name), time (the committer date, in Unix
//     seconds)}; nil when there is no commit yet or no work tree.
func Module() host.Module {
	return host.Module{
		Name: "git",
		Members: map[string]any{
			"branch":      branch,
			"dirty":       dirty,
			"remote":      remote,
			"last_commit": lastCommit,
		},
		Doc: "The git repository of the payload's cwd, read by running git (hardened: nothing the repository " +
			"configures runs) once per hook call. Each function returns nil outside a work tree.",
	}
}

func branch(ctx context.Context) (any, error) {
	r, err := current(ctx)
	if r == nil || r.branch == "" {
		return nil, err
	}
	return r.branch, nil
}

func dirty(ctx context.Context) (any, error) {
	r, err := current(ctx)
	if r == nil {
		return nil, err
	}
	return r.dirty, nil
}

func remote(ctx context.Context) (any, error) {
	r, err := current(ctx)
	if r == nil {
		return nil, err
	}
	u, ok := r.remoteURL[r.branchRemote[r.branch]]
	if r.branch == "" || !ok {
		u, ok = r.remoteURL["origin"]
	}
	if !ok {
		return nil, nil
	}
	return withoutPassword(u), nil
}

func lastCommit(ctx context.Context) (any, error) {
	r, err := current(ctx)
	if r == nil {
		return nil, err
	}
	c, err := r.lastCommit(ctx)
	if c == nil {
		return nil, err
	}
	return c, nil
}

// withoutPassword drops the password of a URL such as
// https://user:token@host/repo; other forms (user@host:path) are kept.
func withoutPassword(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return s
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return s
	}
	return scheme + "://" + user + "@" + rest[at+1:]
}
