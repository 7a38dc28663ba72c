package packs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook/internal/packs"
	"github.com/luahook/luahook/policytest"
)

// minCases is how many test cases each pack must have.
const minCases = 25

// install writes files into a fresh hooks folder, as luahook add does.
func install(t *testing.T, files []packs.File) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// TestEveryPackPassesItsOwnTestsAlone runs each pack's *_test.lua through
// policytest in a hooks folder holding only that pack and the lib modules
// it needs (what luahook add writes), and requires at least minCases cases.
// Under the race detector only racePacks run: a policy suite gives the
// detector nothing another pack's does not, at ten times the cost (all of
// them took the longest part of the race run). .ci/run runs every pack's
// suite again without -race (TestPackSuitesBlockTheirMutants runs each
// suite before its mutants).
func TestEveryPackPassesItsOwnTestsAlone(t *testing.T) {
	all, err := packs.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no packs")
	}
	if raceEnabled {
		all = slices.DeleteFunc(all, func(p packs.Pack) bool { return !slices.Contains(racePacks, p.Name) })
		if len(all) != len(racePacks) {
			t.Fatalf("racePacks names a pack that does not exist: %v", racePacks)
		}
	}
	for _, p := range all {
		t.Run(p.Name, func(t *testing.T) {
			// each pack in its own folder and engine: the suites use both
			// cores (under -race this test is the package's longest)
			t.Parallel()
			files, err := p.Files()
			if err != nil {
				t.Fatal(err)
			}
			dir := install(t, files)
			var out bytes.Buffer
			sum, err := policytest.Run(context.Background(), policytest.Options{Paths: []string{dir}, Out: &out})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failed > 0 {
				t.Errorf("%s: %v\n%s", p.Name, sum, failures(out.String()))
			}
			if sum.Passed < minCases {
				t.Errorf("%s has %d test cases, want at least %d", p.Name, sum.Passed, minCases)
			}
			t.Logf("%s: %v", p.Name, sum)
		})
	}
}

// failures returns the FAIL lines of a policytest output and what follows
// each.
func failures(out string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL"):
			in = true
		case strings.HasPrefix(line, "ok"), summaryLine.MatchString(line):
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
