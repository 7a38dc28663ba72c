package luahook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fieldsJSON writes the payload's JSON form from Input.Fields alone.
func fieldsJSON(t testing.TB, in *Input) []byte {
	var b bytes.Buffer
	first := []bool{true}
	member := func(key string) {
		if !first[len(first)-1] {
			b.WriteByte(',')
		}
		first[len(first)-1] = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
	}
	value := func(v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
	}
	b.WriteByte('{')
	in.Fields(func(f Field) bool {
		if f.Kind != FieldEnd {
			member(f.Key)
		}
		switch f.Kind {
		case FieldString:
			value(f.Text)
		case FieldBool:
			value(f.Bool)
		case FieldInt:
			value(f.Int)
		case FieldJSON:
			value(f.JSON)
		case FieldStrings:
			value(f.List)
		case FieldObject:
			b.WriteByte('{')
			first = append(first, true)
		case FieldEnd:
			b.WriteByte('}')
			first = first[:len(first)-1]
		}
		return true
	})
	b.WriteByte('}')
	return b.Bytes()
}

// fullInput has every field of the payload, nested ones included.
func fullInput() *Input {
	yes, no, n, m, d := true, false, 120, 80, int64(1500)
	return &Input{
		Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls",  "n":[1,2]}`),
		ToolCapabilities: []string{"exec", "network"}, ToolMutating: &yes,
		ToolResult: &ToolResult{Content: "out <b>", IsError: true}, Prompt: "p",
		Compaction: &Compaction{Trigger: "auto", Aggressive: true, TokensBefore: &n, TokensAfter: &m},
		Subagent: &Subagent{Target: "reviewer", Task: "t", SubagentID: "sa1", DelegationID: "d1", Mode: "wait",
			OK: &no, Status: "done", Summary: "s", DurationMs: &d},
		Notification: &NotificationInfo{Kind: "permission", Message: "m", ToolName: "write"},
		Cwd:          "/w", SessionID: "s1", Agent: "claude", Native: json.RawMessage(`{"hook_event_name":"PreToolUse", "tool_name":"Bash"}`),
		Client: "ci",
	}
}

// filledInput sets every field of the payload, read from Input's type, so
// that a field added to Input but not to Input.Fields is caught.
func filledInput() *Input {
	var in Input
	fill(reflect.ValueOf(&in).Elem())
	return &in
}

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"a":1}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	default:
		panic("fill: a payload field of kind " + v.Kind().String())
	}
}

func TestFieldsListThePayloadAsEncodingJSONWritesIt(t *testing.T) {
	for name, in := range map[string]*Input{
		"zero":               {},
		"every field":        fullInput(),
		"every field filled": filledInput(),
		"empty capabilities": {Event: Stop, ToolCapabilities: []string{}},
		"empty nested":       {Event: PostToolUse, ToolResult: &ToolResult{}, Compaction: &Compaction{}, Subagent: &Subagent{}, Notification: &NotificationInfo{}},
		"tool call":          {Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), Cwd: "/w", SessionID: "s"},
	} {
		want, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := fieldsJSON(t, in); !bytes.Equal(got, want) {
			t.Errorf("%s:\n Fields lists %s\n encoding/json %s", name, got, want)
		}
	}
}

func TestFieldsNumberEachKeyByItsPlaceInTheStruct(t *testing.T) {
	top, parent := InputKeys(), ""
	filledInput().Fields(func(f Field) bool {
		switch f.Kind {
		case FieldEnd:
			parent = ""
			return true
		case FieldObject:
			defer func() { parent = f.Key }()
		}
		keys := top
		if parent != "" {
			keys = NestedKeys(parent)
		}
		if int(f.Index) >= len(keys) || keys[f.Index] != f.Key {
			t.Errorf("field %q has index %d in %q's keys %q", f.Key, f.Index, parent, keys)
		}
		return true
	})
}

