package transports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolvePaths makes the paths of a command hook's argv absolute against
// dir, the folder of the configuration file that defined the hook, so that
// no path depends on the payload's working directory, where the child runs
// and which the client chooses. It resolves
//   - argv[0] when it is a relative path (it contains a separator);
//   - the script operand of a shell or interpreter (sh, bash, dash, zsh,
//     ksh, mksh, fish, python, python3, perl, ruby, lua, node): the first
//     argument that is not an option, with or without a separator
//     ("sh guard.sh" and "sh ./guard.sh" alike);
//   - every other argument that starts with ./ or ../.
//
// Other relative words ("src", "--dir=x") are passed as they are: they may
// name anything, and a hook that lints the project relies on them meaning
// the project. A shell's -c script cannot be rewritten safely, so one that
// names a relative path (./x, ../x) is an error. argv is not changed; the
// result is a new slice.
func resolvePaths(argv []string, dir string) ([]string, error) {
	out := make([]string, len(argv))
	copy(out, argv)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	if strings.ContainsAny(argv[0], separators()) {
		out[0] = abs(argv[0])
	}
	operand, inline := scriptOperand(argv)
	for i := 1; i < len(argv); i++ {
		switch {
		case i == inline:
			if p := relativeInScript(argv[i]); p != "" {
				return nil, fmt.Errorf("its shell script names the relative path %q, which the shell would look up "+
					"in the payload's working directory (chosen by the client); use an absolute path or "+
					"\"$LUAHOOK_CONFIG_DIR/%s\" (the folder of the configuration file)", p, strings.TrimPrefix(p, "./"))
			}
		case i == operand && argv[i] != "-":
			out[i] = abs(argv[i])
		case strings.HasPrefix(argv[i], "./") || strings.HasPrefix(argv[i], "../"):
			out[i] = abs(argv[i])
		}
	}
	return out, nil
}

// scriptOperand returns the index in argv of the script file a shell or
// interpreter would run (-1: none) and of the inline script a shell would
// run (-c, -1: none). Inline code of other interpreters (python -c, node
// -e, ...) or a module to run (python -m) means there is no script operand.
func scriptOperand(argv []string) (operand, inline int) {
	name := filepath.Base(argv[0])
	f, ok := interpreterFlags(name)
	if !ok {
		return -1, -1
	}
	inlineShell := false
	found := func(i int) (int, int) {
		if inlineShell {
			return -1, i
		}
		return i, -1
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			if i+1 < len(argv) {
				return found(i + 1)
			}
			return -1, -1
		case strings.HasPrefix(a, "--"):
			long, _, attached := strings.Cut(a, "=")
			if contains(f.longCode, long) {
				return -1, -1
			}
			if contains(f.longArg, long) && !attached {
				i++
			}
		case len(a) > 1 && (a[0] == '-' || (f.shell && a[0] == '+')):
			for j := 1; j < len(a); j++ {
				c := a[j]
				if f.shell && c == 'c' {
					inlineShell = true
				} else if strings.IndexByte(f.code, c) >= 0 {
					return -1, -1
				}
				if strings.IndexByte(f.arg, c) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		default:
			return found(i)
		}
	}
	return -1, -1
}

// flags describes the command line of a shell or interpreter: the option
// letters that take inline code (or a module) and those that take the next
// argument, and the long options of each kind.
type flags struct {
	shell             bool
	code, arg         string
	longCode, longArg []string
}

// interpreterFlags returns the flags of the shell or interpreter name, and
// false when name is neither.
func interpreterFlags(name string) (flags, bool) {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish":
		return flags{shell: true, arg: "oO", longArg: []string{"--rcfile", "--init-file"}}, true
	case "python", "python3":
		return flags{code: "cm", arg: "WX", longArg: []string{"--check-hash-based-pycs"}}, true
	case "perl":
		return flags{code: "eE", arg: "I"}, true
	case "ruby":
		return flags{code: "e", arg: "IrC"}, true
	case "lua":
		return flags{code: "e", arg: "l"}, true
	case "node":
		return flags{code: "ep", arg: "r", longCode: []string{"--eval", "--print"},
			longArg: []string{"--require", "--import", "--loader", "--env-file"}}, true
	}
	return flags{}, false
}

// relativeInScript returns the first relative path (./x or ../x) that
// shell script text names as a word of its own, or "".
func relativeInScript(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '.' || (i > 0 && strings.IndexByte(" \t\r\n;&|()`'\"=<>{}!", s[i-1]) < 0) {
			continue
		}
		rest := s[i:]
		if strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			end := strings.IndexAny(rest, " \t\r\n;&|()`'\"<>{}")
			if end < 0 {
				end = len(rest)
			}
			return rest[:end]
		}
	}
	return ""
}

// baseDir returns dir made absolute; "" is the current directory.
func baseDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

// joinArgv quotes argv back into one command string that SplitArgv splits
// into the same words.
func joinArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " \t\r\n\v\f'\"") {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'"'"'`))
		b.WriteByte('\'')
	}
	return b.String()
}
