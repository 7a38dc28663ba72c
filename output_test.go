package luahook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func span(start, end int) Redaction { return Redaction{Start: &start, End: &end} }

func TestParseOutcomeReadsOutputActions(t *testing.T) {
	o, err := ParseOutcome([]byte(`{"action":"redact","redact":[{"pattern":"ghp_[A-Za-z0-9]+","label":"a GitHub token"},{"text":"hunter2"},{"start":3,"end":7}],"reason":"secrets"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Action != ActionRedact || len(o.Redact) != 3 || o.Redact[0].Pattern == "" || o.Redact[1].Text != "hunter2" || *o.Redact[2].Start != 3 || *o.Redact[2].End != 7 {
		t.Fatalf("ParseOutcome = %+v", o)
	}
	o, err = ParseOutcome([]byte(`{"action":"replace_output","output":{"stdout":"x","stderr":""}}`))
	if err != nil || o.Action != ActionReplaceOutput || string(o.Output) != `{"stdout":"x","stderr":""}` {
		t.Fatalf("ParseOutcome = %+v, %v", o, err)
	}
}

func TestOutputOutcomesAreCheckedWhereTheyComeIn(t *testing.T) {
	many := make([]string, MaxRedactions+1)
	for i := range many {
		many[i] = `{"text":"x"}`
	}
	cases := []struct{ name, out, want string }{
		{"no list", `{"action":"redact"}`, "non-empty redact list"},
		{"not an array", `{"action":"redact","redact":{"text":"x"}}`, "must be an array"},
		{"a misspelt key", `{"action":"redact","redact":[{"patern":"x"}]}`, `unknown field "patern"`},
		{"two kinds", `{"action":"redact","redact":[{"text":"x","pattern":"y"}]}`, "only one of"},
		{"no kind", `{"action":"redact","redact":[{"label":"x"}]}`, "give one of"},
		{"a bad pattern", `{"action":"redact","redact":[{"pattern":"("}]}`, "missing closing )"},
		{"half a span", `{"action":"redact","redact":[{"start":1}]}`, "both start and end"},
		{"an empty span", `{"action":"redact","redact":[{"start":4,"end":4}]}`, "empty or negative"},
		{"too many", `{"action":"redact","redact":[` + strings.Join(many, ",") + `]}`, "at most 1024"},
		{"a long pattern", `{"action":"redact","redact":[{"pattern":"` + strings.Repeat("a", MaxRedactPatternBytes+1) + `"}]}`, "pattern longer than"},
		{"replace without output", `{"action":"replace_output"}`, "requires an output"},
		{"output without the action", `{"output":"x"}`, `output given without action "replace_output"`},
		{"redact without the action", `{"action":"deny","reason":"r","redact":[{"text":"x"}]}`, `redact given without action "redact"`},
		{"input with redact", `{"action":"redact","redact":[{"text":"x"}],"input":{}}`, `input given without action "mutate"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOutcome([]byte(c.out))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ParseOutcome(%.80s) error = %v, want %q", c.out, err, c.want)
			}
		})
	}
	for _, ev := range []Event{PreToolUse, UserPromptSubmit, Stop, SessionStart} {
		if err := Redact(Redaction{Text: "x"}).CheckEvent(ev); err == nil || !strings.Contains(err.Error(), "does not apply to "+string(ev)) {
			t.Errorf("redact on %s: %v, want refused", ev, err)
		}
		if err := ReplaceOutput(json.RawMessage(`"x"`)).CheckEvent(ev); err == nil {
			t.Errorf("replace_output on %s accepted", ev)
		}
	}
	if err := Redact(Redaction{Text: "x"}).CheckEvent(PostToolUse); err != nil {
		t.Errorf("redact on PostToolUse: %v", err)
	}
}

