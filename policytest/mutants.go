package policytest

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/termtext"
)

// maxFiredPerCase bounds the payloads of one case kept for its mutants: a
// case that fires more has the blocked payloads past the bound left
// unmutated (they could not be replayed).
const maxFiredPerCase = 256

// Mutants collects, when set in Options.Mutants, the bypass coverage of a
// run: every PreToolUse payload a passing case fired that was blocked (denied
// or asked about) is fired again, after the case, in other spellings of the
// same call (spellings: quotes split and doubled, backslashes, variables,
// wrappers such as sudo, env, nice, timeout, xargs, bash -c, program and
// argument path forms, blanks, chains; path forms of a file tool's path; the
// case of a URL's host), each through a fresh engine's hooks exactly as the
// case's, and counted blocked when it is denied or asked about again. A
// rewrite (mutate) is not a block. Report reads it after Run.
type Mutants struct {
	// PerCase caps the mutants of one case; zero means MaxMutantsPerCase.
	// The cap takes the first spellings of each family in turn, so that a
	// lower one keeps a few of every kind.
	PerCase int

	mu    sync.Mutex
	files []FileMutants
}

// NewMutants returns an empty collector for Options.Mutants.
func NewMutants() *Mutants { return &Mutants{} }

// MutantReport is the bypass coverage of a test run (Options.Mutants): per
// test file and in total, how many mutants were fired and how many were
// still blocked, and each case whose call some spelling gets past. Its JSON
// form is what `luahook test --mutants --json` prints; its fields and their
// order are stable.
type MutantReport struct {
	Files []FileMutants `json:"files"`
	Total MutantTotal   `json:"total"`
}

// FileMutants is the bypass coverage of one test file.
type FileMutants struct {
	Path      string     `json:"path"`
	Mutants   int        `json:"mutants"`
	Blocked   int        `json:"blocked"`
	Percent   float64    `json:"percent"`
	Survivors []Survivor `json:"survivors"`
}

// Survivor is a case of which some mutants were not blocked: the call it
// fired (the tool and the field whose spelling changed: a shell tool's
// command, a file tool's path, a URL) and the first spelling that got past.
type Survivor struct {
	Case  string `json:"case"`
	Tool  string `json:"tool"`
	Field string `json:"field"`
	Call  string `json:"call"`
	// Mutant is the first surviving spelling of Call.
	Mutant string `json:"mutant"`
	// Passed of Mutants spellings of the case's calls were not blocked.
	Passed  int `json:"passed"`
	Mutants int `json:"mutants"`
}

// MutantTotal sums the files of a report.
type MutantTotal struct {
	Mutants int     `json:"mutants"`
	Blocked int     `json:"blocked"`
	Percent float64 `json:"percent"`
}

// Report returns what m collected, in the order the files ran.
func (m *Mutants) Report() MutantReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := MutantReport{Files: []FileMutants{}}
	for _, f := range m.files {
		f.Percent = blockedPercent(f.Blocked, f.Mutants)
		if f.Survivors == nil {
			f.Survivors = []Survivor{}
		}
		r.Files = append(r.Files, f)
		r.Total.Mutants += f.Mutants
		r.Total.Blocked += f.Blocked
	}
	r.Total.Percent = blockedPercent(r.Total.Blocked, r.Total.Mutants)
	return r
}

// blockedPercent is blocked/mutants in percent, to one decimal rounded
// down: a survivor never shows as 100%. No mutant is 100%.
func blockedPercent(blocked, mutants int) float64 {
	if mutants == 0 {
		return 100
	}
	return math.Floor(1000*float64(blocked)/float64(mutants)) / 10
}

// Below reports whether the share of mutants still blocked is under
// minPercent, before rounding. No mutant at all is 100%.
func (r MutantReport) Below(minPercent float64) bool {
	return float64(r.Total.Blocked)*100 < minPercent*float64(r.Total.Mutants)
}

// WriteText prints the report: per file "mutants: N of M still blocked
// (P%)" and, under it, each case with a survivor, its call and the first
// spelling that got past; then the total line.
func (r MutantReport) WriteText(w io.Writer) error {
	for _, f := range r.Files {
		if f.Mutants == 0 {
			continue
		}
		fmt.Fprintf(w, "%s mutants: %d of %d still blocked (%s)\n", termtext.Line(f.Path), f.Blocked, f.Mutants, formatPercent(f.Percent))
		for _, s := range f.Survivors {
			fmt.Fprintf(w, "    %s: %d of %d pass\n", strconv.Quote(s.Case), s.Passed, s.Mutants)
			fmt.Fprintf(w, "        %s %s: %s\n", termtext.Line(s.Tool), s.Field, strconv.Quote(s.Call))
			fmt.Fprintf(w, "        passes as: %s\n", strconv.Quote(s.Mutant))
		}
	}
	_, err := fmt.Fprintf(w, "mutants: %d of %d still blocked (%s)\n", r.Total.Blocked, r.Total.Mutants, formatPercent(r.Total.Percent))
	return err
}

// fired is a payload a case fired, as it was before the engine saw it (and
// before an agent's wire format, which a replay applies again), and whether
// it was blocked.
type fired struct {
	in      *luahook.Input
	blocked bool
}

