package hooksd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	hooksd "github.com/luahook/luahook/hooks.d"
)

// quickPolicies are the shipped shell policies, which allow a plain
// command line without parsing it (shell.quick).
var quickPolicies = []string{"10-dangerous-commands.lua", "20-protect-secrets.lua"}

// quickLines are the ways those policies make their check (the function
// shell.quick returns, or the check made from the bound and pattern it
// also returns), each with what replaces it: a check that is never true,
// so that every line goes through the parse and every rule.
var quickLines = [][2]string{
	{"local quick = shell.quick(", "local quick = function() return false end; local _ = shell.quick("},
	{"local _, QUICK_MAX, QUICK_STOP = shell.quick(", "local QUICK_MAX, QUICK_STOP = -1, \"\"; local _ = shell.quick("},
}

// quickOff returns src with its quick check turned off, or false when it
// makes the check in none of the known ways.
func quickOff(src string) (string, bool) {
	for _, l := range quickLines {
		if strings.Contains(src, l[0]) {
			return strings.Replace(src, l[0], l[1], 1), true
		}
	}
	return src, false
}

// openPolicies opens an engine on the lib, the shell policies (each passed
// through edit) and the extra files (name to source), in a folder of its
// own, which it returns.
func openPolicies(tb testing.TB, edit func(name, src string) string, extra map[string]string) (*engine.Engine, string) {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		tb.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range ents {
		if d.IsDir() {
			continue
		}
		path := filepath.Join(dir, d.Name())
		keep := false
		for _, n := range quickPolicies {
			keep = keep || d.Name() == n
		}
		if !keep {
			os.Remove(path)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(roomy(edit(d.Name(), string(src)))), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for name, src := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	// The engine's self-protection is off: it guards each engine's own
	// folder, whose names differ between the two engines compared (and a
	// command naming one is judged by it); it has tests of its own.
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e, dir
}

// hookTimeout matches a hook's own deadline in its options.
var hookTimeout = regexp.MustCompile(`timeout_ms = \d+`)

// roomy gives src's hooks a minute each: the tests compare decisions, and
// under the fuzzer's instrumentation, with its workers on both cores, a
// parse that takes milliseconds in a plain build can outlast a policy's own
// deadline (dangerous-commands' 1 s) on a long line, which would read as a
// difference.
func roomy(src string) string {
	return hookTimeout.ReplaceAllString(src, "timeout_ms = 60000")
}

// verdicts fires a bash call of cmd and returns each hook's verdict:
// its name with its outcome or failure, the folder dir spelt "DIR".
func verdicts(t *testing.T, e *engine.Engine, dir, cmd string) []string {
	return toolVerdicts(t, e, dir, "bash", map[string]string{"command": cmd})
}

// toolVerdicts fires a call of tool with toolInput and returns each hook's
// verdict as verdicts does.
func toolVerdicts(t *testing.T, e *engine.Engine, dir, tool string, toolInput any) []string {
	input, err := json.Marshal(toolInput)
	if err != nil {
		t.Fatal(err)
	}
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: tool, SessionID: "fuzz", ToolInput: input}
	res := e.Runner().Fire(context.Background(), &in)
	var out []string
	for _, h := range res.Trace {
		switch {
		case h.Failure != nil:
			out = append(out, fmt.Sprintf("%s failed: %s", h.Name, h.Failure.Kind))
		case h.Outcome != nil:
			out = append(out, fmt.Sprintf("%s: %s %q", h.Name, h.Outcome.Action, strings.ReplaceAll(h.Outcome.Reason, dir, "DIR")))
		default:
			out = append(out, h.Name+": nil")
		}
	}
	return out
}

// plainAlphabet is what a plain line is made of (shell.quick), with a
// bias to the letters of the programs the policies look at.
const plainAlphabet = "rmdfgitchowsunvxa RMDGE0129 ._/=,:@+%-"

// plain maps every byte of s into plainAlphabet, so that most fuzz inputs
// reach the quick check's allow path too.
func plain(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = plainAlphabet[int(c)%len(plainAlphabet)]
	}
	return string(b)
}

