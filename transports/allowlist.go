package transports

import (
	"os"
	"path/filepath"
	"strings"
)

// Allowed reports whether argv0, the first word of a command hook, may be
// spawned. An absolute path is allowed whatever it names: it is the operator's
// escape hatch for their own scripts. A word that contains a path separator is
// judged by its last segment, so "./node" passes and "./scripts/hook.sh" does
// not. Otherwise the word must be one of the built-in names (shells,
// interpreters, common text and file utilities, git, jq, curl, process and
// system tools, luahook) or one of extra. Matching is exact and case-sensitive:
// no extension is stripped. An entry of extra that contains a separator
// matches argv0 exactly, so "./scripts/guard.sh" can be allowed on its own.
//
// The allowlist is a guard against mistakes, not a sandbox: an allowed shell
// runs anything it is told to.
func Allowed(argv0 string, extra []string) bool {
	if argv0 == "" {
		return false
	}
	if filepath.IsAbs(argv0) {
		return true
	}
	base := argv0
	if i := strings.LastIndexAny(argv0, separators()); i >= 0 {
		base = argv0[i+1:]
		for _, e := range extra {
			if e == argv0 {
				return true
			}
		}
	}
	if base == "" {
		return false
	}
	if builtinAllowed(base) {
		return true
	}
	for _, e := range extra {
		if e == base {
			return true
		}
	}
	return false
}

func separators() string {
	if os.PathSeparator == '\\' {
		return `/\`
	}
	return "/"
}

// builtinAllowed is the default first-word allowlist.
func builtinAllowed(name string) bool {
	switch name {
	case // shells
		"bash", "sh", "dash", "zsh", "fish",
		// interpreters and package runners
		"node", "deno", "bun", "npx", "npm", "pnpm", "yarn",
		"python", "python3", "perl", "ruby", "lua",
		// text utilities
		"echo", "cat", "grep", "sed", "awk", "find", "sort", "uniq", "wc", "head", "tail",
		"cut", "tr", "tee", "xargs", "printf", "test", "expr",
		// files
		"ls", "stat", "touch", "mkdir", "rm", "cp", "mv", "chmod", "chown",
		// version control and structured text
		"git", "diff", "jq", "yq",
		// network
		"curl", "wget",
		// processes and system information
		"ps", "kill", "pgrep", "pkill", "uname", "hostname", "whoami", "date",
		// this tool: `luahook fire` is itself a command hook
		"luahook":
		return true
	}
	return false
}
