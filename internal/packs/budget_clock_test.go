package packs_test

import (
	"strings"
	"testing"
	"time"
)

// TestBudgetWallTimeWarnsAtTheMillisecond: the usual call reads the time in
// whole seconds and to the millisecond only near warn_at; the warning
// still comes at the first call past warn_at of the wall time, not up to a
// second late, and never before. max_minutes = 0.1 and warn_at = 0.5 put
// it 3 s after the first call (past the 2 s the coarse reading needs).
func TestBudgetWallTimeWarnsAtTheMillisecond(t *testing.T) {
	e := budgetWith(t, "max_minutes = 240,", "max_minutes = 0.1,", "warn_at = 0.8,", "warn_at = 0.5,",
		"max_tool_calls = 500,", "max_tool_calls = 100000,")
	const warnAt = 3000 * time.Millisecond
	// The hook's clock reads whole milliseconds of the wall clock, this
	// test the monotonic clock: a margin far under the second the coarse
	// reading could be late by, and far over their rounding.
	const slack = 50 * time.Millisecond
	began := time.Now() // before the first call: the session's start is later
	wantRuns(t, "the first call", budgetCall(e, "s", "", ""))
	first := time.Now() // after it: the session's start is earlier
	for {
		before := time.Since(first) // the session has run at least this long
		r := budgetCall(e, "s", "", "")
		after := time.Since(began) // and at most this long
		wantRuns(t, "a call", r)
		warned := strings.Contains(r.AdditionalContext, "budget: this session has run for")
		switch {
		case warned && after < warnAt-slack:
			t.Fatalf("warned %v after the first call, before warn_at (%v)", after, warnAt)
		case warned:
			return
		case before >= warnAt+slack:
			t.Fatalf("a call %v after the first, past warn_at (%v), was not warned", before, warnAt)
		}
		time.Sleep(10 * time.Millisecond) // pacing the calls, not waiting for one
	}
}
