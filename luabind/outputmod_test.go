package luabind

import (
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

func postToolUse(content string) *luahook.Input {
	return &luahook.Input{Event: luahook.PostToolUse, ToolName: "Bash", ToolInput: []byte(`{"command":"env"}`),
		ToolResult: &luahook.ToolResult{Content: content}, Cwd: "/work", SessionID: "s1"}
}

func TestHookRedactGivesTheWireFormWithSpansFromStringFind(t *testing.T) {
	f := load(t, `hook.register("PostToolUse", nil, function(input)
		local c = input.toolResult.content
		local i, j = c:find("hunter2", 1, true)
		return hook.redact({ { from = i, to = j, label = "a password" }, "tok", { pattern = "x+", label = "xs" } }, "why")
	end)`, Options{})
	out, err := call(t, f, 0, postToolUse("pw hunter2 tok xx"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != luahook.ActionRedact || out.Reason != "why" || len(out.Redact) != 3 {
		t.Fatalf("outcome %+v", out)
	}
	if r := out.Redact[0]; r.Start == nil || *r.Start != 3 || *r.End != 10 || r.Label != "a password" {
		t.Fatalf("the span: %+v (want start 3, end 10: bytes 4 to 10 in Lua)", r)
	}
	if out.Redact[1].Text != "tok" || out.Redact[2].Pattern != "x+" {
		t.Fatalf("redactions %+v", out.Redact)
	}
	c := luahook.NewOutputChain("pw hunter2 tok xx", 0)
	if err := c.Apply(t.Context(), out, "pw hunter2 tok xx"); err != nil {
		t.Fatal(err)
	}
	if c.Content() != "pw [redacted: a password] [redacted: a secret] [redacted: xs]" {
		t.Fatalf("applied: %q", c.Content())
	}
}

func TestHookRedactTakesOneEntryTableAndReplaceOutputATable(t *testing.T) {
	f := load(t, `hook.register("PostToolUse", nil, function(input)
		if input.toolResult.content == "one" then return hook.redact{ pattern = "o", label = "an o" } end
		return hook.replace_output({ stdout = "new", n = 1 })
	end)`, Options{})
	out, err := call(t, f, 0, postToolUse("one"))
	if err != nil || out.Action != luahook.ActionRedact || len(out.Redact) != 1 || out.Redact[0].Pattern != "o" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	out, err = call(t, f, 0, postToolUse("two"))
	if err != nil || out.Action != luahook.ActionReplaceOutput || string(out.Output) != `{"stdout":"new","n":1}` {
		t.Fatalf("outcome %+v (output %s), %v", out, out.Output, err)
	}
}

func TestHookRedactRefusesWhatItCannotTakeOut(t *testing.T) {
	cases := []struct{ arg, want string }{
		{`{}`, "got an empty table"},
		{`{ "" }`, "entry 1: an empty text"},
		{`{ 42 }`, "entry 1: a string or a table expected, got number"},
		{`{ { patern = "x" } }`, `entry 1: unknown key patern`},
		{`{ { pattern = "x", text = "y" } }`, "exactly one of"},
		{`{ { label = "x" } }`, "exactly one of"},
		{`{ { from = 3 } }`, "from and to must both be whole numbers"},
		{`{ { from = 0, to = 2 } }`, "is not a span of the output"},
		{`{ { from = 5, to = 2 } }`, "is not a span of the output"},
		{`{ { pattern = 7 } }`, "pattern must be a string, got number"},
		{`{ { pattern = "(" } }`, "missing closing )"},
	}
	for _, c := range cases {
		f := load(t, `hook.register("PostToolUse", nil, function(input) return hook.redact(`+c.arg+`) end)`, Options{})
		_, err := call(t, f, 0, postToolUse("some output"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hook.redact(%s): %v, want %q", c.arg, err, c.want)
		}
	}
	f := load(t, `hook.register("PostToolUse", nil, function(input) return hook.replace_output(true) end)`, Options{})
	if _, err := call(t, f, 0, postToolUse("x")); err == nil || !strings.Contains(err.Error(), "a string or a table expected, got boolean") {
		t.Errorf("hook.replace_output(true): %v", err)
	}
}
