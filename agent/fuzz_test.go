package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to every adapter's decoder, with and
// without an event from the caller: it never panics, and it returns either
// an error or a request whose Input (when there is one) passes CheckLimits
// and has a tool input that is a JSON object; every answer to it is empty
// or one JSON object.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.native.json"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, "")
		}
	}
	f.Add([]byte(`{"toolArgs":"{\"a\":{\"b\":1}}","toolName":"bash"}`), "preToolUse")
	f.Add([]byte(`{"hook_event_name":"beforeShellExecution","command":"ls","workspace_roots":["/w"]}`), "")
	f.Add([]byte(`{"a":1,"a":2}`), "")
	f.Fuzz(func(t *testing.T, data []byte, event string) {
		for _, a := range adapters {
			req, err := a.Decode(data, event)
			if err != nil {
				if _, ok := err.(*DecodeError); !ok {
					t.Fatalf("%s: error %T is not a *DecodeError", a.Name(), err)
				}
				a.Block(err.(*DecodeError).Event, err.Error())
				continue
			}
			if in := req.Input; in != nil {
				if err := in.CheckLimits(); err != nil {
					t.Fatalf("%s: decoded an Input over its limits: %v", a.Name(), err)
				}
				if in.ToolInput != nil && (in.ToolInput[0] != '{' || !json.Valid(in.ToolInput)) {
					t.Fatalf("%s: toolInput %q is not an object", a.Name(), in.ToolInput)
				}
			}
			for _, d := range []Decision{{}, {Verdict: Deny}, {Verdict: Ask, Input: json.RawMessage(`{"command":"x"}`)}, {Verdict: Continue, Context: "c"}} {
				if out := a.Encode(req, d).Stdout; out != nil && !json.Valid(out) {
					t.Fatalf("%s: answer %q is not JSON", a.Name(), out)
				}
			}
		}
		Detect(data)
	})
}
