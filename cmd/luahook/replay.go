package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/replay"
	"github.com/luahook/luahook/internal/termtext"
)

type replayOptions struct {
	json    bool
	toTest  string
	changed bool
	event   string
	since   string
	until   string
	limit   int
	reasons bool
	// maskedChanges counts a change on a masked payload as a change.
	maskedChanges bool
}

func newReplayCmd(g *globalOptions, s *streams) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay LOG",
		Short: "Re-run a decision log's events against the hooks and print the decisions that change",
		Long: `replay reads a decision log (one JSON record per line; LOG "-" is standard
input), fires each record's payload at the hooks (--dir, --config, as fire
loads them) and prints every decision that would change: where the event is
in the log, what it was, the decision before and after, and the hook that
decides now. Then the summary line "N events replayed, M changed, K
unreadable".

A change is a change of action (deny, ask, allow, mutate, continue, none)
or, for the same mutate or ask, of the rewritten input (compared as JSON
values). A change of reason alone counts only with --reasons: reasons often
carry variable text. Records are replayed one after another, in log order,
on one engine: what a session's events leave in the store is there for the
next ones, as it was when they were logged. A record whose payload the log
masked replays the masked payload: a change on it is listed, with a note, and
counted as inconclusive, not as a change (a policy that looks for the secret
the log took out cannot find it); --masked-changes counts it as a change.

Exit status 0 when no decision changed, 1 when any did, 2 when the log has a
line that is not a record (each is reported with its line number and the
replay goes on), when a hook file or the config does not load (a broken
folder would not decide as it is written), and on bad usage. So CI can gate
a policy change on yesterday's real traffic:

  luahook replay --dir hooks.d decisions.jsonl

--to-test FILE writes the replayed events (--changed: only those that
changed) as a policy test file, one case per event, expecting the decision
the hooks make today; name it *_test.lua in the hooks folder and run luahook
test. "-" writes it on standard output, and the report on standard error.`,
		Example: `  luahook replay --dir hooks.d decisions.jsonl
  luahook replay decisions.jsonl --event PreToolUse --since 24h --json
  luahook replay decisions.jsonl --changed --to-test hooks.d/replayed_test.lua`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(errors.New("replay takes one LOG (a file, or - for standard input)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, g, s, o, args[0])
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(fmt.Errorf("%w (see: %s --help)", err, c.CommandPath()))
	})
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print one JSON object per changed decision (and per unreadable line), then the summary")
	f.StringVar(&o.toTest, "to-test", "", "write the replayed events as a *_test.lua file (- for standard output)")
	f.BoolVar(&o.changed, "changed", false, "with --to-test: only the events whose decision changed")
	f.StringVar(&o.event, "event", "", "replay only this event's records")
	f.StringVar(&o.since, "since", "", "replay only records from this time on: RFC 3339, a date (2006-01-02, UTC), or a duration ago (24h)")
	f.StringVar(&o.until, "until", "", "replay only records before this time (as --since)")
	f.IntVar(&o.limit, "limit", 0, "replay at most this many records")
	f.BoolVar(&o.reasons, "reasons", false, "count a change of reason alone as a change")
	f.BoolVar(&o.maskedChanges, "masked-changes", false, "count a changed decision on a payload the log masked as a change (default: inconclusive)")
	return cmd
}

// usageError is bad usage of replay: exit status 2, since 1 means that a
// decision changed.
func usageError(err error) error { return &exitError{code: 2, err: err} }

