package hooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/luahook/luahook"
)

// tricky is text that a careless transport would change on the way: quotes,
// backslashes, control characters, a NUL, HTML that Go escapes, characters
// of two, three and four bytes, and the line separators JavaScript dislikes.
const tricky = "quote \" backslash \\ slash / newline \n tab \t cr \r nul \x00 bell \x07 " +
	"html <a href='x'>&amp;</a> é € 😀 \u2028\u2029 end"

// toolInputJSON is a tool input with every kind of JSON value: nested
// objects and arrays, an empty object and an empty array, integers up to
// 2^53-1, a fraction, booleans and a null.
const toolInputJSON = `{
  "command": "ls -la | grep \"x\"",
  "description": "quote \" backslash \\ slash / newline \n tab \t cr \r nul \u0000 bell \u0007 html <a href='x'>&amp;</a> é € 😀 \u2028\u2029 end",
  "timeout": 120000,
  "ratio": 1.5,
  "negative": -7,
  "zero": 0,
  "maxSafe": 9007199254740991,
  "flags": [true, false, null],
  "empty": {},
  "none": [],
  "nested": {"a": [{"b": "c", "d": [1, [2, [3]]]}]}
}`

func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// payloadFor returns a payload for ev with every field that event carries
// set to a distinctive value; cwd is an existing directory.
func payloadFor(ev luahook.Event, cwd string) *luahook.Input {
	yes, no := true, false
	in := &luahook.Input{Event: ev, Cwd: cwd, SessionID: "hooktest-session-" + string(ev), Agent: "hooktest",
		Native: json.RawMessage(`{"hook_event_name":"` + string(ev) + `","note":` + quote(tricky) + `,"n":[1,2.5,null,{"deep":true}]}`)}
	switch ev {
	case luahook.PreToolUse:
		in.ToolName = "bash"
		in.ToolInput = json.RawMessage(toolInputJSON) // a copy: a hook that writes to it spoils nothing
		in.ToolCapabilities = []string{"exec", "fs:write", "net"}
		in.ToolMutating = &yes
	case luahook.PostToolUse:
		in.ToolName = "edit"
		in.ToolInput = json.RawMessage(`{"path":"src/main.go","old":"a","new":` + quote(tricky) + `}`)
		in.ToolMutating = &no
		in.ToolResult = &luahook.ToolResult{Content: "edited 1 file:\n" + tricky, IsError: true}
	case luahook.UserPromptSubmit:
		in.Prompt = "please run the tests: " + tricky
	case luahook.SubagentStart, luahook.SubagentStop:
		ms := int64(1234)
		in.Subagent = &luahook.Subagent{
			Target: "reviewer", Task: "review " + tricky, SubagentID: "sa-1", DelegationID: "dl-2",
			Mode: "wait", OK: &no, Status: "failed", Summary: "found 2 problems", DurationMs: &ms,
		}
	case luahook.Notification:
		in.Notification = &luahook.NotificationInfo{Kind: "permission", Message: "allow bash? " + tricky, ToolName: "bash"}
	case luahook.PreCompact, luahook.PostCompact:
		before, after := 180000, 42000
		in.Compaction = &luahook.Compaction{Trigger: "overflow", Aggressive: true, TokensBefore: &before, TokensAfter: &after}
	}
	return in
}

// sameJSON reports whether a and b decode to the same JSON value.
func sameJSON(a, b []byte) bool {
	va, erra := decodeJSON(a)
	vb, errb := decodeJSON(b)
	return erra == nil && errb == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return normaliseNumbers(v), nil
}

// normaliseNumbers turns each json.Number into a float64 when it is one
// exactly, so that 1.5 and 1.50 compare equal while 2^53+1 cannot pass for
// 2^53.
func normaliseNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normaliseNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normaliseNumbers(x)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			if i := int64(f); float64(i) == f {
				return i // 1.0 and 1e3 are integers written otherwise
			}
			return f
		}
	}
	return v
}

// decodeEcho decodes a payload echoed by EchoPayload, refusing fields that
// the contract does not have.
func decodeEcho(echo string) (*luahook.Input, error) {
	d := json.NewDecoder(strings.NewReader(echo))
	d.DisallowUnknownFields()
	var in luahook.Input
	if err := d.Decode(&in); err != nil {
		return nil, err
	}
	return &in, nil
}

// payloadDiff says how got differs from want ("" when they are equal); tool
// inputs and native payloads are compared as decoded JSON values.
func payloadDiff(got, want *luahook.Input) string {
	if !sameJSON(got.ToolInput, want.ToolInput) && !(got.ToolInput == nil && want.ToolInput == nil) {
		return fmt.Sprintf("toolInput = %s, want %s", got.ToolInput, want.ToolInput)
	}
	if !sameJSON(got.Native, want.Native) && !(got.Native == nil && want.Native == nil) {
		return fmt.Sprintf("native = %s, want %s", got.Native, want.Native)
	}
	g, w := *got, *want
	g.ToolInput, w.ToolInput = nil, nil
	g.Native, w.Native = nil, nil
	if reflect.DeepEqual(&g, &w) {
		return ""
	}
	gj, _ := json.Marshal(&g)
	wj, _ := json.Marshal(&w)
	return fmt.Sprintf("payload (toolInput aside) = %s\nwant %s", gj, wj)
}