// blocks reports whether a result blocks its call: a deny or an ask.
func blocks(res *engine.Result) bool {
	return res.Verdict == luahook.VerdictDeny || res.Verdict == luahook.VerdictAsk
}

// record keeps a copy of a payload of the case in progress (Options.Mutants).
func (tf *testFile) record(in *luahook.Input, res *engine.Result) {
	if tf.opts.Mutants == nil || tf.tooMany {
		return
	}
	if len(tf.fired) >= maxFiredPerCase {
		tf.tooMany = true
		return
	}
	tf.fired = append(tf.fired, fired{in: in, blocked: in.Event == luahook.PreToolUse && blocks(res)})
}

// count adds what a case's mutants did to the test file's entry, which
// the file's first case with mutants adds.
func (tf *testFile) count(n, blocked int, s *Survivor) {
	m := tf.opts.Mutants
	m.mu.Lock()
	defer m.mu.Unlock()
	if tf.mutEntry == 0 {
		m.files = append(m.files, FileMutants{Path: tf.path})
		tf.mutEntry = len(m.files)
	}
	f := &m.files[tf.mutEntry-1]
	f.Mutants += n
	f.Blocked += blocked
	if s != nil {
		f.Survivors = append(f.Survivors, *s)
	}
}

// mutate fires the mutants of the blocked payloads a passing case fired.
// Each payload's spellings share the cap (Mutants.PerCase) in turn (the first
// spelling of each, then the second...). A payload the case fired first is
// blocked whatever came before it: its mutants go through one fresh engine,
// each under a session id of its own, so that what a policy keeps per
// session (counters, repeats) cannot block one mutant for another's sake.
// A payload fired after others may owe its block to them: each of its
// mutants gets a fresh engine that first replays the case's payloads before
// it.
func (tf *testFile) mutate(ctx context.Context, name string) error {
	type target struct {
		at          int
		field, call string
		muts        []mutant
	}
	limit := tf.opts.Mutants.PerCase
	if limit <= 0 || limit > MaxMutantsPerCase {
		limit = MaxMutantsPerCase
	}
	var targets []*target
	for i, f := range tf.fired {
		if !f.blocked {
			continue
		}
		field, call, muts := spellings(f.in, limit)
		if len(muts) > 0 {
			targets = append(targets, &target{at: i, field: field, call: call, muts: muts})
		}
	}
	if len(targets) == 0 {
		return nil
	}
	// Share the cap: the first spellings of every payload first.
	take := make([]int, len(targets))
	for n := 0; n < limit; {
		more := false
		for i, t := range targets {
			if take[i] < len(t.muts) && n < limit {
				take[i]++
				n++
				more = true
			}
		}
		if !more {
			break
		}
	}
	total, blocked := 0, 0
	var surv *Survivor
	for i, t := range targets {
		var shared *engine.Engine // the mutants of a first call
		for k, m := range t.muts[:take[i]] {
			ok, err := tf.fireMutant(ctx, t.at, k, m, &shared)
			if err != nil {
				if shared != nil {
					shared.Close()
				}
				return err
			}
			total++
			if ok {
				blocked++
				continue
			}
			if surv == nil {
				surv = &Survivor{Case: name, Tool: m.in.ToolName, Field: t.field, Call: t.call, Mutant: m.spelling}
			}
			surv.Passed++
		}
		if shared != nil {
			shared.Close()
		}
	}
	if surv != nil {
		surv.Mutants = total
	}
	tf.count(total, blocked, surv)
	return nil
}

// fireMutant fires the k-th mutant of the case's payload at index at and
// reports whether it was blocked, within the time a case has. The mutants
// of the first payload share *shared, opened for the first of them, each
// under a session id of its own; those of a later one each get an engine
// that replays the payloads before it.
func (tf *testFile) fireMutant(ctx context.Context, at, k int, m mutant, shared **engine.Engine) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, tf.opts.Timeout)
	defer cancel()
	in := m.in
	eng := *shared
	if eng == nil {
		e, err := tf.openCase(ctx, false)
		if err != nil {
			return false, err
		}
		if at == 0 {
			*shared = e
		} else {
			defer e.Close()
			for _, prev := range tf.fired[:at] {
				if _, err := tf.fireOn(ctx, e, prev.in); err != nil {
					return false, err
				}
			}
		}
		eng = e
	}
	if at == 0 {
		c := *in
		c.SessionID = in.SessionID + "-mutant-" + strconv.Itoa(k+1)
		in = &c
	}
	res, err := tf.fireOn(ctx, eng, in)
	if err != nil {
		return false, err
	}
	return blocks(&res), nil
}

// fireOn fires a recorded payload at eng, through the agent's wire format
// when the run has one.
func (tf *testFile) fireOn(ctx context.Context, eng *engine.Engine, in *luahook.Input) (engine.Result, error) {
	c := *in
	send := &c
	if tf.opts.Agent != "" {
		var err error
		if send, err = viaAgent(agent.Name(tf.opts.Agent), &c); err != nil {
			return engine.Result{}, fmt.Errorf("mutants: %w", err)
		}
	}
	res := eng.Runner().Fire(ctx, send)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("mutants: %w", err)
	}
	return res, nil
}