func finish(t *testing.T, c *OutputChain) *OutputRewrite {
	t.Helper()
	w, err := c.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestRedactionsReplaceEachMatchWithAMarkerThatSaysWhatWasThere(t *testing.T) {
	out := "token=ghp_AAAA1111 again ghp_BBBB2222; pass hunter2 end"
	c := NewOutputChain(out, 0)
	err := c.Apply(context.Background(), Redact(
		Redaction{Pattern: `ghp_[A-Za-z0-9]+`, Label: "a GitHub token"},
		Redaction{Text: "hunter2", Label: "a password"},
		span(0, 5), // "token": the text of the span, wherever it occurs
	), out)
	if err != nil {
		t.Fatal(err)
	}
	w := finish(t, c)
	want := "[redacted: a secret]=[redacted: a GitHub token] again [redacted: a GitHub token]; pass [redacted: a password] end"
	if w.Content != want {
		t.Fatalf("Content = %q\nwant      %q", w.Content, want)
	}
	if len(w.Withheld) != 3 || w.Withheld[0] != (Withheld{"a GitHub token", 2}) || w.Withheld[1] != (Withheld{"a password", 1}) {
		t.Fatalf("Withheld = %+v", w.Withheld)
	}
	if s := w.Summary(); !strings.Contains(s, "a GitHub token (2 times)") || strings.Contains(s, "ghp_") {
		t.Fatalf("Summary = %q", s)
	}
}

func TestAPatternThatMatchesNothingLeavesTheOutputTheTools(t *testing.T) {
	c := NewOutputChain("nothing here", 0)
	if err := c.Apply(context.Background(), Redact(Redaction{Pattern: `ghp_\w+`}, Redaction{Pattern: `x*`}), "nothing here"); err != nil {
		t.Fatal(err)
	}
	if w := finish(t, c); w != nil {
		t.Fatalf("an output nothing was taken out of was rewritten: %+v", w)
	}
}

func TestNoReplacementBringsBackWhatARedactionTookOut(t *testing.T) {
	out := "key AKIAIOSFODNN7EXAMPLE"
	c := NewOutputChain(out, 0)
	// the first hook redacts; the second saw the original (it ran in
	// parallel) and wraps it whole
	if err := c.Apply(context.Background(), Redact(Redaction{Pattern: `AKIA[0-9A-Z]{16}`, Label: "an AWS key"}), out); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(context.Background(), ReplaceOutput(json.RawMessage(`"<data>key AKIAIOSFODNN7EXAMPLE</data>"`)), out); err != nil {
		t.Fatal(err)
	}
	w := finish(t, c)
	if w.Content != "<data>key [redacted: an AWS key]</data>" || !w.Replaced {
		t.Fatalf("Content = %q (replaced %v)", w.Content, w.Replaced)
	}
}

func TestAReplacementInTheToolsShapeIsRedactedInsideAndKeepsItsShape(t *testing.T) {
	c := NewOutputChain("x", 0)
	ctx := context.Background()
	if err := c.Apply(ctx, Redact(Redaction{Text: "s3cr3t-value"}), "x"); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, ReplaceOutput(json.RawMessage(`{"stdout":"a s3cr3t-value b","stderr":"","n":1}`)), "x"); err != nil {
		t.Fatal(err)
	}
	w := finish(t, c)
	var v map[string]any
	if err := json.Unmarshal(w.Value, &v); err != nil {
		t.Fatal(err)
	}
	if v["stdout"] != "a [redacted: a secret] b" || v["n"] != 1.0 {
		t.Fatalf("Value = %s", w.Value)
	}
	got, err := w.ApplyJSON(json.RawMessage(`[{"type":"text","text":"s3cr3t-value!"}]`))
	if err != nil || string(got) != `[{"text":"[redacted: a secret]!","type":"text"}]` {
		t.Fatalf("ApplyJSON = %s, %v", got, err)
	}
}