func runReplay(cmd *cobra.Command, g *globalOptions, s *streams, o *replayOptions, logPath string) error {
	ctx := cmd.Context()
	opts, err := o.replayOptions(time.Now())
	if err != nil {
		return usageError(err)
	}
	if o.changed && o.toTest == "" {
		return usageError(errors.New("--changed selects what --to-test writes: give --to-test too"))
	}
	if o.toTest != "" && o.toTest != "-" && !strings.HasSuffix(o.toTest, "_test.lua") {
		return usageError(fmt.Errorf("--to-test %s: name it *_test.lua, so that luahook test finds it", o.toTest))
	}
	if err := g.checkDir(); err != nil {
		return usageError(err)
	}
	var log io.Reader = s.in
	if logPath != "-" {
		f, err := openRegular(logPath)
		if err != nil {
			return usageError(fmt.Errorf("LOG: %w", err))
		}
		defer f.Close()
		log = f
	}
	logger, err := g.loggerFor("replay", s.err, false)
	if err != nil {
		return usageError(err)
	}
	eng, err := g.openWith(ctx, openOptions{logger: logger, needSomething: true})
	if err != nil {
		return usageError(err)
	}
	defer eng.Close()
	if problems := eng.Problems(); len(problems) > 0 {
		reportLoadErrors(s.err, problems)
		return &exitError{code: 2, err: fmt.Errorf("not replayed: %d load error(s); the hooks would not decide as they are written", len(problems))}
	}

	out, report := s.out, s.out
	written := false
	var tw *replay.TestWriter
	if o.toTest != "" {
		w := s.out
		if o.toTest == "-" {
			report = s.err
		} else {
			f, err := os.OpenFile(o.toTest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return usageError(fmt.Errorf("--to-test: %w (replay does not overwrite a file)", err))
			}
			defer f.Close()
			defer func() {
				if !written { // a file with part of the cases would pass for all of them
					os.Remove(o.toTest)
				}
			}()
			w = f
		}
		name := logPath
		if name == "-" {
			name = "standard input"
		}
		tw = replay.NewTestWriter(w, name)
		out = report
	}
	unreadable := func(le *replay.LineError) {
		if o.json {
			writeJSON(out, struct {
				Line  int    `json:"line"`
				Error string `json:"error"`
			}{le.Line, le.Err.Error()})
			return
		}
		fmt.Fprintf(s.err, "luahook: %s:%d: %s\n", termtext.Line(logPath), le.Line, termtext.Line(le.Err.Error()))
	}
	opts.Unreadable = unreadable
	skipped := 0
	sum, err := replay.Run(ctx, eng.Runner(), log, opts, func(r *replay.Replayed) error {
		if tw != nil && (!o.changed || r.Changed()) {
			var le *replay.LineError
			if err := tw.Add(r); errors.As(err, &le) {
				skipped++
				fmt.Fprintf(s.err, "luahook: %s:%d: %s\n", termtext.Line(logPath), le.Line, termtext.Line(le.Err.Error()))
			} else if err != nil {
				return fmt.Errorf("--to-test: %w", err)
			}
		}
		if !r.Changed() {
			return nil
		}
		if o.json {
			return writeJSON(out, r.JSON())
		}
		return r.WriteText(out)
	})
	if tw != nil {
		if cerr := tw.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--to-test: %w", cerr)
		}
	}
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("replay stopped after %s: %w", sum, err)}
	}
	written = true
	if o.json {
		writeJSON(out, struct {
			Summary replaySummary `json:"summary"`
		}{replaySummary(sum)})
	} else {
		fmt.Fprintln(out, sum)
	}
	if tw != nil && o.toTest != "-" {
		fmt.Fprintf(report, "%d test cases written to %s\n", tw.Cases(), o.toTest)
	}
	switch {
	case sum.Unreadable > 0 || skipped > 0:
		return &exitError{code: 2}
	case sum.Changed > 0:
		return &exitError{code: 1}
	}
	return nil
}

// replaySummary is replay.Summary's JSON form.
type replaySummary struct {
	Replayed     int `json:"replayed"`
	Changed      int `json:"changed"`
	Unreadable   int `json:"unreadable"`
	Inconclusive int `json:"inconclusive"`
	// LedgerInconclusive counts those of Inconclusive whose reads of the
	// session ledger differ from the logged ones.
	LedgerInconclusive int `json:"ledgerInconclusive,omitempty"`
}

func (o *replayOptions) replayOptions(now time.Time) (replay.Options, error) {
	opts := replay.Options{Limit: o.limit, Reasons: o.reasons, MaskedChanges: o.maskedChanges}
	if o.limit < 0 {
		return opts, fmt.Errorf("--limit %d: want a count (0: no limit)", o.limit)
	}
	if o.event != "" {
		ev, err := luahook.ParseEvent(o.event)
		if err != nil {
			return opts, fmt.Errorf("--event: %w", err)
		}
		opts.Event = ev
	}
	var err error
	if opts.Since, err = parseWhen("--since", o.since, now); err != nil {
		return opts, err
	}
	if opts.Until, err = parseWhen("--until", o.until, now); err != nil {
		return opts, err
	}
	return opts, nil
}

// parseWhen reads a time of --since or --until: RFC 3339, a date (UTC), or
// a duration before now.
func parseWhen(flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%s %q: want an RFC 3339 time (2006-01-02T15:04:05Z), a date (2006-01-02) or a duration ago (24h)", flag, s)
}