// FuzzQuickAllowNeverHidesADenial: the shipped shell policies decide every
// command line as they do with their quick check off (parse and every
// rule): a line the check lets through without parsing is one the full
// path allows too. Each input is tried as it is and mapped to a plain line.
func FuzzQuickAllowNeverHidesADenial(f *testing.F) {
	for _, s := range []string{
		"go test ./... -run TestRunner -count=1", `r\m -rf /`, "FOO=1 rm -rf /", "/bin/rm -rf ~", "/bin/rm -rf /",
		"sudo -u x rm -rf /", "env rm -rf /", "x=rm; $x -rf /", ":(){ :|:& };:", "git push -f origin main",
		"git push --force origin main", "dd of=/dev/sda", "dd if=/dev/zero of=/dev/sda", "cat .env", "less ~/.ssh/id_rsa",
		"cat x/.ssh/id_rsa", "RM -RF /", "Rm -rf .", "A=1 B=2 rm -rf /", "A=/bin/rm", "1A=rm -rf /", "time rm -rf /",
		"if rm -rf /", "function f rm -rf /", "chmod -R 777 /", "mkfs.ext4 /dev/sda1", "python3.12 -c x",
		"eval rm -rf /", "xargs rm -rf", "find / -delete", "cp x /dev/sda", "tee /dev/sda", "rm -rf .",
		"cat --env-file=.env", "scp host:.ssh/id_rsa .", "cat x@.netrc", "git show HEAD:.env", "cat .ENV",
		"cat id_ED25519", "cat a.PEM", "cat .aws/credentials", "cat .git-credentials", "cat .env.local",
		"cat .env.example", "ls .ssh", "./rm -rf /", "rm/ -rf /", "sh x", "bash", "watch rm -rf /",
		"go test \xff", "rm\xff -rf /", "cat .env\u00e9", "go\ttest", "go test\n rm -rf /",
	} {
		f.Add(s)
	}
	quick, quickDir := openPolicies(f, func(name, src string) string { return src }, nil)
	full, fullDir := openPolicies(f, func(name, src string) string {
		off, ok := quickOff(src)
		if !ok {
			f.Fatalf("%s makes its quick check in none of the ways of quickLines: the test no longer turns it off", name)
		}
		return off
	}, nil)
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, line := range []string{cmd, plain(cmd)} {
			got, want := verdicts(t, quick, quickDir, line), verdicts(t, full, fullDir, line)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: with the quick check %v, parsed %v", line, got, want)
			}
		}
	})
}

// argsStop is how protect-secrets sets the pattern of its check of the
// arguments.
const argsStop = "local ARGS_STOP = "

// FuzzQuickArgsNeverHideADenial: protect-secrets decides every tool input
// as it does with its quick checks off: the one call that lets a tool
// input's arguments through without walking them (re.match_any of the
// quick pattern) passes over no path the walk would find. Each input is
// tried as it is and mapped to plain words, as a path, in a list, nested,
// under a text key and beside a shell command.
func FuzzQuickArgsNeverHideADenial(f *testing.F) {
	for _, s := range []string{
		".env", "config/.env.local", ".env.example", "~/.ssh/id_rsa", "/home/x/.ssh/", "a/.aws/credentials",
		"x=.env", "HEAD:.env", "u@.netrc", "ID_ED25519", "cert.PEM", ".git-credentials", "*.pem", ".e*", "[.]env",
		".env\x00", "src/main.go", "-", "=", "a b/.env", ".env\n", ".docker/config.json", ".kube/config", "x.key",
		".gnupg", ".config/gcloud/x", "\xff.env", ".env\u00e9", "keystore.jks", "x/.pgpass", "_netrc",
	} {
		f.Add(s)
	}
	quick, quickDir := openPolicies(f, func(name, src string) string { return src }, nil)
	full, fullDir := openPolicies(f, func(name, src string) string {
		off, _ := quickOff(src)
		if name != "20-protect-secrets.lua" {
			return off
		}
		if !strings.Contains(off, argsStop) {
			f.Fatalf("%s sets no %q: the test no longer turns its check of the arguments off", name, argsStop)
		}
		// "" matches every string: every tool input with a string outside
		// the text keys is walked
		return strings.Replace(off, argsStop, `local ARGS_STOP = ""; local _ = `, 1)
	}, nil)
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []string{s, plain(s)} {
			for _, c := range []struct {
				tool  string
				input any
			}{
				{"read", map[string]any{"path": p}},
				{"read", map[string]any{"paths": []any{"src/a.go", p}}},
				{"custom", map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": p}}}}},
				{"custom", map[string]any{"content": p, "text": []any{p}}},
				{"custom", map[string]any{"content": map[string]any{"file": p}}},
				{"bash", map[string]any{"command": "go test ./...", "file": p}},
				{"read", p},
			} {
				got, want := toolVerdicts(t, quick, quickDir, c.tool, c.input), toolVerdicts(t, full, fullDir, c.tool, c.input)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s %v: with the quick checks %v, walked %v", c.tool, c.input, got, want)
				}
			}
		}
	})
}
