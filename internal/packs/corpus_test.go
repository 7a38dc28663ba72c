package packs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/runner"
)

// corpusFloors are, per file of testdata/corpus, how many lines it holds
// and how many of them every pack but session decides as the file expects:
// dangerous calls blocked of those written, everyday calls allowed of
// those written. They are what the packs achieve today (a ratchet): a
// change that loses ground fails TestCorpusOfCallsNoSuiteWrote; one that
// gains ground raises them. The targets are 95% of the dangerous calls
// blocked and 97% of the everyday calls allowed, on each corpus. (When the
// corpus was written the packs blocked 474 of 508 and allowed 468 of 481;
// the misses it showed were fixed, so these floors now hold the fixes, and
// the corpus no longer measures calls nobody fixed for.)
var corpusFloors = map[string]struct{ blocked, dangerous, allowed, everyday int }{
	"cloud":      {60, 60, 50, 50},
	"containers": {47, 47, 54, 54},
	"deletes":    {55, 55, 50, 50},
	"files":      {53, 53, 58, 58},
	"git":        {52, 52, 50, 50},
	"network":    {45, 45, 44, 44},
	"packages":   {49, 49, 57, 57},
	"secrets":    {56, 56, 51, 51},
	"system":     {92, 92, 66, 67},
}

// corpusLine is one call of the corpus: what is expected of it (block or
// allow), the tool, its input (the command of a shell tool, else the
// tool's input as JSON) and a note saying what the line is.
type corpusLine struct {
	where, expect, tool, input, note string
}

// shell reports whether l's tool runs a command line (Bash, PowerShell),
// whose input is the command alone.
func (l corpusLine) shell() bool {
	return slices.Contains(luahook.KnownToolCapabilities(l.tool), luahook.CapShell)
}

// readCorpus reads one corpus file: tab-separated lines of expect, tool,
// input and note; blank lines and lines starting with # are skipped.
func readCorpus(t *testing.T, path string) []corpusLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []corpusLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", filepath.Base(path), n)
		cols := strings.Split(text, "\t")
		if len(cols) != 4 {
			t.Fatalf("%s: %d tab-separated columns, want 4 (expect, tool, input, note)", where, len(cols))
		}
		l := corpusLine{where: where, expect: cols[0], tool: cols[1], input: cols[2], note: cols[3]}
		if l.expect != "block" && l.expect != "allow" {
			t.Fatalf("%s: expect %q, want block or allow", where, l.expect)
		}
		if luahook.KnownToolCapabilities(l.tool) == nil {
			t.Fatalf("%s: tool %q is not a tool an agent names", where, l.tool)
		}
		if !l.shell() && !json.Valid([]byte(l.input)) {
			t.Fatalf("%s: the input of %s is not JSON: %s", where, l.tool, l.input)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return lines
}

