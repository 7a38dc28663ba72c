package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luahook/luahook"
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
			decisions := []Decision{{}, {Verdict: Deny}, {Verdict: Ask, Input: json.RawMessage(`{"command":"x"}`)}, {Verdict: Continue, Context: "c"}}
			if in := req.Input; in != nil && in.ToolResult != nil {
				decisions = append(decisions, fuzzOutputs(t, in.ToolResult.Content)...)
			}
			for _, d := range decisions {
				if out := a.Encode(req, d).Stdout; out != nil && !json.Valid(out) {
					t.Fatalf("%s: answer %q is not JSON", a.Name(), out)
				}
			}
		}
		Detect(data)
	})
}

// fuzzOutputs are output rewrites of content, built with a real
// luahook.OutputChain: digits redacted, the output replaced by a value,
// and the output withheld.
func fuzzOutputs(t *testing.T, content string) []Decision {
	ctx := context.Background()
	var out []Decision
	for _, o := range []*luahook.Outcome{
		{Action: luahook.ActionRedact, Redact: []luahook.Redaction{{Pattern: `[0-9]+`, Label: "digits"}, {Text: "a"}}},
		{Action: luahook.ActionReplaceOutput, Output: json.RawMessage(`{"stdout":"x","n":[1,"b"]}`)},
		nil,
	} {
		c := luahook.NewOutputChain(content, 0)
		if o == nil {
			c.Withhold("fuzz")
		} else if err := c.Apply(ctx, o, content); err != nil {
			t.Fatal(err)
		}
		w, err := c.Finish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w != nil {
			out = append(out, Decision{Output: w, Context: "c"})
		}
	}
	return out
}
