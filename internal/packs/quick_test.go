package packs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// quickChecks are the ways a pack makes its shell.quick check, each with
// what replaces it: a check that is never true, so that every line goes
// through the parse and every rule.
var quickChecks = [][2]string{
	{"local quick = shell.quick(", "local quick = function() return false end; local _ = shell.quick("},
	{"local plain = shell.quick(", "local plain = function() return false end; local _ = shell.quick("},
	{"local _, QUICK_MAX, QUICK_STOP = shell.quick(", "local QUICK_MAX, QUICK_STOP = -1, \"\"; local _ = shell.quick("},
}

// plainLiteral matches a string literal of a Lua test file that is a plain
// line (shell.quick's alphabet), and plainWord one of its words.
var (
	plainLiteral = regexp.MustCompile(`"([A-Za-z0-9 ._/=,:@+%-]+)"|'([A-Za-z0-9 ._/=,:@+%-]+)'`)
	packTimeout  = regexp.MustCompile(`timeout_ms = \d+`)
)

// quickCorpus returns plain lines built from every pack's and hooks.d's
// test files: each plain string literal, and, for each literal of two
// words or more, its arguments after three other programs the literals
// start with (git's arguments after npm, ...), so that a pack sees its
// own words after other programs. Sorted and deduplicated; under the race detector,
// every seventh line.
func quickCorpus(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("*_test.lua")
	more, _ := filepath.Glob("../../hooks.d/*_test.lua")
	seen := map[string]bool{}
	var lits [][]string
	programs := map[string]bool{}
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range plainLiteral.FindAllStringSubmatch(string(src), -1) {
			l := m[1] + m[2]
			w := strings.Fields(l)
			if len(w) == 0 || seen[l] {
				continue
			}
			seen[l] = true
			lits = append(lits, w)
			programs[w[0]] = true
		}
	}
	progs := make([]string, 0, len(programs))
	for p := range programs {
		progs = append(progs, p)
	}
	slices.Sort(progs)
	lines := map[string]bool{}
	for i, w := range lits {
		lines[strings.Join(w, " ")] = true
		if len(w) < 2 {
			continue
		}
		// three other programs, spread over the list, before its arguments
		for j := range 3 {
			lines[progs[(i*7+j*len(progs)/3)%len(progs)]+" "+strings.Join(w[1:], " ")] = true
		}
	}
	out := make([]string, 0, len(lines))
	for l := range lines {
		out = append(out, l)
	}
	slices.Sort(out)
	if raceEnabled {
		var few []string
		for k := 0; k < len(out); k += 40 {
			few = append(few, out[k])
		}
		out = few
	}
	return out
}

// TestQuickPathsNeverHideADenial: a pack that allows a plain line without
// parsing it (shell.quick) decides every plain line as the same pack with
// that check turned off decides it, on lines made of every suite's words.
// A quick check that lets through a line one of the pack's rules would
// stop fails here, naming the line.
func TestQuickPathsNeverHideADenial(t *testing.T) {
	lines := quickCorpus(t)
	if len(lines) < 1000 && !raceEnabled {
		t.Fatalf("%d plain lines from the suites, want at least 1000", len(lines))
	}
	tested := 0
	for _, name := range packNames(t) {
		src, err := os.ReadFile(name + ".lua")
		if err != nil {
			t.Fatal(err)
		}
		off := packTimeout.ReplaceAllString(string(src), "timeout_ms = 60000")
		for _, q := range quickChecks {
			off = strings.ReplaceAll(off, q[0], q[1])
		}
		if off == packTimeout.ReplaceAllString(string(src), "timeout_ms = 60000") {
			continue // no quick check
		}
		tested++
		t.Run(name, func(t *testing.T) {
			on, onDir := openQuick(t, name, packTimeout.ReplaceAllString(string(src), "timeout_ms = 60000"))
			full, fullDir := openQuick(t, name, off)
			for _, l := range lines {
				got := strings.ReplaceAll(decide(t, on, l), onDir, "DIR")
				if want := strings.ReplaceAll(decide(t, full, l), fullDir, "DIR"); got != want {
					t.Errorf("%q: with the quick check %s, parsed %s", l, got, want)
				}
			}
		})
	}
	if tested < 5 {
		t.Errorf("%d packs with a quick check, want at least 5", tested)
	}
}

// openQuick opens an engine on the lib modules and one pack's source, and
// returns it with its folder.
func openQuick(t *testing.T, name, src string) (*engine.Engine, string) {
	t.Helper()
	dir := hooksFolder(t)
	if err := os.WriteFile(filepath.Join(dir, name+".lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

// decide fires a shell call of line and returns the decision with its
// reason.
func decide(t *testing.T, e *engine.Engine, line string) string {
	raw, err := json.Marshal(map[string]string{"command": line})
	if err != nil {
		t.Fatal(err)
	}
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolCapabilities: []string{"shell"},
		ToolInput: raw, Cwd: "/home/dev/app", SessionID: "quick"}
	res := e.Runner().Fire(context.Background(), &in)
	return string(res.Verdict) + " " + res.Reason
}
