package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/termtext"
)

// Render writes the explanation for a person: a heading, then per hook in
// run order its place, name, kind, stage and source, whether it matched
// and why, what it did (or why it did not run) and a line per call it made
// to its session's ledger (what it read or wrote, and what it found), then
// the calls no hook of the list made, the decision and the hook that
// decided. luahook explain and the REPL's :explain print it.
// Text that came from hooks, their files or the payload is escaped for a
// terminal (termtext.Line).
//
//	PreToolUse, tool name "bash": 3 hooks in run order
//	  1. rewrite (lua, mutate, hooks.d/10-hooks.lua:1)
//	       matched      tool name "bash" is in the list bash
//	       ran 212µs    mutate: {"command":"pnpm add x"}
//	       ledger       has private-data -> marked 12:03:04 (read ~/.ssh/id_rsa)
//	  ...
//	decision: deny: pnpm is not allowed either
//	decided by: no-pnpm (hooks.d/10-hooks.lua:11)
func (x Explanation) Render(w io.Writer) error {
	var b strings.Builder
	b.WriteString(x.heading())
	for _, h := range x.Hooks {
		b.WriteString(h.lines())
	}
	for _, e := range x.unattached {
		who := "a hook that did not name itself"
		if e.Hook != "" {
			who = quoted(e.Hook)
		}
		fmt.Fprintf(&b, "ledger (%s): %s\n", termtext.Line(who), termtext.Line(e.String()))
	}
	fmt.Fprintf(&b, "decision: %s\n", termtext.Line(decisionInWords(x.Result)))
	fmt.Fprintf(&b, "decided by: %s\n", termtext.Line(x.decider()))
	_, err := io.WriteString(w, b.String())
	return err
}

func (x Explanation) heading() string {
	if x.Event == "" {
		return "no payload\n"
	}
	what := string(x.Event)
	switch {
	case x.Key != "" && (x.Event == luahook.PreToolUse || x.Event == luahook.PostToolUse):
		what += ", tool name " + quoted(x.Key)
	case x.Key != "":
		what += ", key " + quoted(x.Key)
	}
	n := fmt.Sprintf("%d hooks in run order", len(x.Hooks))
	switch len(x.Hooks) {
	case 0:
		n = "no hooks registered"
	case 1:
		n = "1 hook"
	}
	if x.PolicyOnly {
		n += " (policy-only: only hooks marked policy run)"
	}
	return termtext.Line(what+": "+n) + "\n"
}

// lines are one hook's lines: the hook, whether it matched and why, and
// what it did.
func (h HookExplanation) lines() string {
	var b strings.Builder
	about := string(h.Kind)
	if h.Stage != "" {
		about += ", " + string(h.Stage)
	}
	if h.Source != "" {
		about += ", " + h.Source
	}
	if h.Policy {
		about += ", policy"
	}
	place := "  "
	if h.Order > 0 {
		place = fmt.Sprintf("%d.", h.Order)
	}
	fmt.Fprintf(&b, "  %s %s (%s)\n", place, termtext.Line(h.Name), termtext.Line(about))
	row := func(label, text string) {
		fmt.Fprintf(&b, "       %-12s %s\n", label, termtext.Line(text))
	}
	if h.Matched {
		row("matched", h.Why)
	} else {
		row("not matched", h.Why)
	}
	switch {
	case h.NotRun != "":
		row("not run", h.NotRun)
	case h.Trace != nil && h.Trace.Skipped == SkipPolicyOnly:
		row("gated", "--no-hooks: only hooks marked policy run, and this one is not; not called")
	case h.Trace != nil && h.Trace.Skipped != "" && h.Trace.Skipped != SkipValidatorMutation:
		row("skipped", h.Trace.Skipped)
	case h.Trace != nil:
		label := "ran " + h.Trace.Duration.Round(time.Microsecond).String()
		if h.Decided {
			row(label, h.Trace.status(false)+"  <- decided")
		} else {
			row(label, h.Trace.status(false))
		}
	case h.Gated && h.Matched:
		row("gated", "--no-hooks: only hooks marked policy run, and this one is not")
	}
	for _, e := range h.Ledger {
		row("ledger", e.String())
	}
	return b.String()
}

// decisionInWords says what the result decided.
func decisionInWords(r Result) string {
	var parts []string
	switch {
	case r.Denied():
		parts = append(parts, "deny: "+r.Reason)
	case r.Asked():
		parts = append(parts, "ask: "+r.Reason)
	case r.Continues():
		parts = append(parts, "continue: "+r.Reason)
	case r.Allowed():
		parts = append(parts, "allow (an explicit allow)")
	}
	if r.Input != nil && !r.Denied() {
		parts = append(parts, "mutate: "+string(r.Input))
	}
	if w := r.Output; w != nil {
		parts = append(parts, "replace_output: "+outputInWords(w))
	}
	if a := r.Approval; a != nil {
		parts = append(parts, approvalInWords(a))
	}
	if r.AdditionalContext != "" {
		parts = append(parts, "context: "+firstLine(r.AdditionalContext))
	}
	if len(parts) == 0 {
		return "no objection"
	}
	return strings.Join(parts, "; ")
}

// decider names the hook that decided, with its source.
func (x Explanation) decider() string {
	if x.Result.DecidedBy == "" {
		if x.Result.Denied() {
			return "no hook (luahook refused the payload or could not decide)"
		}
		return "no hook"
	}
	for _, h := range x.Hooks {
		if h.Decided && h.Source != "" {
			return quoted(h.Name) + " (" + h.Source + ")"
		}
	}
	return quoted(x.Result.DecidedBy)
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

// outputInWords says how the tool's output was rewritten: what was taken
// out and the first line of what the model reads.
func outputInWords(w *luahook.OutputRewrite) string {
	var b strings.Builder
	for i, x := range w.Withheld {
		if i > 0 {
			b.WriteString(", ")
		} else {
			b.WriteString("took out ")
		}
		b.WriteString(x.Label)
		if x.Count > 1 {
			fmt.Fprintf(&b, " (%d times)", x.Count)
		}
	}
	if w.Replaced {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("replaced")
	}
	if b.Len() > 0 {
		b.WriteString("; ")
	}
	fmt.Fprintf(&b, "the model reads %d bytes: %s", len(w.Content), luahook.TruncateChars(firstLine(w.Content), 120))
	return b.String()
}

// approvalInWords says what became of a web approval: who decided and
// why, or that no one did.
func approvalInWords(a *Approval) string {
	s := "web approval " + a.Verdict
	if a.By != "" {
		s += " by " + a.By
	}
	if !a.At.IsZero() {
		s += " at " + a.At.UTC().Format(time.RFC3339)
	}
	if a.Reason != "" {
		s += ": " + firstLine(a.Reason)
	}
	return s
}
