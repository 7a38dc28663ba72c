package luahook

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// A web approval's keys parse from the wire, survive AppendJSON (which
// agrees with encoding/json) and parse back the same.
func TestWebApprovalKeysRoundTrip(t *testing.T) {
	o, err := ParseOutcome([]byte(`{"action":"ask","reason":"prod <deploy>","route":"web","approvers":["alice","bob"],"timeoutMs":60000}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Route != RouteWeb || !slices.Equal(o.Approvers, []string{"alice", "bob"}) || o.TimeoutMs != 60000 || o.ApprovalTimeout() != time.Minute {
		t.Fatalf("parsed %+v", o)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(o)
	got, err := o.AppendJSON(nil)
	if err != nil || string(got) != strings.TrimSpace(want.String()) {
		t.Fatalf("AppendJSON = %s, %v; encoding/json %s", got, err, want.Bytes())
	}
	back, err := ParseOutcome(got)
	if err != nil || back.Route != o.Route || !slices.Equal(back.Approvers, o.Approvers) || back.TimeoutMs != o.TimeoutMs {
		t.Fatalf("parsed back %+v, %v", back, err)
	}
	if d := Approve("r", nil, 0).ApprovalTimeout(); d != DefaultApprovalTimeout {
		t.Fatalf("default timeout %s, want %s", d, DefaultApprovalTimeout)
	}
	// A whole number written as a float, and an empty object for approvers
	// (a Lua table cannot tell it from an empty array), are accepted.
	o, err = ParseOutcome([]byte(`{"action":"ask","reason":"r","route":"web","approvers":{},"timeoutMs":1.5e3}`))
	if err != nil || o.TimeoutMs != 1500 || o.Approvers == nil || len(o.Approvers) != 0 {
		t.Fatalf("parsed %+v, %v", o, err)
	}
}

// Each misplaced or malformed key of a web approval is invalid output
// whose message names the key.
func TestWebApprovalKeysAreCheckedAndNamed(t *testing.T) {
	long := strings.Repeat("n", MaxApproverChars+1)
	many, _ := json.Marshal(make([]string, MaxApprovers+1))
	for _, c := range []struct{ in, key string }{
		{`{"action":"deny","reason":"r","route":"web"}`, `"route"`},
		{`{"action":"allow","approvers":["a"]}`, `"approvers"`},
		{`{"action":"mutate","input":{},"timeoutMs":5}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","approvers":["a"]}`, `"approvers"`},
		{`{"action":"ask","reason":"r","timeoutMs":5}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"slack"}`, `"route"`},
		{`{"action":"ask","reason":"r","route":5}`, `"route"`},
		{`{"action":"ask","reason":"r","route":"web","approvers":"alice"}`, `"approvers"`},
		{`{"action":"ask","reason":"r","route":"web","approvers":[1]}`, `"approvers"`},
		{`{"action":"ask","reason":"r","route":"web","approvers":[""]}`, `"approvers"`},
		{`{"action":"ask","reason":"r","route":"web","approvers":["` + long + `"]}`, `"approvers"`},
		{`{"action":"ask","reason":"r","route":"web","approvers":` + string(many) + `}`, `"approvers"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":0}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":-5}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":1.5}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":"60000"}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":600001}`, `"timeoutMs"`},
		{`{"action":"ask","reason":"r","route":"web","timeoutMs":1e30}`, `"timeoutMs"`},
		{`{"route":"web"}`, `"route"`},
	} {
		_, err := ParseOutcome([]byte(c.in))
		var f *Failure
		if err == nil || !asFailure(err, &f) || f.Kind != FailInvalidOutput || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: error %v, want invalid output naming %s", c.in, err, c.key)
		}
	}
	if err := Approve("r", []string{"alice"}, MaxApprovalTimeout).Validate(); err != nil {
		t.Fatalf("the longest timeout is valid: %v", err)
	}
	if err := (&Outcome{Action: ActionAsk, Reason: "r", Route: RouteWeb, TimeoutMs: MaxApprovalTimeout.Milliseconds() + 1}).Validate(); err == nil {
		t.Fatal("a timeout past MaxApprovalTimeout validated")
	}
	if err := Approve("r", nil, time.Second).CheckEvent(PostToolUse); err == nil {
		t.Fatal("a web approval outside PreToolUse passed CheckEvent")
	}
}

func asFailure(err error, f **Failure) bool {
	ff, ok := err.(*Failure)
	*f = ff
	return ok
}
