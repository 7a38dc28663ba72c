package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func TestDecodePayloadKeepsEveryContractField(t *testing.T) {
	yes, n := true, 120
	want := &luahook.Input{
		Event: luahook.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls",  "n":[1,2]}`),
		ToolCapabilities: []string{"exec"}, ToolMutating: &yes,
		ToolResult: &luahook.ToolResult{Content: "out", IsError: true}, Prompt: "p",
		Compaction:   &luahook.Compaction{Trigger: "auto", TokensBefore: &n},
		Subagent:     &luahook.Subagent{Target: "reviewer", Task: "t", OK: &yes},
		Notification: &luahook.NotificationInfo{Kind: "permission", Message: "m"},
		Cwd:          "/w", SessionID: "s1",
	}
	data := ` {"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls",  "n":[1,2]},
		"toolCapabilities":["exec"],"toolMutating":true,"toolResult":{"content":"out","isError":true},
		"prompt":"p","compaction":{"trigger":"auto","aggressive":false,"tokensBefore":120},
		"subagent":{"target":"reviewer","task":"t","ok":true},
		"notification":{"kind":"permission","message":"m"},"cwd":"/w","sessionId":"s1"}
	`
	got, err := DecodePayload([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if len(payloadKeys) != reflect.TypeFor[luahook.Input]().NumField() {
		t.Errorf("payloadKeys has %d keys, luahook.Input %d fields", len(payloadKeys), reflect.TypeFor[luahook.Input]().NumField())
	}
}

func TestDecodePayloadIsStrict(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"a key in the wrong case", `{"event":"Stop","toolinput":{}}`, `unknown key "toolinput" (did you mean "toolInput"?)`},
		{"an unknown key", `{"event":"Stop","transcript":"x"}`, `unknown key "transcript" (known: event, toolName`},
		{"a duplicate key", `{"event":"PreToolUse","toolInput":{"command":"ls"},"toolInput":{"command":"rm -rf /"}}`, `duplicate key "toolInput"`},
		{"an unknown nested key", `{"event":"PostToolUse","toolResult":{"content":"x","iserror":true}}`, `toolResult: unknown key "iserror"`},
		{"a nested duplicate key", `{"event":"PostToolUse","toolResult":{"content":"a","content":"b"}}`, `toolResult: duplicate key "content"`},
		{"a wrong type", `{"event":"PreToolUse","toolName":7}`, `toolName must be a string, got number`},
		{"a wrong nested type", `{"event":"PostToolUse","toolResult":{"isError":"yes"}}`, `toolResult.isError must be a boolean, got string`},
		{"toolInput an array", `{"event":"PreToolUse","toolInput":["rm"]}`, `toolInput must be an object, got ["rm"]`},
		{"toolInput a string", `{"event":"PreToolUse","toolInput":"rm -rf /"}`, `toolInput must be an object`},
		{"two values", `{"event":"Stop"} {"event":"Stop"}`, "more than one JSON value"},
		{"trailing garbage", `{"event":"Stop"}x`, "invalid JSON"},
		{"truncated", `{"event":"Stop"`, "unexpected end of input"},
		{"a trailing comma", `{"event":"Stop",}`, "invalid JSON at byte"},
		{"an array", `[{"event":"Stop"}]`, "want a JSON object"},
		{"nested 100,000 deep", `{"event":"PreToolUse","toolInput":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`,
			"toolInput: nested more than 10000 levels deep at byte 10038"},
		{"null", `null`, "want a JSON object"},
		{"white space", " \n\t", "empty"},
		{"no event", `{"cwd":"/"}`, `no "event"`},
		{"an empty event", `{"event":""}`, `no "event"`},
		{"an unknown event", `{"event":"pretooluse"}`, `unknown event "pretooluse" (known: SessionStart`},
		{"an event not a string", `{"event":["Stop"]}`, `event must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := DecodePayload([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "payload: ") {
				t.Errorf("DecodePayload(%s) = %+v, %v; want an error with %q", tt.data, in, err, tt.want)
			}
		})
	}
}

func TestDecodePayloadReadsNullAsAbsent(t *testing.T) {
	in, err := DecodePayload([]byte(`{"event":"PreToolUse","toolName":null,"toolInput":null,"toolResult":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.ToolInput != nil || in.ToolName != "" || in.ToolResult != nil {
		t.Errorf("got %+v, want nulls read as absent", in)
	}
}

func TestDecodeInputLeavesTheEventToTheCaller(t *testing.T) {
	for _, data := range []string{`{}`, `{"toolName":"bash","toolInput":{}}`, `{"event":"Later"}`} {
		if _, err := DecodeInput([]byte(data)); err != nil {
			t.Errorf("DecodeInput(%s): %v", data, err)
		}
	}
	if _, err := DecodeInput([]byte(`{"evnt":"Stop"}`)); err == nil {
		t.Error("DecodeInput accepted an unknown key")
	}
}

func TestDecodePayloadNamesTheByteAtFault(t *testing.T) {
	tests := []struct {
		data string
		at   int
	}{
		{`{"event":"Stop",,}`, 16},
		{`{"event" "Stop"}`, 9},
		{`{"event":"PreToolUse" "toolName":"bash"}`, 22},
		{`{"toolInput":{"a":[1,}]},"event":"Stop"}`, 21},
		{`{"event":"Stop"}}`, 16},
		{`{"event":"Stop",}`, 16},
	}
	for _, tt := range tests {
		_, err := DecodePayload([]byte(tt.data))
		if want := fmt.Sprintf("invalid JSON at byte %d", tt.at); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodePayload(%s) = %v, want %q", tt.data, err, want)
		}
	}
}

func TestDecodePayloadUnescapesKeys(t *testing.T) {
	in, err := DecodePayload([]byte(`{"\u0065vent":"Stop","c\u0077d":"/w"}`))
	if err != nil || in.Event != luahook.Stop || in.Cwd != "/w" {
		t.Errorf("got %+v, %v", in, err)
	}
	if _, err := DecodePayload([]byte(`{"event":"Stop","\u0065vent":"PreToolUse"}`)); err == nil || !strings.Contains(err.Error(), `duplicate key "event"`) {
		t.Errorf("an escaped duplicate: %v", err)
	}
}

// FuzzDecodePayloadAgreesWithEncodingJSON guards the hand-written walker:
// whatever DecodePayload accepts is valid JSON and decodes to the same Input
// under encoding/json.
func FuzzDecodePayloadAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls \"a\\\\\" }"}}`,
		`{"event":"PostToolUse","toolResult":{"content":"}]","isError":true},"cwd":"/"}`,
		`{"event":"SubagentStop","subagent":{"target":"r","task":"t","ok":false,"durationMs":12}}`,
		`{"event":"Stop","toolCapabilities":["a","b"],"toolMutating":null}`,
		`{"\u0065vent":"Stop"}`,
		`{"event":"Stop",}`,
		`{"event":"Stop"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodePayload(data)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var want luahook.Input
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("encoding/json refuses %q: %v", data, err)
		}
		if string(want.ToolInput) == "null" {
			want.ToolInput = nil
		}
		if !reflect.DeepEqual(in, &want) {
			t.Fatalf("%q:\n got  %+v\n want %+v", data, in, &want)
		}
	})
}
