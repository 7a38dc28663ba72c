package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/luahook/luahook"
)

// The secrets the PostToolUse payloads under testdata carry (fakes).
const (
	testGitHubToken = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	testAWSKey      = "AKIAIOSFODNN7EXAMPLE"
)

// redactSecrets is a redact outcome as the secrets pack returns it.
var redactSecrets = luahook.Outcome{Action: luahook.ActionRedact, Reason: "secrets in tool output",
	Redact: []luahook.Redaction{
		{Pattern: `ghp_[A-Za-z0-9]{36}`, Label: "a GitHub token"},
		{Pattern: `AKIA[0-9A-Z]{16}`, Label: "an AWS access key ID"},
	}}

// cutBytes is how much of an output the cut case says was withheld.
const cutBytes = 5 << 20

// outputCase is one output rewrite a PostToolUse payload is answered with:
// the request it is answered on (the cut case has its own) and the
// decision, built with a real luahook.OutputChain.
type outputCase struct {
	name string
	req  *Request
	d    Decision
}

// outputCases are the rewrites every PostToolUse payload is answered with
// in the output goldens: the secrets redacted (alone, and with the hooks'
// context), the output replaced by a text and by a value, the output
// withheld (a hook that checks output failed closed), and an output cut
// past luahook.MaxScanBytes, then redacted.
func outputCases(t testing.TB, req *Request) []outputCase {
	t.Helper()
	ctx := context.Background()
	content := req.Input.ToolResult.Content
	chain := func(content string, cut int64, apply func(c *luahook.OutputChain)) *luahook.OutputRewrite {
		c := luahook.NewOutputChain(content, cut)
		apply(c)
		w, err := c.Finish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	outcome := func(o luahook.Outcome) func(c *luahook.OutputChain) {
		return func(c *luahook.OutputChain) {
			if err := c.Apply(ctx, &o, c.Content()); err != nil {
				t.Fatal(err)
			}
		}
	}
	redacted := chain(content, 0, outcome(redactSecrets))

	in := *req.Input
	tr := *in.ToolResult
	tr.Content, tr.Cut = tr.Content+luahook.CutMarker(cutBytes), cutBytes
	in.ToolResult = &tr
	cutReq := *req
	cutReq.Input = &in

	return []outputCase{
		{"redact", req, Decision{Output: redacted}},
		{"redact + context", req, Decision{Output: redacted, Context: "Project uses pnpm; run tests with pnpm test."}},
		{"replace_output (text)", req, Decision{Output: chain(content, 0, outcome(luahook.Outcome{
			Action: luahook.ActionReplaceOutput, Reason: "build logs stay out of the model",
			Output: json.RawMessage(`"[the build log is withheld: ask for a failing test by name]"`)}))}},
		{"replace_output (value)", req, Decision{Output: chain(content, 0, outcome(luahook.Outcome{
			Action: luahook.ActionReplaceOutput,
			Output: json.RawMessage(`{"stdout":"PORT=8080\n","stderr":"","interrupted":false}`)}))}},
		{"output withheld", req, Decision{Output: chain(content, 0, func(c *luahook.OutputChain) {
			c.Withhold("hook secrets-scan failed (closed): timeout")
		})}},
		{"output cut", &cutReq, Decision{Output: chain(tr.Content, cutBytes, outcome(redactSecrets))}},
	}
}

// postToolUseCases are the agent's payloads of PostToolUse events.
func postToolUseCases(t testing.TB, a Adapter) []nativeCase {
	t.Helper()
	var out []nativeCase
	for _, c := range nativeCases(t, a) {
		req := decodeFile(t, a, c)
		if req.Input != nil && req.Input.Event == luahook.PostToolUse {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no PostToolUse payloads for %s", a.Name())
	}
	return out
}

// TestOutputGolden answers every PostToolUse payload of every agent with
// each output rewrite (outputCases) and compares the exact stdout, stderr
// and exit code with testdata/<agent>/<name>.outputs.
func TestOutputGolden(t *testing.T) {
	for _, a := range adapters {
		for _, c := range postToolUseCases(t, a) {
			t.Run(string(a.Name())+"/"+c.name, func(t *testing.T) {
				req := decodeFile(t, a, c)
				var b bytes.Buffer
				for _, oc := range outputCases(t, req) {
					formatAnswer(&b, oc.name, a.Encode(oc.req, oc.d))
				}
				golden(t, strings.TrimSuffix(c.path, ".native.json")+".outputs", b.Bytes())
			})
		}
	}
}

// replacement returns the part of an answer that stands for the tool's
// output, by the agent's own field: what the model reads instead of the
// original ("" and false when the answer carries none).
func replacement(t *testing.T, agent Name, stdout []byte) (string, bool) {
	t.Helper()
	if len(stdout) == 0 {
		return "", false
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &o); err != nil {
		t.Fatalf("answer %q: %v", stdout, err)
	}
	if h, ok := o["hookSpecificOutput"]; ok {
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(h, &inner); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"updatedToolOutput", "updatedMCPToolOutput"} {
			if v, ok := inner[k]; ok {
				return string(v), true
			}
		}
	}
	for _, k := range []string{"modifiedResult", "updated_mcp_tool_output"} {
		if v, ok := o[k]; ok {
			return string(v), true
		}
	}
	var decision, reason string
	_ = json.Unmarshal(o["decision"], &decision)
	_ = json.Unmarshal(o["reason"], &reason)
	if (agent == Codex && decision == "block") || (agent == Gemini && decision == "deny") {
		return reason, true
	}
	return "", false
}

// replaces reports whether OutputSupport says that agent replaces the
// output of the payload req (a failed tool's output is never replaced,
// but by Gemini CLI).
func replaces(agent Name, req *Request) bool {
	o, _ := OutputSupport(agent)
	failed := req.Input.ToolResult != nil && req.Input.ToolResult.IsError
	switch o.Mode {
	case OutputMCPOnly:
		return isMCP(req) && !failed
	case OutputBlockReason:
		return agent == Gemini || !failed
	}
	return !failed
}

// TestRewrittenOutputReplacesTheOriginal: on every PostToolUse payload of
// every agent, and for each output rewrite, the answer carries the
// rewritten output in the agent's own field exactly where OutputSupport
// says the agent replaces the output (and nowhere else), the secrets the
// payload carried appear nowhere in the answer, the redaction markers are
// in the replacement, and every answer says, in context or reason, what
// was taken out.
func TestRewrittenOutputReplacesTheOriginal(t *testing.T) {
	for _, a := range adapters {
		for _, c := range postToolUseCases(t, a) {
			req := decodeFile(t, a, c)
			for _, oc := range outputCases(t, req) {
				if oc.d.Output == nil {
					continue // nothing to redact in this payload
				}
				ans := a.Encode(oc.req, oc.d)
				where := string(a.Name()) + " " + c.name + " " + oc.name
				for _, secret := range []string{testGitHubToken, testAWSKey} {
					if bytes.Contains(ans.Stdout, []byte(secret)) {
						t.Errorf("%s: the answer carries the secret %s: %s", where, secret, ans.Stdout)
					}
				}
				got, ok := replacement(t, a.Name(), ans.Stdout)
				if want := replaces(a.Name(), oc.req); ok != want {
					t.Errorf("%s: replacement %v, OutputSupport says %v: %s", where, ok, want, ans.Stdout)
					continue
				}
				if ok && strings.HasPrefix(oc.name, "redact") {
					for secret, marker := range map[string]string{testGitHubToken: "[redacted: a GitHub token]", testAWSKey: "[redacted: an AWS access key ID]"} {
						if strings.Contains(req.Input.ToolResult.Content, secret) && !strings.Contains(got, marker) {
							t.Errorf("%s: the replacement has no %s: %s", where, marker, got)
						}
					}
				}
				if !bytes.Contains(ans.Stdout, []byte("luahook changed this tool output before you read it")) {
					t.Errorf("%s: the answer does not say what was taken out: %s", where, ans.Stdout)
				}
				if ans.ExitCode != 0 || ans.Stderr != "" {
					t.Errorf("%s: exit %d, stderr %q: an answer, not a failure", where, ans.ExitCode, ans.Stderr)
				}
			}
		}
	}
}

// shape is the shape of the JSON value raw (shapeOf).
func shape(t *testing.T, raw []byte) string {
	t.Helper()
	v, err := decodeValue(raw)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return shapeOf(v)
}

// TestClaudeReplacementHasTheToolsShape: Claude Code drops an
// updatedToolOutput that does not have the tool's own output shape (and
// the model reads the original), so a redacted output keeps the shape of
// tool_response exactly, and a replaced, withheld or cut one has it too
// (MCP content blocks, a shell's stdout and stderr, a file's content).
func TestClaudeReplacementHasTheToolsShape(t *testing.T) {
	a := claudeAdapter{}
	for _, c := range postToolUseCases(t, a) {
		req := decodeFile(t, a, c)
		native := nativeValue(req, "tool_response")
		if req.Input.ToolResult.IsError || native == nil {
			continue
		}
		for _, oc := range outputCases(t, req) {
			if oc.d.Output == nil || oc.d.Output.Value != nil {
				continue
			}
			got, ok := replacement(t, Claude, a.Encode(oc.req, oc.d).Stdout)
			if !ok {
				t.Errorf("%s %s: no replacement", c.name, oc.name)
				continue
			}
			want := shape(t, native)
			if c.name == "PostToolUse-bash" {
				// The shell's shape Claude Code takes back (seen on 2.1.233).
				want = `{"interrupted":bool,"isImage":bool,"stderr":string,"stdout":string}`
			}
			if s := shape(t, []byte(got)); s != want {
				t.Errorf("%s %s: the replacement's shape is %s, the tool's %s: %s", c.name, oc.name, s, want, got)
			}
		}
	}
}

// TestClaudeRedactionKeepsEverythingElse: a redacted output is the tool's
// own result with only the secrets replaced by their markers: every other
// value as the tool gave it.
func TestClaudeRedactionKeepsEverythingElse(t *testing.T) {
	a := claudeAdapter{}
	req := decodeFile(t, a, nativeCase{name: "PostToolUse-read", event: "PostToolUse", path: "testdata/claude/PostToolUse-read.native.json"})
	d := outputCases(t, req)[0].d
	got, _ := replacement(t, Claude, a.Encode(req, d).Stdout)
	want := strings.ReplaceAll(string(nativeValue(req, "tool_response")), testAWSKey, "[redacted: an AWS access key ID]")
	if !sameValue([]byte(got), []byte(want)) {
		t.Errorf("updatedToolOutput %s, want %s", got, want)
	}
}

func TestTextInShape(t *testing.T) {
	upper := strings.ToUpper
	for _, c := range []struct{ native, want string }{
		{`"old"`, `"NEW"`},
		{`[{"type":"text","text":"a"},{"type":"image","data":"b"}]`, `[{"text":"NEW","type":"text"}]`},
		{`{"content":[{"type":"text","text":"a"}],"structuredContent":{"k":"secret"},"isError":false}`,
			`{"content":[{"text":"NEW","type":"text"}],"isError":false}`},
		{`{"stdout":"a","stderr":"secret"}`, `{"interrupted":false,"stderr":"","stdout":"NEW"}`},
		{`{"stdout":"a","stderr":"b","interrupted":true,"isImage":false,"extra":"secret"}`,
			`{"interrupted":true,"isImage":false,"stderr":"","stdout":"NEW"}`},
		// The longest string is the output's text; the others keep theirs,
		// with the redactions (here: upper) applied.
		{`{"type":"text","file":{"filePath":"/a","content":"long text","numLines":1}}`,
			`{"file":{"content":"NEW","filePath":"/A","numLines":1},"type":"TEXT"}`},
		{`[1,"ab",{"x":"abc"}]`, `[1,"AB",{"x":"NEW"}]`},
	} {
		got, ok := textInShape(json.RawMessage(c.native), "NEW", upper)
		if !ok || string(got) != c.want {
			t.Errorf("textInShape(%s) = %s, %v; want %s", c.native, got, ok, c.want)
		}
	}
	for _, native := range []string{`{"n":1}`, `42`, `true`, `null`, `[]`, `{`} {
		if got, ok := textInShape(json.RawMessage(native), "NEW", upper); ok {
			t.Errorf("textInShape(%s) = %s, want no shape", native, got)
		}
	}
}

// TestInShapeRedactionAcrossAnEscape: a redaction the hooks made in the
// output's JSON text that reads differently in its strings (a literal that
// spans an escaped quote) makes the answer the hooks' text, not the
// tool's strings with the redactions applied again (which would miss it).
func TestInShapeRedactionAcrossAnEscape(t *testing.T) {
	native := json.RawMessage(`{"stdout":"pw=\"hunter2\"","stderr":""}`)
	content := `{"stdout":"pw=\"hunter2\"","stderr":""}`
	seen := content
	start, end := strings.Index(seen, `\"hunter2\"`), strings.Index(seen, `\"hunter2\"`)+len(`\"hunter2\"`)
	c := luahook.NewOutputChain(content, 0)
	if err := c.Apply(context.Background(), &luahook.Outcome{Action: luahook.ActionRedact,
		Redact: []luahook.Redaction{{Start: &start, End: &end, Label: "a password"}}}, seen); err != nil {
		t.Fatal(err)
	}
	w, err := c.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, ok := inShape(native, w)
	if want := `{"stderr":"","stdout":"pw=[redacted: a password]"}`; !ok || string(got) != want {
		t.Errorf("inShape = %s, %v; want %s", got, ok, want)
	}
}

// TestOutputReasonFits: a block's reason that carries a rewritten output
// stays within maxOutputReasonChars characters, says how much was cut, and
// ends with what was taken out.
func TestOutputReasonFits(t *testing.T) {
	big := strings.Repeat("é", 3*maxOutputReasonChars)
	c := luahook.NewOutputChain(big, 0)
	c.Withhold("test")
	w, _ := c.Finish(context.Background())
	w.Content = big
	r := outputReason(w)
	if n := utf8.RuneCountInString(r); n > maxOutputReasonChars {
		t.Errorf("the reason has %d characters, more than %d", n, maxOutputReasonChars)
	}
	if !strings.Contains(r, "30000 characters in all) was cut") || !strings.HasSuffix(r, w.Summary()) || !utf8.ValidString(r) {
		t.Errorf("reason %q…%q does not say what was cut, or does not end with the summary", r[:40], r[len(r)-200:])
	}
	w.Content = "short"
	if r := outputReason(w); r != "short\n\n"+w.Summary() {
		t.Errorf("outputReason = %q", r)
	}
}

// TestOutputSupportCoversEveryAgent: every agent with an adapter says how
// it delivers a rewritten output, with the fields that carry it.
func TestOutputSupportCoversEveryAgent(t *testing.T) {
	for _, name := range Names() {
		o, ok := OutputSupport(name)
		if !ok || o.Mode == "" || o.Fields == "" || o.Fallback == "" {
			t.Errorf("OutputSupport(%s) = %+v, %v", name, o, ok)
		}
	}
	if _, ok := OutputSupport("aider"); ok {
		t.Error("OutputSupport knows an agent with no adapter")
	}
}

// A hook's replacement value that does not fit the tool's result (Claude
// Code would drop it, and the model read the tool's own output) is given
// as text in the result's shape; one that fits is given as it is.
func TestAReplacementValueIsCheckedAgainstTheToolsShape(t *testing.T) {
	native := json.RawMessage(`{"stdout":"AKIAIOSFODNN7EXAMPLE","stderr":"","interrupted":false,"isImage":false}`)
	for _, c := range []struct {
		value string
		fits  bool
	}{
		{`{"stdout":"ok","stderr":"","interrupted":false}`, true},
		{`{"stdout":"ok"}`, true},
		{`{"output":"ok"}`, false},
		{`{"stdout":1}`, false},
		{`["ok"]`, false},
		{`{}`, false},
	} {
		chain := luahook.NewOutputChain(string(native), 0)
		if err := chain.Apply(t.Context(), luahook.ReplaceOutput(json.RawMessage(c.value)), string(native)); err != nil {
			t.Fatal(err)
		}
		w, err := chain.Finish(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got, ok := inShape(native, w)
		if !ok {
			t.Fatalf("%s: no answer in the shape", c.value)
		}
		if c.fits != sameValue(got, []byte(c.value)) {
			t.Errorf("%s: answered %s (fits %v)", c.value, got, c.fits)
		}
		if !c.fits && !fitsShape(native, got) {
			t.Errorf("%s: answered %s, which does not fit the tool's result either", c.value, got)
		}
		if strings.Contains(string(got), "AKIA") {
			t.Errorf("%s: the tool's own output is in the answer %s", c.value, got)
		}
	}
}
