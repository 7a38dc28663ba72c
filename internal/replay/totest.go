package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/luahook/luahook"
)

// testReasonChars is how much of a reason an expectation asks for: its
// first line, cut here, so that the case reads well.
const testReasonChars = 120

// TestWriter writes replayed records as a policy test file (*_test.lua, see
// package policytest): one case per record, firing the logged payload and
// expecting the decision the hooks made on replay. Cases are written as
// they are added; nothing is held but the writer's buffer.
type TestWriter struct {
	w       *bufio.Writer
	started bool
	n       int
}

// NewTestWriter returns a TestWriter on w; source names the log in the
// file's header.
func NewTestWriter(w io.Writer, source string) *TestWriter {
	tw := &TestWriter{w: bufio.NewWriter(w)}
	fmt.Fprintf(tw.w, `-- Written by luahook replay from %s (luahook %s).
-- One case per logged event: the logged payload, fired again, and the decision
-- the hooks made on it when this file was written. Each case runs on a fresh
-- engine, so a decision that depended on what earlier events left in the
-- store (a rate limit) may need a case of its own. Run: luahook test FILE
`, luaComment(source), luaComment(luahook.Version))
	return tw
}

// Add writes the case of one replayed record. A payload that has no Lua
// form (a number out of range, nesting too deep) is an error naming the
// record's line, and nothing is written for it.
func (tw *TestWriter) Add(r *Replayed) error {
	payload, err := payloadLiteral(r)
	if err != nil {
		return &LineError{r.Line, fmt.Errorf("cannot be written as a test: %w", err)}
	}
	var b strings.Builder
	rec := r.Record
	name := fmt.Sprintf("line %d: %s", r.Line, rec.Event)
	if r.Input.ToolName != "" {
		name += " " + r.Input.ToolName
	}
	if s := r.Summary(); s != "" {
		name += ": " + s
	}
	fmt.Fprintf(&b, "\n-- line %d, %s", r.Line, rec.Time.UTC().Format(time.RFC3339Nano))
	if rec.SessionID != "" {
		fmt.Fprintf(&b, ", session %s", luaComment(rec.SessionID))
	}
	fmt.Fprintf(&b, "; logged: %s", luaComment(describe(rec.Decision, "", nil)))
	if r.Changed() {
		fmt.Fprintf(&b, "; changed on replay (%s)", strings.Join(r.Changes, ", "))
	}
	b.WriteByte('\n')
	if len(rec.Masked) > 0 {
		fmt.Fprintf(&b, "-- the log masked %s: this is the masked payload\n", luaComment(strings.Join(rec.Masked, ", ")))
	}
	b.WriteString("test(")
	b.Write(AppendLuaString(nil, name))
	b.WriteString(", function()\n  local r = fire(")
	b.Write(AppendLuaString(nil, string(rec.Event)))
	b.WriteString(", ")
	b.WriteString(payload)
	b.WriteString(")\n")
	if err := expectations(&b, r); err != nil {
		return &LineError{r.Line, fmt.Errorf("cannot be written as a test: %w", err)}
	}
	b.WriteString("end)\n")
	tw.n++
	_, err = tw.w.WriteString(b.String())
	return err
}

// Close flushes the file; it does not close the underlying writer.
func (tw *TestWriter) Close() error { return tw.w.Flush() }

// Cases returns how many cases were written.
func (tw *TestWriter) Cases() int { return tw.n }

// payloadLiteral returns the record's payload as the table fire takes:
// every field of the logged input but the event, which fire is given.
func payloadLiteral(r *Replayed) (string, error) {
	in := *r.Input
	in.Event = ""
	raw, err := json.Marshal(&in)
	if err != nil {
		return "", err
	}
	return LuaLiteral(dropEventKey(raw), "  ")
}

// dropEventKey removes the leading "event":"" of a marshalled Input
// (Event is its first field, written even when empty).
func dropEventKey(raw []byte) []byte {
	const empty = `{"event":"",`
	if strings.HasPrefix(string(raw), empty) {
		return append([]byte{'{'}, raw[len(empty):]...)
	}
	if string(raw) == `{"event":""}` {
		return []byte("{}")
	}
	return raw
}

// expectations writes the assertions of today's decision.
func expectations(b *strings.Builder, r *Replayed) error {
	res, after := &r.Result, r.After
	reason := reasonSnippet(after.Reason)
	switch after.Action {
	case luahook.ActionDeny:
		fmt.Fprintf(b, "  expect.denied(r, %s)\n", AppendLuaString(nil, reason))
	case luahook.ActionMutate:
		lit, err := LuaLiteral(res.Input, "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  expect.mutated(r, %s)\n", lit)
	case luahook.ActionAsk:
		if failed := failures(r); failed != "" {
			// expect.asked fails when a hook failed: say what happens.
			fmt.Fprintf(b, "  -- asked although %s\n", luaComment(failed))
			b.WriteString("  expect.eq(r.verdict, \"ask\")\n")
			fmt.Fprintf(b, "  expect.contains(r.reason, %s)\n", AppendLuaString(nil, reason))
		} else {
			fmt.Fprintf(b, "  expect.asked(r, %s)\n", AppendLuaString(nil, reason))
		}
	case luahook.ActionContinue:
		fmt.Fprintf(b, "  expect.eq(r.outcome.action, %s)\n", AppendLuaString(nil, string(after.Action)))
		fmt.Fprintf(b, "  expect.contains(r.reason, %s)\n", AppendLuaString(nil, reason))
	case luahook.ActionAllow:
		if failed := failures(r); failed != "" {
			// expect.allowed fails when a hook failed: say what happens.
			fmt.Fprintf(b, "  -- allowed although %s\n", luaComment(failed))
			b.WriteString("  expect.eq(r.verdict, \"allow\")\n")
		} else {
			b.WriteString("  expect.allowed(r)\n")
		}
	default:
		if failed := failures(r); failed != "" {
			// expect.no_objection fails when a hook failed: say what happens.
			fmt.Fprintf(b, "  -- no objection although %s\n", luaComment(failed))
			b.WriteString("  expect.eq(r.verdict, \"none\")\n")
		} else {
			b.WriteString("  expect.no_objection(r)\n")
		}
	}
	if ctx := reasonSnippet(res.AdditionalContext); ctx != "" {
		fmt.Fprintf(b, "  expect.context(r, %s)\n", AppendLuaString(nil, ctx))
	}
	return nil
}

// failures names the hooks that failed in a result, "" when none did.
func failures(r *Replayed) string {
	var names []string
	for _, t := range r.Result.Trace {
		if t.Failure != nil {
			names = append(names, fmt.Sprintf("hook %s failed (%s)", t.Name, t.Failure.Kind))
		}
	}
	return strings.Join(names, ", ")
}

// reasonSnippet returns the part of a reason an expectation asks for: its
// first line, cut to testReasonChars characters.
func reasonSnippet(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return luahook.TruncateChars(s, testReasonChars)
}
