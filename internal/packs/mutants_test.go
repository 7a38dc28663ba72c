package packs_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook/policytest"
)

// minBlockedMutants is the share of its mutants (every denied or asked call
// of its suite, spelled otherwise: quotes, backslashes, variables, wrappers,
// path forms, blanks, chains, bash -c) that each pack must still block, in
// percent.
const minBlockedMutants = 99.0

// racePacks are the packs whose suites and mutants run under the race
// detector (which a policy suite gives nothing to find, at ten times the
// cost: every pack would take minutes): one whose blocked calls are shell
// commands, and one whose blocks depend on the calls before them (the
// mutants replay them). .ci/run runs this test again without -race,
// through every pack.
var racePacks = []string{"databases", "session"}

// maxSurvivorsShown is how many surviving spellings a failure lists per pack.
const maxSurvivorsShown = 10

// TestPackSuitesBlockTheirMutants runs each pack's suite with mutants
// (policytest.Options.Mutants) and requires at least minBlockedMutants
// percent of them still blocked, listing the first surviving spellings of
// a pack below. A pack whose blocked calls give no mutant at all (its
// calls are not shell commands, file paths or URLs) has nothing to count.
// Under the race detector, only racePacks run.
func TestPackSuitesBlockTheirMutants(t *testing.T) {
	names := packNames(t)
	if raceEnabled {
		for _, name := range racePacks {
			if !slices.Contains(names, name) {
				t.Fatalf("racePacks names %s, which is not a pack", name)
			}
		}
		names = racePacks
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each pack in its own folder and engine
			dir := hooksFolder(t, name+".lua", name+"_test.lua")
			muts := policytest.NewMutants()
			var out bytes.Buffer
			sum, err := policytest.Run(context.Background(), policytest.Options{
				Paths:   []string{dir},
				Out:     &out,
				Mutants: muts,
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if sum.Failed > 0 {
				t.Fatalf("%s: %v\n%s", name, sum, out.String())
			}
			rep := muts.Report()
			t.Logf("%s: %d of %d mutants still blocked (%.1f%%)", name, rep.Total.Blocked, rep.Total.Mutants, rep.Total.Percent)
			if rep.Below(minBlockedMutants) {
				t.Errorf("%s: %d of %d mutants still blocked (%.1f%%), want at least %v%%; first survivors:\n%s",
					name, rep.Total.Blocked, rep.Total.Mutants, rep.Total.Percent, minBlockedMutants, survivors(rep, maxSurvivorsShown))
			}
		})
	}
}

// survivors lists the first n cases of a report with a surviving spelling:
// the call and its first spelling that got past.
func survivors(rep policytest.MutantReport, n int) string {
	var b strings.Builder
	for _, f := range rep.Files {
		for _, s := range f.Survivors {
			if n == 0 {
				return b.String()
			}
			n--
			fmt.Fprintf(&b, "    %q (%d of %d pass): %s %s %q passes as %q\n", s.Case, s.Passed, s.Mutants, s.Tool, s.Field, s.Call, s.Mutant)
		}
	}
	return b.String()
}
