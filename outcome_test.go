package luahook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseOutcome(t *testing.T) {
	cases := []struct {
		name, in string
		want     *Outcome // nil with wantErr "" = no objection
		wantErr  string   // substring of an invalid_output failure
	}{
		{"empty output means no objection", "", nil, ""},
		{"white space means no objection", " \n\t", nil, ""},
		{"empty object means no objection", "{}", nil, ""},
		{"explicit allow", `{"action":"allow"}`, &Outcome{Action: ActionAllow}, ""},
		{"deny with reason", `{"action":"deny","reason":"no rm"}`, &Outcome{Action: ActionDeny, Reason: "no rm"}, ""},
		{"deny without reason is invalid", `{"action":"deny"}`, nil, "non-empty reason"},
		{"deny with blank reason is invalid", `{"action":"deny","reason":"  "}`, nil, "non-empty reason"},
		{"mutate with object", `{"action":"mutate","input":{"a":1}}`, &Outcome{Action: ActionMutate, Input: []byte(`{"a":1}`)}, ""},
		{"mutate without input is invalid", `{"action":"mutate"}`, nil, "object input"},
		{"mutate with array is invalid", `{"action":"mutate","input":[1]}`, nil, `"input" must be an object`},
		{"mutate with null input is invalid", `{"action":"mutate","input":null}`, nil, "object input"},
		{"unknown action block is invalid", `{"action":"block"}`, nil, `unknown hook action "block"`},
		{"empty action is invalid", `{"action":""}`, nil, `unknown hook action ""`},
		{"legacy block", `{"decision":"block","reason":" rm "}`, &Outcome{Action: ActionDeny, Reason: "rm"}, ""},
		{"legacy block without reason gets a default", `{"decision":"block"}`, &Outcome{Action: ActionDeny, Reason: DefaultBlockReason}, ""},
		{"legacy block wins over modifiedInput", `{"decision":"block","modifiedInput":{"a":1}}`, &Outcome{Action: ActionDeny, Reason: DefaultBlockReason}, ""},
		{"legacy allow", `{"decision":"allow"}`, &Outcome{Action: ActionAllow}, ""},
		{"legacy modifiedInput", `{"modifiedInput":{"a":2},"reason":"r"}`, &Outcome{Action: ActionMutate, Reason: "r", Input: []byte(`{"a":2}`)}, ""},
		{"legacy unknown decision is invalid", `{"decision":"deny"}`, nil, `unknown decision "deny"`},
		{"context only", `{"additionalContext":"hi","contextAs":"separate"}`, &Outcome{AdditionalContext: "hi", ContextAs: ContextSeparate}, ""},
		{"unknown contextAs is invalid", `{"additionalContext":"hi","contextAs":"aside"}`, nil, `unknown contextAs "aside"`},
		{"mistyped reason is invalid", `{"action":"deny","reason":5}`, nil, `"reason" must be a string`},
		{"unknown keys are ignored", `{"action":"allow","extra":[1,2]}`, &Outcome{Action: ActionAllow}, ""},
		{"not an object", `[{"action":"deny"}]`, nil, "not a JSON object"},
		{"a bare string", `"deny"`, nil, "not a JSON object"},
		{"trailing garbage", `{"action":"allow"} x`, nil, "not valid outcome JSON"},
		{"truncated JSON", `{"action":"deny","reason":"cut`, nil, "not valid outcome JSON"},
		{"input without mutate is invalid", `{"input":{"a":1}}`, nil, "without action"},
		{"ask with reason", `{"action":"ask","reason":"force push?"}`, &Outcome{Action: ActionAsk, Reason: "force push?"}, ""},
		{"ask with a rewrite", `{"action":"ask","reason":"r","input":{"a":1}}`, &Outcome{Action: ActionAsk, Reason: "r", Input: []byte(`{"a":1}`)}, ""},
		{"ask without reason is invalid", `{"action":"ask"}`, nil, "ask outcome requires a non-empty reason"},
		{"ask with blank reason is invalid", `{"action":"ask","reason":" "}`, nil, "ask outcome requires a non-empty reason"},
		{"ask with an array input is invalid", `{"action":"ask","reason":"r","input":[1]}`, nil, `"input" must be an object`},
		{"continue with reason", `{"action":"continue","reason":"run the tests"}`, &Outcome{Action: ActionContinue, Reason: "run the tests"}, ""},
		{"continue without reason is invalid", `{"action":"continue"}`, nil, "continue outcome requires a non-empty reason"},
		{"continue with input is invalid", `{"action":"continue","reason":"r","input":{}}`, nil, "without action"},
		{"an unknown action names the seven", `{"action":"halt"}`, nil, `unknown hook action "halt" (want allow, deny, ask, mutate, continue, redact or replace_output)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseOutcome([]byte(c.in))
			if c.wantErr != "" {
				var f *Failure
				if !errors.As(err, &f) || f.Kind != FailInvalidOutput || !strings.Contains(f.Message, c.wantErr) {
					t.Fatalf("ParseOutcome(%s) = %v, %v; want invalid_output containing %q", c.in, got, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseOutcome(%s): %v", c.in, err)
			}
			if (got == nil) != (c.want == nil) || got != nil && (got.Action != c.want.Action || got.Reason != c.want.Reason ||
				string(got.Input) != string(c.want.Input) || got.AdditionalContext != c.want.AdditionalContext || got.ContextAs != c.want.ContextAs) {
				t.Fatalf("ParseOutcome(%s) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}
}

func TestValidateGoOutcomes(t *testing.T) {
	bad := map[string]*Outcome{
		"deny without reason":     {Action: ActionDeny},
		"mutate without input":    {Action: ActionMutate},
		"mutate with array":       {Action: ActionMutate, Input: []byte(`[1]`)},
		"mutate with broken JSON": {Action: ActionMutate, Input: []byte(`{"a":`)},
		"unknown action":          {Action: "block"},
		"input without mutate":    {Action: ActionAllow, Input: []byte(`{}`)},
		"ask without reason":      {Action: ActionAsk},
		"ask with array input":    {Action: ActionAsk, Reason: "r", Input: []byte(`[1]`)},
		"continue without reason": {Action: ActionContinue, Reason: "\t"},
		"continue with input":     {Action: ActionContinue, Reason: "r", Input: []byte(`{}`)},
	}
	for name, o := range bad {
		var f *Failure
		if err := o.Validate(); !errors.As(err, &f) || f.Kind != FailInvalidOutput {
			t.Errorf("%s: Validate() = %v, want invalid_output", name, err)
		}
	}
	for _, o := range []*Outcome{nil, {}, Allow(), Deny("x"), Mutate([]byte(`{}`)), Context("c"), Ask("x"), Continue("x"),
		{Action: ActionAsk, Reason: "x", Input: []byte(`{"a":1}`)}} {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", o, err)
		}
	}
}

func TestCheckEventAcceptsAskOnPreToolUseAndContinueOnStopOnly(t *testing.T) {
	for _, ev := range Events() {
		for _, o := range []*Outcome{nil, {}, Allow(), Deny("x"), Mutate([]byte(`{}`)), Context("c"), Ask("x"), Continue("x")} {
			err := o.CheckEvent(ev)
			ok := o == nil || o.Action != ActionAsk && o.Action != ActionContinue ||
				o.Action == ActionAsk && ev == PreToolUse || o.Action == ActionContinue && ev == Stop
			if ok != (err == nil) {
				t.Errorf("%+v on %s: CheckEvent = %v", o, ev, err)
			}
			var f *Failure
			if err != nil && (!errors.As(err, &f) || f.Kind != FailInvalidOutput) {
				t.Errorf("%+v on %s: CheckEvent = %v, want invalid_output", o, ev, err)
			}
		}
	}
	for _, c := range []struct {
		o    *Outcome
		ev   Event
		want string
	}{
		{Ask("x"), UserPromptSubmit, `action "ask" does not apply to UserPromptSubmit (UserPromptSubmit accepts allow, deny or mutate)`},
		{Ask("x"), Stop, `action "ask" does not apply to Stop (Stop accepts allow, deny, mutate or continue)`},
		{Continue("x"), PreToolUse, `action "continue" does not apply to PreToolUse (PreToolUse accepts allow, deny, ask or mutate)`},
		{Continue("x"), SubagentStop, `action "continue" does not apply to SubagentStop (SubagentStop accepts allow, deny or mutate)`},
	} {
		if err := c.o.CheckEvent(c.ev); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: CheckEvent = %v, want %q", c.o.Action, c.ev, err, c.want)
		}
	}
}

func TestTruncateReasonKeepsWholeCharacters(t *testing.T) {
	s := strings.Repeat("é€😀", 2000) // 6,000 characters of 2, 3 and 4 bytes
	got := TruncateReason(s)
	if n := utf8.RuneCountInString(got); n != MaxReasonChars {
		t.Fatalf("got %d characters, want %d", n, MaxReasonChars)
	}
	if !utf8.ValidString(got) || !strings.HasPrefix(s, got) {
		t.Fatal("truncation split a character")
	}
	if TruncateReason("short") != "short" {
		t.Fatal("short reason changed")
	}
}

func TestContextIsCutToMaxContextCharsWithAMarker(t *testing.T) {
	at := strings.Repeat("é€😀", MaxContextChars/3) + "x" // exactly the cap
	if utf8.RuneCountInString(at) != MaxContextChars || TruncateContext(at) != at {
		t.Fatal("a context at the cap was changed")
	}
	got := TruncateContext(at + "y")
	if n := utf8.RuneCountInString(got); n != MaxContextChars {
		t.Fatalf("one past the cap: %d characters, want %d", n, MaxContextChars)
	}
	head, cut := CutContext(at + "y")
	if !cut || got != head+ContextCutMarker || !utf8.ValidString(got) || !strings.HasPrefix(at, head) {
		t.Fatalf("one past the cap: cut %v, ends %q; want whole characters then the marker", cut, got[len(got)-80:])
	}
	if TruncateContext(got) != got {
		t.Fatal("cutting a cut context changed it")
	}
	if !strings.Contains(ContextCutMarker, fmt.Sprint(MaxContextChars)) {
		t.Fatalf("the marker %q does not name MaxContextChars (%d)", ContextCutMarker, MaxContextChars)
	}
}

func TestEvents(t *testing.T) {
	seen := map[int]bool{}
	for _, e := range Events() {
		i := e.Index()
		if i < 0 || i >= NumEvents || seen[i] {
			t.Fatalf("%s: index %d", e, i)
		}
		seen[i] = true
	}
	if len(seen) != NumEvents {
		t.Fatal("missing events")
	}
	if _, err := ParseEvent("pretooluse"); err == nil || !strings.Contains(err.Error(), "PreToolUse") {
		t.Fatalf("event names are case-sensitive and the error lists them: %v", err)
	}
	if !Notification.Observational() || Stop.Observational() {
		t.Fatal("observational")
	}
}

func TestMatchKey(t *testing.T) {
	cases := []struct {
		in   Input
		want string
	}{
		{Input{Event: PreToolUse, ToolName: "bash"}, "bash"},
		{Input{Event: PostToolUse, ToolName: "edit"}, "edit"},
		{Input{Event: UserPromptSubmit, ToolName: "bash"}, ""},
		{Input{Event: SubagentStart, Subagent: &Subagent{Target: "reviewer"}}, "reviewer"},
		{Input{Event: Notification, Notification: &NotificationInfo{Kind: "permission"}}, "permission"},
		{Input{Event: PreCompact, Compaction: &Compaction{Trigger: "auto"}}, "auto"},
		{Input{Event: SessionEnd}, ""},
	}
	for _, c := range cases {
		if got := c.in.MatchKey(); got != c.want {
			t.Errorf("%s: MatchKey = %q, want %q", c.in.Event, got, c.want)
		}
	}
}

func FuzzParseOutcome(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"action":"deny","reason":"x"}`, `{"action":"ask","reason":"x","input":{}}`, `{"action":"continue","reason":"x"}`, `{"decision":"block"}`, `{"modifiedInput":{"a":[1,null]}}`, `[`, `{"action":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseOutcome(data)
		if err != nil {
			var fl *Failure
			if !errors.As(err, &fl) || fl.Kind != FailInvalidOutput {
				t.Fatalf("error of the wrong type: %v", err)
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("parsed outcome does not validate: %v", err)
		}
	})
}

// TestOutcomeAppendJSONAgreesWithEncodingJSON guards the hand-written
// encoding: every outcome appends what json.Marshal writes with HTML
// escaping off, and an input that is not JSON is an error.
func TestOutcomeAppendJSONAgreesWithEncodingJSON(t *testing.T) {
	cases := []*Outcome{
		nil, {}, Allow(), Deny("no <rm -rf> & \"quotes\" \\ \n\t é \u2028 \xff"), Ask("sure?"), Continue("go on"),
		Mutate(json.RawMessage(`{ "command" : "ls  -la",  "n": [1, 2 ] }`)),
		{Action: ActionAsk, Reason: "r", Input: json.RawMessage(`{"a":"<b>"}`), AdditionalContext: "ctx", ContextAs: ContextSeparate},
		Context("just context"), {Input: json.RawMessage{}},
	}
	for _, o := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o); err != nil {
			t.Fatal(err)
		}
		got, err := o.AppendJSON([]byte("x"))
		if err != nil || string(got) != "x"+strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("%+v: AppendJSON = %s, %v; encoding/json %s", o, got, err, want.Bytes())
		}
	}
	if _, err := Mutate(json.RawMessage(`{"a":`)).AppendJSON(nil); err == nil {
		t.Error("an input that is not JSON encoded")
	}
}