func TestInputKeysAreTheJSONTags(t *testing.T) {
	want := []string{"event", "toolName", "toolInput", "toolCapabilities", "toolMutating", "toolResult",
		"prompt", "compaction", "subagent", "notification", "cwd", "sessionId", "agent", "native", "client"}
	if got := InputKeys(); !slices.Equal(got, want) {
		t.Errorf("InputKeys() = %q, want %q", got, want)
	}
	if got := NestedKeys("subagent"); !slices.Equal(got, []string{"target", "task", "subagentId", "delegationId", "mode", "ok", "status", "summary", "durationMs"}) {
		t.Errorf("NestedKeys(subagent) = %q", got)
	}
	if got := NestedKeys("cwd"); got != nil {
		t.Errorf("NestedKeys(cwd) = %q, want nil", got)
	}
	// The decoder marks the keys it has seen in a uint32.
	if n := len(inputKeys.list); n > 32 {
		t.Errorf("the payload has %d top-level keys; DecodeInput's seen mask holds 32", n)
	}
	for k, keys := range inputKeys.nested {
		if len(keys) > 32 {
			t.Errorf("%s has %d keys; DecodeInput's nested mask holds 32", k, len(keys))
		}
	}
}

func TestSizeCountsEveryStringAndTheToolInput(t *testing.T) {
	in := fullInput()
	// event 10, toolName 4, toolInput 28, capabilities 4+7, content 7, prompt 1,
	// trigger 4, subagent 8+1+3+2+4+4+1, notification 10+1+5, cwd 2, sessionId 2,
	// agent 6, native 52, client 2
	if got, want := in.Size(), 10+4+28+11+7+1+4+23+16+2+2+6+52+2; got != want {
		t.Errorf("Size() = %d, want %d", got, want)
	}
	before := in.Size()
	in.ToolInput = json.RawMessage(`{"command":"` + strings.Repeat("x", 100) + `"}`)
	if got := in.Size(); got != before-28+len(in.ToolInput) {
		t.Errorf("Size() after a rewritten toolInput = %d, want %d", got, before-28+len(in.ToolInput))
	}
	if n := testing.AllocsPerRun(100, func() { _ = in.Size() }); n != 0 {
		t.Errorf("Size allocates %.0f times", n)
	}
}

// TestSizeIsWhatFieldsCount: Size's direct reading counts what Fields
// lists, string by string: each string of the payload, lengthened, moves
// both by the same bytes.
func TestSizeIsWhatFieldsCount(t *testing.T) {
	if got, want := fullInput().Size(), fullInput().sizeByFields(); got != want {
		t.Fatalf("Size() = %d, Fields count %d", got, want)
	}
	for path := range stringFields(t, reflect.ValueOf(fullInput()).Elem(), "") {
		in := fullInput()
		setPath(reflect.ValueOf(in).Elem(), path, strings.Repeat("x", 1000))
		if got, want := in.Size(), in.sizeByFields(); got != want {
			t.Errorf("%s lengthened: Size() = %d, Fields count %d", path, got, want)
		}
	}
	in := fullInput()
	in.ToolInput, in.Native = json.RawMessage(`{"a":"`+strings.Repeat("y", 500)+`"}`), nil
	if got, want := in.Size(), in.sizeByFields(); got != want {
		t.Errorf("toolInput rewritten, native dropped: Size() = %d, Fields count %d", got, want)
	}
}

func TestFieldsStopWhenYieldReturnsFalse(t *testing.T) {
	n := 0
	fullInput().Fields(func(f Field) bool {
		n++
		return f.Kind != FieldObject
	})
	if n != 6 { // event, toolName, toolInput, toolCapabilities, toolMutating, toolResult
		t.Errorf("yield was called %d times after it returned false at the first object, want 6", n)
	}
	if !reflect.DeepEqual(NestedKeys("toolResult"), []string{"content", "isError", "cut"}) {
		t.Errorf("NestedKeys(toolResult) = %q", NestedKeys("toolResult"))
	}
}