// openCorpusEngine opens one engine with every pack but session, as
// `luahook add` installs them, at their defaults but for their time
// limits, raised as TestQuickPathsNeverHideADenial raises them so that a
// slow call on a busy machine (or under the race detector) does not
// decide a line by failing closed. Session and budget are left out because
// their budgets of calls would end the run (the corpus is one session), not
// judge a call.
func openCorpusEngine(t *testing.T) *engine.Engine {
	t.Helper()
	dir := hooksFolder(t)
	n := 0
	for _, name := range packNames(t) {
		if name == "session" || name == "budget" {
			continue
		}
		src, err := os.ReadFile(name + ".lua")
		if err != nil {
			t.Fatal(err)
		}
		src = []byte(packTimeout.ReplaceAllString(string(src), "timeout_ms = 60000"))
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d packs installed, want every pack but session (at least 10)", n)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestCorpusOfCallsNoSuiteWrote fires every line of testdata/corpus (calls
// written by class, for each area the packs guard, apart from the packs'
// own suites) as Claude Code's PreToolUse through one engine holding every
// pack but session. A dangerous call counts as blocked when it is denied
// or asked about; an everyday call as allowed when it is neither. It logs
// per file and overall the share of dangerous calls blocked and of
// everyday calls allowed, and every miss with its decision and reason, and
// fails when a file does worse than corpusFloors. Under the race detector
// it fires every fifth line, and holds the misses among them to the
// misses the floors allow.
func TestCorpusOfCallsNoSuiteWrote(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(corpusFloors) {
		t.Fatalf("%d corpus files, corpusFloors has %d: give each file its floors", len(files), len(corpusFloors))
	}
	e := openCorpusEngine(t)
	var sumB, sumD, sumA, sumE, linesD, linesE int
	for _, path := range files {
		cat := strings.TrimSuffix(filepath.Base(path), ".tsv")
		floor, ok := corpusFloors[cat]
		if !ok {
			t.Fatalf("%s: no floors in corpusFloors", path)
		}
		// dangerous and everyday count the file's lines; ranD and ranE
		// those fired (all but under -race).
		var blocked, dangerous, allowed, everyday, ranD, ranE, missD, missE int
		var misses []string
		for k, l := range readCorpus(t, path) {
			if l.expect == "block" {
				dangerous++
			} else {
				everyday++
			}
			if raceEnabled && k%5 != 0 {
				continue
			}
			if l.expect == "block" {
				ranD++
			} else {
				ranE++
			}
			res := fireCorpusLine(t, e, l)
			stopped := res.Denied() || res.Asked()
			switch {
			case l.expect == "block" && stopped:
				blocked++
				continue
			case l.expect == "allow" && !stopped:
				allowed++
				continue
			case l.expect == "block":
				missD++
			default:
				missE++
			}
			misses = append(misses, fmt.Sprintf("%s %s %s %s: %s (%s) %s",
				l.where, l.expect, l.tool, l.input, res.Verdict, res.DecidedBy, res.Reason))
		}
		sumB, sumD, sumA, sumE = sumB+blocked, sumD+ranD, sumA+allowed, sumE+ranE
		linesD, linesE = linesD+dangerous, linesE+everyday
		t.Logf("%-11s %3d of %3d dangerous blocked (%5.1f%%), %3d of %3d everyday allowed (%5.1f%%)",
			cat, blocked, ranD, pct(blocked, ranD), allowed, ranE, pct(allowed, ranE))
		for _, m := range misses {
			t.Logf("  miss %s", m)
		}
		if dangerous != floor.dangerous || everyday != floor.everyday {
			t.Errorf("%s holds %d dangerous and %d everyday calls, corpusFloors says %d and %d: update the floors",
				cat, dangerous, everyday, floor.dangerous, floor.everyday)
		}
		// The misses are held to what the floors leave, so that a sample
		// (under -race) may miss no more calls than the whole corpus may.
		if missD > floor.dangerous-floor.blocked {
			t.Errorf("%s: %d dangerous calls not blocked, want at least %d of %d blocked (at most %d missed)",
				cat, missD, floor.blocked, floor.dangerous, floor.dangerous-floor.blocked)
		}
		if missE > floor.everyday-floor.allowed {
			t.Errorf("%s: %d everyday calls stopped, want at least %d of %d allowed (at most %d stopped)",
				cat, missE, floor.allowed, floor.everyday, floor.everyday-floor.allowed)
		}
	}
	sample := ""
	if raceEnabled {
		sample = " (every fifth line, under the race detector)"
	}
	t.Logf("%-11s %3d of %3d dangerous blocked (%5.1f%%), %3d of %3d everyday allowed (%5.1f%%)%s",
		"overall", sumB, sumD, pct(sumB, sumD), sumA, sumE, pct(sumA, sumE), sample)
	if linesD < 400 || linesE < 400 {
		t.Errorf("the corpus holds %d dangerous and %d everyday calls, want at least 400 of each", linesD, linesE)
	}
}

// fireCorpusLine fires l as Claude Code's PreToolUse from the project
// folder.
func fireCorpusLine(t *testing.T, e *engine.Engine, l corpusLine) runner.Result {
	t.Helper()
	input := []byte(l.input)
	if l.shell() {
		var err error
		if input, err = json.Marshal(map[string]string{"command": l.input}); err != nil {
			t.Fatal(err)
		}
	}
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: l.tool, ToolCapabilities: luahook.KnownToolCapabilities(l.tool),
		ToolInput: input, Cwd: "/home/dev/project", SessionID: "corpus"}
	return e.Runner().Fire(context.Background(), &in)
}

// pct is n of m as a percentage (100 of nothing).
func pct(n, m int) float64 {
	if m == 0 {
		return 100
	}
	return 100 * float64(n) / float64(m)
}
