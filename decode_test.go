package luahook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDecodePayloadKeepsEveryContractField(t *testing.T) {
	yes, n := true, 120
	want := &Input{
		Event: PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls",  "n":[1,2]}`),
		ToolCapabilities: []string{"exec"}, ToolMutating: &yes,
		ToolResult: &ToolResult{Content: "out", IsError: true}, Prompt: "p",
		Compaction:   &Compaction{Trigger: "auto", TokensBefore: &n},
		Subagent:     &Subagent{Target: "reviewer", Task: "t", OK: &yes},
		Notification: &NotificationInfo{Kind: "permission", Message: "m"},
		Cwd:          "/w", SessionID: "s1", Agent: "claude", Native: json.RawMessage(`{"session_id":"s1", "x":[1]}`),
		Client: "ci-runner",
	}
	data := ` {"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls",  "n":[1,2]},
		"toolCapabilities":["exec"],"toolMutating":true,"toolResult":{"content":"out","isError":true},
		"prompt":"p","compaction":{"trigger":"auto","aggressive":false,"tokensBefore":120},
		"subagent":{"target":"reviewer","task":"t","ok":true},
		"notification":{"kind":"permission","message":"m"},"cwd":"/w","sessionId":"s1",
		"agent":"claude","native":{"session_id":"s1", "x":[1]},"client":"ci-runner"}
	`
	got, err := DecodePayload([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if len(inputKeys.list) != reflect.TypeFor[Input]().NumField() {
		t.Errorf("the decoder knows %d keys, Input has %d fields", len(inputKeys.list), reflect.TypeFor[Input]().NumField())
	}
}

func TestDecodePayloadIsStrict(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"a key in the wrong case", `{"event":"Stop","toolinput":{}}`, `unknown key "toolinput" (did you mean "toolInput"?)`},
		{"an unknown key", `{"event":"Stop","transcript":"x"}`, `unknown key "transcript" (known: event, toolName`},
		{"a long unknown key, cut in the error", `{"event":"Stop","` + strings.Repeat("k", 1<<20) + `":"x"}`, `unknown key "` + strings.Repeat("k", 64) + `…" (known:`},
		{"a duplicate key", `{"event":"PreToolUse","toolInput":{"command":"ls"},"toolInput":{"command":"rm -rf /"}}`, `duplicate key "toolInput"`},
		{"an unknown nested key", `{"event":"PostToolUse","toolResult":{"content":"x","iserror":true}}`, `toolResult: unknown key "iserror"`},
		{"a nested duplicate key", `{"event":"PostToolUse","toolResult":{"content":"a","content":"b"}}`, `toolResult: duplicate key "content"`},
		{"a wrong type", `{"event":"PreToolUse","toolName":7}`, `toolName must be a string, got number`},
		{"a wrong nested type", `{"event":"PostToolUse","toolResult":{"isError":"yes"}}`, `toolResult.isError must be a boolean, got string`},
		{"toolInput an array", `{"event":"PreToolUse","toolInput":["rm"]}`, `toolInput must be an object, got ["rm"]`},
		{"toolInput a string", `{"event":"PreToolUse","toolInput":"rm -rf /"}`, `toolInput must be an object`},
		{"native an array", `{"event":"Stop","native":[{}]}`, `native must be an object, got [{}]`},
		{"native a string", `{"event":"Stop","native":"{}"}`, `native must be an object`},
		{"a duplicate key in native", `{"event":"Stop","native":{"a":{"k":1,"k":2}}}`, `native.a.k: duplicate key`},
		{"agent not a string", `{"event":"Stop","agent":1}`, `agent must be a string`},
		{"agent over its limit", `{"event":"Stop","agent":"` + strings.Repeat("a", MaxIDBytes+1) + `"}`, `agent is 257 bytes, over the limit of 256`},
		{"client not a string", `{"event":"Stop","client":true}`, `client must be a string`},
		{"client over its limit", `{"event":"Stop","client":"` + strings.Repeat("c", MaxIDBytes+1) + `"}`, `client is 257 bytes, over the limit of 256`},
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
		{"an unknown event", `{"event":"PreToolUze"}`, `unknown event "PreToolUze" (known: SessionStart`},
		{"event names are case-sensitive", `{"event":"pretooluse"}`, `unknown event "pretooluse"; event names are case-sensitive: did you mean PreToolUse?`},
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
	in, err := DecodePayload([]byte(`{"event":"PreToolUse","toolName":null,"toolInput":null,"toolResult":null,"agent":null,"native":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.ToolInput != nil || in.ToolName != "" || in.ToolResult != nil || in.Agent != "" || in.Native != nil {
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
	if err != nil || in.Event != Stop || in.Cwd != "/w" {
		t.Errorf("got %+v, %v", in, err)
	}
	if _, err := DecodePayload([]byte(`{"event":"Stop","\u0065vent":"PreToolUse"}`)); err == nil || !strings.Contains(err.Error(), `duplicate key "event"`) {
		t.Errorf("an escaped duplicate: %v", err)
	}
}

// FuzzDecodePayloadAgreesWithEncodingJSON guards the hand-written walker:
// whatever DecodePayload accepts is valid JSON and decodes to the same Input
// under encoding/json, which Input.Fields lists as encoding/json writes it.
func FuzzDecodePayloadAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls \"a\\\\\" }"}}`,
		`{"event":"PostToolUse","toolResult":{"content":"}]","isError":true},"cwd":"/"}`,
		`{"event":"SubagentStop","subagent":{"target":"r","task":"t","ok":false,"durationMs":12}}`,
		`{"event":"Stop","toolCapabilities":["a","b"],"toolMutating":null}`,
		`{"\u0065vent":"Stop"}`,
		`{"event":"Stop",}`,
		`{"event":"Stop"}}`,
		`{"event":"PreToolUse","toolInput":{"command":"rm -rf /","c\u006fmmand":"ls"}}`,
		`{"event":"PreToolUse","toolInput":{"a":[{"k":1},{"k":2,"k":3}],"\u00ff":1,"ÿ":2}}`,
		"{\"event\":\"PreToolUse\",\"toolInput\":{\"\xff\":1,\"\xfe\":2}}",
		// Strings and tool inputs decoded without encoding/json's reflection:
		// escapes, valid and invalid UTF-8, raw control characters, wrong
		// types, null and broken tool inputs must decode as encoding/json does.
		"{\"event\":\"PreToolUse\",\"toolName\":\"b\\u0061sh\",\"cwd\":\"caf\xc3\xa9 \xe2\x82\xac\",\"sessionId\":\"\xff\xfe\"}",
		"{\"event\":\"PreToolUse\",\"toolName\":\"tab\there\"}",
		`{"event":"PreToolUse","toolName":"a\"b","cwd":"\/x"}`,
		`{"event":"PreToolUse","toolName":5}`,
		`{"event":"PreToolUse","toolInput":null,"native":{"a" : [1, 2] }}`,
		`{"event":"PreToolUse","toolInput":{"a":[1,2}}`,
		`{"event":"PreToolUse","toolInput":  {"a" : 1 } ,"cwd":"é€😀"}`,
		"{\"event\":\"PreToolUse\",\"toolInput\":{\"a\":1}\n,\"native\":{\"b\":[]}\t}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodePayload(data)
		dup := json.Valid(data) && hasDuplicateKey(data)
		if err != nil {
			if json.Valid(data) && strings.Contains(err.Error(), "duplicate key") && !dup {
				t.Fatalf("%q: %v, but encoding/json finds no duplicate key", data, err)
			}
			if json.Valid(data) && (strings.Contains(err.Error(), "invalid JSON") || strings.Contains(err.Error(), "more than one JSON value")) {
				t.Fatalf("%q: %v, but it is valid JSON", data, err)
			}
			return
		}
		if dup {
			t.Fatalf("accepted %q, which has a duplicate key", data)
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var want Input
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("encoding/json refuses %q: %v", data, err)
		}
		if string(want.ToolInput) == "null" {
			want.ToolInput = nil
		}
		if !reflect.DeepEqual(in, &want) {
			t.Fatalf("%q:\n got  %+v\n want %+v", data, in, &want)
		}
		if listed, marshalled := fieldsJSON(t, in), must(json.Marshal(in)); !bytes.Equal(listed, marshalled) {
			t.Fatalf("%q:\n Input.Fields lists %s\n encoding/json writes %s", data, listed, marshalled)
		}
	})
}

func TestDecodePayloadRefusesDuplicateKeysAtEveryDepth(t *testing.T) {
	tests := []struct{ name, toolInput, want string }{
		{"in toolInput", `{"command":"rm -rf /","command":"ls"}`, "toolInput.command: duplicate key"},
		{"escaped the second time", `{"command":"rm -rf /","c\u006fmmand":"ls"}`, "toolInput.command: duplicate key"},
		{"escaped both times", `{"\u0063ommand":"rm -rf /","c\u006fmmand":"ls"}`, "toolInput.command: duplicate key"},
		{"in a nested object", `{"opts":{"a":1,"b":{"x":1,"y":2,"x":3}}}`, "toolInput.opts.b.x: duplicate key"},
		{"in an array element", `{"edits":[{"path":"a"},{"path":"b","path":"/etc/passwd"}]}`, "toolInput.edits[1].path: duplicate key"},
		{"an odd key", `{"a b":{"k":1,"k":2}}`, `toolInput["a b"].k: duplicate key`},
		{"in a large object", `{` + manyKeys(500) + `,"k250":0}`, "toolInput.k250: duplicate key"},
		{"an empty key", `{"":1,"":2}`, `toolInput[""]: duplicate key`},
		{"a long key, cut in the error", `{"` + strings.Repeat("k", 1<<20) + `":1,"` + strings.Repeat("k", 1<<20) + `":2}`,
			`toolInput["` + strings.Repeat("k", 64) + `…"]: duplicate key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"event":"PreToolUse","toolName":"bash","toolInput":` + tt.toolInput + `}`
			in, err := DecodePayload([]byte(data))
			if err == nil || err.Error() != "payload: "+tt.want {
				t.Errorf("DecodePayload(%.80s) = %v, %v; want the error %q", data, in != nil, err, "payload: "+tt.want)
			}
		})
	}
	// The same key in different objects, and keys equal only up to case or
	// escapes that differ in meaning, are not duplicates.
	for _, ti := range []string{
		`{"a":{"k":1},"b":{"k":2},"k":[{"k":1},{"k":2}]}`,
		`{"Command":"a","command":"b","c\u006fmmand2":"c"}`,
		`{` + manyKeys(500) + `}`,
		`{"a":"\"k\":1,\"k\":2","k":"{\"k\":1}"}`,
	} {
		if _, err := DecodePayload([]byte(`{"event":"PreToolUse","toolInput":` + ti + `}`)); err != nil {
			t.Errorf("toolInput %.60s: %v", ti, err)
		}
	}
}