func TestASpanPastTheOutputIsAnErrorNotAPanic(t *testing.T) {
	c := NewOutputChain("short", 0)
	err := c.Apply(context.Background(), Redact(span(2, 50)), "short")
	if err == nil || !strings.Contains(err.Error(), "past the end of the output (5 bytes)") {
		t.Fatalf("err = %v", err)
	}
}

func TestACutOutputIsRewrittenWhateverTheHooksSay(t *testing.T) {
	c := NewOutputChain("head"+CutMarker(99), 99)
	w := finish(t, c)
	if w == nil || !strings.HasSuffix(w.Content, "(99 bytes) was withheld: too large to scan]") || len(w.Withheld) != 1 {
		t.Fatalf("rewrite = %+v", w)
	}
}

func TestWithholdReplacesTheOutputAndSaysWhy(t *testing.T) {
	c := NewOutputChain("secret stuff", 0)
	c.Withhold(`the hook "x" failed`)
	w := finish(t, c)
	if w.Content != `[luahook withheld this output: the hook "x" failed]` || !w.Replaced {
		t.Fatalf("rewrite = %+v", w)
	}
}

func TestRedactionsWatchTheirContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := NewOutputChain("aaa", 0)
	if err := c.Apply(ctx, Redact(Redaction{Text: "a"}), "aaa"); err == nil {
		t.Fatal("a redaction ran on after its context ended")
	}
}

func TestMaskedOutcomesNeverCarryTheSecret(t *testing.T) {
	o := Redact(Redaction{Text: "ghp_supersecrettokenvalue"}, Redaction{Pattern: "x"})
	m := o.Masked()
	if m.Redact[0].Text != "ghp_…" || o.Redact[0].Text != "ghp_supersecrettokenvalue" || m.Redact[1].Pattern != "x" {
		t.Fatalf("Masked = %+v (original %+v)", m.Redact, o.Redact)
	}
	if d := DescribeOutput(o); strings.Contains(d, "supersecret") || !strings.Contains(d, "text ghp_…") {
		t.Fatalf("DescribeOutput = %q", d)
	}
}

// FuzzOutputChain: whatever a hook asks to take out of whatever output,
// the chain never panics, and no text it was asked to take out (a literal,
// a span's text) is left in the output outside the markers.
func FuzzOutputChain(f *testing.F) {
	f.Add("token ghp_abc and ghp_abc", "ghp_abc", `ghp_\w+`, 0, 5, "a token", "<wrap>")
	f.Add("[redacted: x] secret", "secret", `x`, 1, 3, "x", "")
	f.Add("ééé", "é", `.`, 1, 2, "", "")
	f.Fuzz(func(t *testing.T, out, text, pattern string, start, end int, label, wrap string) {
		var rs []Redaction
		if text != "" {
			rs = append(rs, Redaction{Text: text, Label: label})
		}
		if pattern != "" {
			rs = append(rs, Redaction{Pattern: pattern, Label: label})
		}
		if start >= 0 && end > start && end <= len(out) {
			rs = append(rs, Redaction{Start: &start, End: &end, Label: label})
		}
		if len(rs) == 0 {
			return
		}
		o := Redact(rs...)
		if o.Validate() != nil {
			return
		}
		c := NewOutputChain(out, 0)
		if err := c.Apply(context.Background(), o, out); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if wrap != "" {
			raw, _ := json.Marshal(wrap + out + wrap)
			if err := c.Apply(context.Background(), ReplaceOutput(raw), out); err != nil {
				t.Fatalf("Apply replace: %v", err)
			}
		}
		w, err := c.Finish(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if w == nil {
			return
		}
		outside := w.Content
		for _, e := range w.edits {
			outside = strings.ReplaceAll(outside, e.marker, "\x00")
		}
		for _, r := range rs {
			lit := r.Text
			if r.Start != nil {
				lit = out[*r.Start:*r.End]
			}
			if lit != "" && !strings.Contains(lit, "\x00") && strings.Contains(outside, lit) {
				t.Fatalf("%q is left in the output %q", lit, w.Content)
			}
		}
	})
}
