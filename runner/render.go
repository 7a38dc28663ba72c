package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/termtext"
)

// TraceOptions say how RenderTrace writes a trace. The zero value writes
// lines without indent and outcomes in words.
type TraceOptions struct {
	// Indent starts every line.
	Indent string
	// OutcomeJSON shows an outcome as the JSON the hook returned (HTML
	// characters as they are) rather than in words: "deny: reason",
	// "mutate: {…}", "allow", "context: its first line".
	OutcomeJSON bool
}

// RenderTrace writes r's trace for a person: one line per hook
// (HookTrace.Line), or "(no hook matched)" when no hook matched. luahook
// fire --trace, the demo and the REPL's :trace print it.
func (r Result) RenderTrace(w io.Writer, opts TraceOptions) error {
	if len(r.Trace) == 0 {
		_, err := fmt.Fprintf(w, "%s(no hook matched)\n", opts.Indent)
		return err
	}
	for i := range r.Trace {
		if _, err := fmt.Fprintln(w, r.Trace[i].Line(opts)); err != nil {
			return err
		}
	}
	return nil
}

// String returns the hook's trace line with the zero TraceOptions.
func (t HookTrace) String() string { return t.Line(TraceOptions{}) }

// Line returns the hook's trace line: kind, name, stage ("-" when it has
// none), duration and what it did ("failed (kind): message", "skipped:
// why", its outcome, or "no objection"), in columns; a shadow hook's status
// starts with "[shadow] " (its outcome was not enforced). Text that came
// from the hook or its files is escaped for a terminal (termtext.Line).
func (t HookTrace) Line(opts TraceOptions) string {
	stage := string(t.Stage)
	if stage == "" {
		stage = "-"
	}
	mark := ""
	if t.Mode == luahook.ModeShadow {
		mark = "[shadow] "
	}
	return fmt.Sprintf("%s%-7s %-24s %-8s %9s  %s%s", opts.Indent, t.Kind, termtext.Line(t.Name), stage,
		t.Duration.Round(time.Microsecond), mark, termtext.Line(t.status(opts.OutcomeJSON)))
}

// status says what the hook did.
func (t HookTrace) status(outcomeJSON bool) string {
	switch {
	case t.Failure != nil:
		return "failed (" + string(t.Failure.Kind) + "): " + t.Failure.Message
	case t.Skipped != "":
		return "skipped: " + t.Skipped
	case t.Outcome != nil && outcomeJSON:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t.Outcome.Masked()); err != nil {
			return "outcome not shown: " + err.Error()
		}
		return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	case t.Outcome != nil:
		return outcomeInWords(t.Outcome)
	}
	return "no objection"
}

// firstLine returns the first line of a hook's context, with " …" when
// more lines follow.
func firstLine(context string) string {
	first, _, more := strings.Cut(context, "\n")
	if more {
		first += " …"
	}
	return first
}

// outcomeInWords says what an outcome asks for: its action and the first
// line of its context.
func outcomeInWords(o *luahook.Outcome) string {
	var parts []string
	switch o.Action {
	case luahook.ActionDeny:
		parts = append(parts, "deny: "+o.Reason)
	case luahook.ActionMutate:
		parts = append(parts, "mutate: "+string(o.Input))
	case luahook.ActionAllow:
		parts = append(parts, "allow")
	case luahook.ActionAsk:
		parts = append(parts, "ask: "+o.Reason)
		if o.Input != nil {
			parts = append(parts, "mutate: "+string(o.Input))
		}
	case luahook.ActionContinue:
		parts = append(parts, "continue: "+o.Reason)
	case luahook.ActionRedact, luahook.ActionReplaceOutput:
		parts = append(parts, luahook.DescribeOutput(o))
	}
	if o.AdditionalContext != "" {
		parts = append(parts, "context: "+firstLine(o.AdditionalContext))
	}
	if len(parts) == 0 {
		return "no objection"
	}
	return strings.Join(parts, "; ")
}

// FailureLine names the hook, its source, the failure's kind and message
// (cut to luahook.MaxReasonChars characters) when the hook failed:
//
//	hook "no-rm" (hooks.d/10-no-rm.lua:3) failed (timeout): …
//
// and "shadow hook" for a shadow hook, whose failure decided nothing. It
// returns "" when the hook did not fail. The text is as the hook gave it:
// escape it for a terminal.
func (t HookTrace) FailureLine() string {
	if t.Failure == nil {
		return ""
	}
	what := "hook"
	if t.Mode == luahook.ModeShadow {
		what = "shadow hook"
	}
	return fmt.Sprintf("%s %q (%s) failed (%s): %s", what, t.Name, t.Source, t.Failure.Kind, luahook.TruncateReason(t.Failure.Message))
}
