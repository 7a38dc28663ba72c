package selfguard

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// maxFuzzLine bounds the fuzzed command lines: past maxLineBytes, every
// line is refused unread, so twice that covers the bound itself.
const maxFuzzLine = 2 * maxLineBytes

// seeds are lines that reach every construct of the lexer.
var seeds = []string{
	`echo x > hooks.d/10-x.lua`, `rm -rf hook{s.d,}/*`, `a=hoo; rm "${a}ks.d"`, `rm $'hoo\x6bs.d'`,
	`sh -c 'eval "rm $1"' x hooks.d`, "cat <<-'EOF' | sh\n\trm hooks.d/x\n\tEOF\n", "echo `echo $(echo hooks.d)`",
	`for f in hooks.d/*; do rm "$f"; done`, `case $x in (a|b) rm hooks.d;; *) :;; esac`, `f() { rm hooks.d; }; f`,
	`find . -name '*.lua' -exec sh -c 'rm "$1"' _ {} \;`, `X=(a b c); rm ${X[@]}`, `(( x = $(rm hooks.d) ))`,
	`[[ a > b ]] && luahook trust`, `env -S "rm hooks.d" x`, `watch -n1 rm hooks.d`, `cd hooks.d; cd ..; cd -; rm x`,
	`git -C a -C b checkout -- .`, `tar xzf a.tgz -C hooks.d`, `curl -sSLo hooks.d/x https://x`, `go run ./cmd/luahook trust`,
	`rm {1..100}`, `rm {a..z}{a..z}`, `echo ${x:-${y:-${z:-hooks.d}}}`, `echo "$(echo "$(echo "hooks.d")")"`,
	`luahook --dir x add --force=1 y`, `apply_patch "*** Begin Patch` + "\n*** Add File: hooks.d/x\n" + `"`,
	`'unclosed`, `"unclosed`, `$(unclosed`, "${unclosed", "`unclosed", `\`, `$'\u{110000}\777\x'`,
}

// FuzzShell holds the shell analysis to its bounds: whatever the line,
// it never panics, stops within its limits (work, words, commands,
// lookups, nesting), does work linear in the line's length (times a
// constant: nested strings are read again, words expand to at most
// maxFields values), and a line naming nothing protected, from a folder
// far from every protected path, is never denied.
func FuzzShell(f *testing.F) {
	fx := newFixture(f)
	for _, s := range seeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, line string, inProject bool) {
		if len(line) > maxFuzzLine {
			t.Skip()
		}
		cwd := "/nowhere/near"
		if inProject {
			cwd = fx.proj
		}
		p := fx.g.parse(line, []string{cwd}, fx.g.mentions(line))
		if p.depth != 0 {
			t.Errorf("depth %d after the parse", p.depth)
		}
		if p.work > maxWork+maxLineBytes || p.work > 1024*len(line)+4096 {
			t.Errorf("work %d for a line of %d bytes", p.work, len(line))
		}
		if p.tokens > maxTokens+1 || p.cmds > maxCommands+1 || p.judged > maxJudged+1 || p.walked > maxWalk+1 ||
			p.res.left < 0 {
			t.Errorf("past a bound: %d tokens, %d commands, %d paths, %d walked, %d lookups left",
				p.tokens, p.cmds, p.judged, p.walked, p.res.left)
		}
		// the whole Check: never a panic, and a line that names nothing
		// from far away is allowed
		ti, err := json.Marshal(map[string]string{"command": line})
		if err != nil || !utf8.ValidString(line) {
			return
		}
		deny, reason := fx.g.Check(&luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: ti,
			Cwd: "/nowhere/near"})
		if deny && !fx.g.mentionsRaw(ti) && !strings.Contains(line, "/") &&
			!strings.ContainsAny(line, "*?[{$~") {
			t.Errorf("denied a line that names nothing protected: %q: %s", line, reason)
		}
	})
}

// TestLongLinesStayLinear runs adversarial lines at the size bound: each
// finishes within its work bound (work counted, not time, so that a busy
// machine does not break it).
func TestLongLinesStayLinear(t *testing.T) {
	fx := newFixture(t)
	n := maxLineBytes - 16
	lines := map[string]string{
		"escapes":       strings.Repeat(`\x`, n/2),
		"quotes":        strings.Repeat(`'a'`, n/3),
		"braces":        "echo " + strings.Repeat("{a,b}", n/5),
		"nested braces": "echo " + strings.Repeat("{", n/4) + strings.Repeat("a,b}", n/4),
		"substitutions": strings.Repeat("$(", n/4) + strings.Repeat(")", n/4),
		"backquotes":    strings.Repeat("`", n),
		"variables":     "a=hooks.d; " + strings.Repeat("b=$a$a$a$a; a=$b$b$b$b; ", n/24),
		"evals":         strings.Repeat("eval ", n/5),
		"sh -c":         strings.Repeat("sh -c '", 10) + "rm x" + strings.Repeat("'", 10),
		"commands":      strings.Repeat("rm a;", n/5),
		"redirections":  strings.Repeat(">a ", n/3),
		"heredocs":      strings.Repeat("cat <<E\n", n/16) + strings.Repeat("E\n", n/16),
		"globs":         "rm " + strings.Repeat("*/", n/2),
		"paths":         "rm " + strings.Repeat("a/", n/2),
		"words":         "rm " + strings.Repeat("hooks.d ", n/8),
		"ansi":          "echo $'" + strings.Repeat(`\x41`, n/4) + "'",
		"params":        strings.Repeat("${a:-", n/5) + strings.Repeat("}", n/5),
		"arith":         "echo $((" + strings.Repeat("(", n/2) + strings.Repeat(")", n/2) + "))",
		"case":          "case x in " + strings.Repeat("a) ;; ", n/7) + "esac",
		"find":          "find . " + strings.Repeat("-name a ", n/8) + "-delete",
	}
	for name, line := range lines {
		p := fx.g.parse(line, []string{fx.proj}, true)
		if p.work > maxWork+maxLineBytes {
			t.Errorf("%s: work %d", name, p.work)
		}
	}
}
