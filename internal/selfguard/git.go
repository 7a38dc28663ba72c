package selfguard

import "strings"

// git judges the git commands that change the working tree: checkout and
// restore of paths (or of a folder holding protected paths: git checkout
// .), reset --hard, stash, clean, switch --discard-changes, rm and mv.
func (p *parser) git(args []word) {
	var dir *word
	var worktree *word
	k := 0
opts:
	for k < len(args) {
		a := args[k]
		t := a.text
		switch {
		case a.unk != srcNone:
			p.unsure("its git command is not known")
			return
		case t == "-C":
			if k+1 < len(args) {
				d := args[k+1]
				if dir != nil && d.unk == srcNone && !isAbsText(d.text) {
					d = joinWords(*dir, d)
				}
				dir = &d
			}
			k += 2
		case t == "--work-tree":
			if k+1 < len(args) {
				worktree = &args[k+1]
			}
			k += 2
		case strings.HasPrefix(t, "--work-tree="):
			w := suffixWord(a, len("--work-tree="))
			worktree = &w
			k++
		case t == "-c" || t == "--git-dir" || t == "--namespace" || t == "--config-env" || t == "--super-prefix":
			k += 2
		case strings.HasPrefix(t, "-"):
			k++
		default:
			break opts
		}
	}
	if k >= len(args) {
		return
	}
	sub, rest := args[k].text, args[k+1:]
	if p.g.fold {
		sub = strings.ToLower(sub) // git-checkout, found as git-Checkout
	}
	p.withCwd(dir, func() { p.gitSub(sub, rest, worktree) })
}

func (p *parser) gitSub(sub string, rest []word, worktree *word) {
	repo := func() {
		if worktree != nil {
			p.judge(*worktree, true)
			return
		}
		for _, c := range p.cwds {
			if c == "" {
				p.unsure("git runs in a folder luahook cannot follow")
				continue
			}
			p.judge(plainWord(repoRoot(c)), true)
		}
	}
	pathspecs := func(ws []word) {
		for _, w := range ws {
			switch {
			case w.unk == srcNone && strings.HasPrefix(w.text, ":"):
				repo() // pathspec magic: :/ is the whole tree
			case w.unk == srcNone && strings.ContainsAny(w.text, "*?["):
				// a git glob matches across folders: the folder before it
				p.judge(plainWord(globFolder(w.text)), true)
			default:
				p.judge(w, true)
			}
		}
	}
	switch sub {
	case "checkout":
		o := parseOpts(rest, "bB", []string{"orphan", "conflict", "pathspec-from-file"})
		if o.has("-f", "--force", "--pathspec-from-file") {
			repo()
		}
		pathspecs(o.ops)
	case "restore":
		o := parseOpts(rest, "s", []string{"source", "conflict", "pathspec-from-file"})
		if o.has("-S", "--staged") && !o.has("-W", "--worktree") {
			return
		}
		if o.has("--pathspec-from-file") {
			repo()
		}
		pathspecs(o.ops)
	case "reset":
		if o := parseOpts(rest, "", nil); o.has("--hard", "--merge", "--keep") {
			repo()
		}
	case "stash":
		action, more := "push", rest
		if len(rest) > 0 && !strings.HasPrefix(rest[0].text, "-") {
			action, more = rest[0].text, rest[1:]
		}
		switch action {
		case "list", "show", "drop", "clear", "create", "store":
		case "push":
			o := parseOpts(more, "m", []string{"message", "pathspec-from-file"})
			if len(o.ops) > 0 && !o.has("--pathspec-from-file") {
				pathspecs(o.ops)
			} else {
				repo()
			}
		default: // pop, apply, branch, save
			repo()
		}
	case "clean":
		o := parseOpts(rest, "e", []string{"exclude"})
		if o.has("-n", "--dry-run") {
			return
		}
		if len(o.ops) > 0 {
			pathspecs(o.ops)
		} else {
			p.judge(plainWord("."), true)
		}
	case "switch":
		if o := parseOpts(rest, "cC", []string{"create", "force-create", "orphan", "conflict"}); o.has("-f",
			"--force", "--discard-changes") {
			repo()
		}
	case "rm":
		o := parseOpts(rest, "", []string{"pathspec-from-file"})
		if o.has("--cached") {
			return
		}
		pathspecs(o.ops)
	case "mv":
		pathspecs(parseOpts(rest, "", nil).ops)
	}
}

// globFolder returns the folder a pattern's components name before the
// first one holding a glob character ("." when the first does).
func globFolder(pat string) string {
	parts := strings.Split(pat, "/")
	for i, c := range parts {
		if strings.ContainsAny(c, "*?[") {
			if i == 0 {
				return "."
			}
			if i == 1 && parts[0] == "" {
				return "/"
			}
			return strings.Join(parts[:i], "/")
		}
	}
	return pat
}