// hasDuplicateKey reports whether an object in the valid JSON data holds a
// key twice, as encoding/json's tokenizer decodes keys: the fuzz oracle for
// checkJSON.
func hasDuplicateKey(data []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top != nil && top.keys != nil {
					top.wantKey = true
				}
				f := &frame{}
				if tok == '{' {
					f.keys, f.wantKey = map[string]bool{}, true
				}
				stack = append(stack, f)
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].keys != nil {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			if top != nil && top.keys != nil && top.wantKey {
				if top.keys[tok] {
					return true
				}
				top.keys[tok], top.wantKey = true, false
				continue
			}
		}
		if top != nil && top.keys != nil {
			top.wantKey = true
		}
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

func TestDecodeInputRefusesIdentifiersOverTheirLimits(t *testing.T) {
	at, past := strings.Repeat("s", MaxIDBytes), strings.Repeat("s", MaxIDBytes+1)
	cwdAt, cwdPast := "/"+strings.Repeat("d", MaxCwdBytes-1), "/"+strings.Repeat("d", MaxCwdBytes)
	ok := []string{
		`{"event":"Stop","sessionId":"` + at + `","toolName":"` + at + `","cwd":"` + cwdAt + `"}`,
		`{"event":"PreToolUse","toolCapabilities":[` + strings.TrimSuffix(strings.Repeat(`"c",`, MaxCapabilities), ",") + `]}`,
	}
	for _, data := range ok {
		if _, err := DecodeInput([]byte(data)); err != nil {
			t.Errorf("at the limits: %v", err)
		}
	}
	tests := []struct{ data, want string }{
		{`{"event":"Stop","sessionId":"` + past + `"}`, "payload: sessionId is 257 bytes, over the limit of 256"},
		{`{"event":"Stop","toolName":"` + past + `"}`, "payload: toolName is 257 bytes, over the limit of 256"},
		{`{"event":"Stop","cwd":"` + cwdPast + `"}`, "payload: cwd is 4097 bytes, over the limit of 4096"},
		{`{"event":"Stop","subagent":{"subagentId":"` + past + `"}}`, "payload: subagent.subagentId is 257 bytes, over the limit of 256"},
		{`{"event":"PreToolUse","toolCapabilities":[` + strings.Repeat(`"c",`, MaxCapabilities) + `"c"]}`, "payload: toolCapabilities has 65 entries, over the limit of 64"},
	}
	for _, tt := range tests {
		if in, err := DecodeInput([]byte(tt.data)); err == nil || err.Error() != tt.want {
			t.Errorf("DecodeInput(%.60s…) = %v, %v; want %q", tt.data, in != nil, err, tt.want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestPlainStringsAgreesWithEncodingJSON: the fast path for string arrays
// answers as json.Unmarshal into a []string does, or declines; it declines
// an array longer than a payload may hold, whose slice it would make
// before CheckLimits refuses it.
func TestPlainStringsAgreesWithEncodingJSON(t *testing.T) {
	long := "[" + strings.TrimSuffix(strings.Repeat(`"c",`, MaxCapabilities+1), ",") + "]"
	if got, ok := plainStrings([]byte(long), ""); ok {
		t.Errorf("an array of %d strings: fast path took it (%d entries); it must decline past %d", MaxCapabilities+1, len(got), MaxCapabilities)
	}
	for _, lit := range []string{`[]`, `[ ]`, `["a"]`, `["exec","network"]`, `[ "a" , "b" ]`, "[\n\"a\",\t\"b\"\n]",
		`["a",]`, `[,"a"]`, `["a" "b"]`, `["a\"b"]`, `["a\\b"]`, `["é"]`, "[\"\xff\"]", `[1]`, `["a",1]`, `[null]`,
		`["a"`, `"a"]`, `[""]`, `["",""]`, "[\"a\x01\"]", `[["a"]]`, `["a"]]`,
		"[" + strings.TrimSuffix(strings.Repeat(`"c",`, MaxCapabilities), ",") + "]"} {
		var want []string
		wantErr := json.Unmarshal([]byte(lit), &want)
		for _, text := range []string{"", lit} {
			got, ok := plainStrings([]byte(lit), text)
			if !ok {
				continue // declined: json.Unmarshal decides
			}
			if wantErr != nil {
				t.Errorf("%q: fast path took it as %q; encoding/json refuses it: %v", lit, got, wantErr)
				continue
			}
			if !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("%q (text %v): fast path %q, encoding/json %q", lit, text != "", got, want)
			}
		}
	}
}

// FuzzCheckJSON: checkJSON accepts exactly what json.Valid accepts, and
// finds a duplicate key exactly where encoding/json's tokenizer meets one.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":1}`, `{"a":[1,2.5e-3,-0,true,false,null,"x"]}`,
		`{"a":1,"a":2}`, `{"a":{"b":1,"b":2}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`,
		`{"a":"\u00zz"}`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", "{\"\xff\":1,\"\xfe\":2}", `{"a":1}x`, `{"a":1} {}`,
		`{"a" 1}`, `{"a":1,}`, `[1,]`, `{"a":tru}`, `{"a":truex}`, ` {"a" : [ ] } `, `{"\u0061":1,"a":2}`,
		`"str"`, `12`, `{"a":"\ud800"}`, `{"a":[{"k":1},{"k":2,"k":3}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkJSON("v", data)
		valid := json.Valid(data)
		if (err != errInvalidJSON) != valid {
			t.Fatalf("%q: checkJSON says %v, json.Valid %v", data, err, valid)
		}
		if valid && (err != nil) != hasDuplicateKey(data) {
			t.Fatalf("%q: checkJSON says %v, the tokenizer finds a duplicate: %v", data, err, hasDuplicateKey(data))
		}
	})
}

// TestCheckJSONNestingLimit: checkJSON takes values nested as deep as
// encoding/json allows and refuses one level more, without a Go stack of
// that depth.
func TestCheckJSONNestingLimit(t *testing.T) {
	for _, depth := range []int{maxNesting, maxNesting + 1} {
		for _, open := range []string{"[", `{"k":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			data := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			if got, want := checkJSON("v", data) != errInvalidJSON, json.Valid(data); got != want {
				t.Errorf("%s nested %d deep: checkJSON valid %v, json.Valid %v", open, depth, got, want)
			}
		}
	}
}

// TestFieldIsTheKeysField: field(in, i) points at the Input field whose json
// tag is the i-th top-level key.
func TestFieldIsTheKeysField(t *testing.T) {
	in := &Input{}
	for i, key := range inputKeys.list {
		want := reflect.ValueOf(in).Elem().Field(inputKeys.fields[i]).Addr().Interface()
		if got := field(in, i); got != want {
			t.Errorf("field(in, %d) for %q is %T %p, want %T %p", i, key, got, got, want, want)
		}
	}
}
