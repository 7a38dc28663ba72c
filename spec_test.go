package luahook

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSpecWithDefaultsFillsEveryZeroValue(t *testing.T) {
	tests := []struct {
		name string
		in   Spec
		want Spec
	}{
		{"a Go hook named by its kind", Spec{Event: Stop},
			Spec{Event: Stop, Kind: KindGo, Name: "go:Stop", FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"a hook named by its owner", Spec{Event: Stop, Kind: KindLua, Owner: "10-a.lua"},
			Spec{Event: Stop, Kind: KindLua, Owner: "10-a.lua", Name: "10-a.lua:Stop", FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"Lua and Go hooks mutate by default", Spec{Event: PreToolUse, Kind: KindLua, Name: "n"},
			Spec{Event: PreToolUse, Kind: KindLua, Name: "n", Stage: StageMutate, FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"command and HTTP hooks validate by default", Spec{Event: PreToolUse, Kind: KindHTTP, Name: "n"},
			Spec{Event: PreToolUse, Kind: KindHTTP, Name: "n", Stage: StageValidate, FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"a stage applies to PreToolUse only", Spec{Event: Stop, Name: "n", Stage: StageValidate},
			Spec{Event: Stop, Kind: KindGo, Name: "n", FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"background hooks wait longer", Spec{Event: PostToolUse, Name: "n", Background: true, RunWhenToolSkipped: true},
			Spec{Event: PostToolUse, Kind: KindGo, Name: "n", FailurePolicy: FailOpen, Timeout: DefaultBackgroundTimeout,
				Background: true, RunWhenToolSkipped: true}},
		{"background applies to PostToolUse only", Spec{Event: Stop, Name: "n", Background: true, RunWhenToolSkipped: true},
			Spec{Event: Stop, Kind: KindGo, Name: "n", FailurePolicy: FailOpen, Timeout: DefaultTimeout}},
		{"timeouts are clamped up", Spec{Event: Stop, Name: "n", Timeout: time.Microsecond},
			Spec{Event: Stop, Kind: KindGo, Name: "n", FailurePolicy: FailOpen, Timeout: MinTimeout}},
		{"timeouts are clamped down", Spec{Event: Stop, Name: "n", Timeout: time.Hour, FailurePolicy: FailClosed},
			Spec{Event: Stop, Kind: KindGo, Name: "n", FailurePolicy: FailClosed, Timeout: MaxTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.WithDefaults(); got != tt.want {
				t.Errorf("WithDefaults() =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// A spec's JSON is what listings print: the timeout in milliseconds, no
// owner, no hook, and HTML characters left to the caller's encoder.
func TestSpecJSONIsTheListingShape(t *testing.T) {
	s := Spec{Event: PreToolUse, Name: "a<b>&c", Matcher: "Bash(git push:*)", Stage: StageValidate, Kind: KindLua,
		Owner: "10-a.lua", Source: "hooks.d/10-a.lua:1", Policy: true, Timeout: 1500 * time.Millisecond,
		FailurePolicy: FailClosed, Hook: HookFunc(nil)}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"PreToolUse","name":"a\u003cb\u003e\u0026c","matcher":"Bash(git push:*)","stage":"validate",` +
		`"kind":"lua","source":"hooks.d/10-a.lua:1","policy":true,"timeoutMs":1500,"failurePolicy":"closed"}`
	if string(got) != want {
		t.Errorf("json.Marshal(spec) =\n %s\nwant\n %s", got, want)
	}
	raw, err := s.MarshalJSON()
	if err != nil || string(raw) != `{"event":"PreToolUse","name":"a<b>&c",`+want[len(`{"event":"PreToolUse","name":"a\u003cb\u003e\u0026c",`):] {
		t.Errorf("MarshalJSON() = %s, %v; want HTML characters as they are", raw, err)
	}

	l := Listed{Spec: Spec{Event: PostToolUse, Name: "lint", Kind: KindLua, Source: "x.lua:3", Timeout: DefaultBackgroundTimeout,
		FailurePolicy: FailOpen, Background: true, RunWhenToolSkipped: true}, Order: 2, MatcherForm: "*"}
	got, err = json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"event":"PostToolUse","order":2,"name":"lint","matcher":"*","matcherForm":"*","kind":"lua","source":"x.lua:3",` +
		`"policy":false,"timeoutMs":60000,"failurePolicy":"open","background":true,"runWhenToolSkipped":true}`
	if string(got) != want {
		t.Errorf("json.Marshal(listed) =\n %s\nwant\n %s", got, want)
	}
}
