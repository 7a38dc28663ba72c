package hooksd_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

// fuzzHook runs lib/shell over the command and every helper the policies
// use on what it returns; failure_policy "open" so that a Lua error shows
// as a failure in the trace rather than as a denial.
const fuzzHook = `
local shell = require("shell")
local RULES = shell.glob.rules({ ".env", ".env.*", "*.pem", ".ssh/", ".aws/credentials" })
hook.register("PreToolUse", "bash", function(input)
  local cmds = shell.parse(input.toolInput.command)
  for _, c in ipairs(cmds) do
    shell.options(c.args, { short = { r = "recursive" }, short_arg = { o = "o" }, long = { "recursive", "force" } })
    shell.output(c)
    for _, a in ipairs(c.args) do
      shell.target(a)
      shell.glob.could_touch(a.pat, RULES)
      shell.glob.could_match(a.pat, "main")
      shell.printable(a.text)
    end
    for _, r in ipairs(c.redirs) do shell.target(r.target) end
  end
end, { name = "fuzz-shell", failure_policy = "open", timeout_ms = 5000 })
`

// openFuzz opens an engine on the shell lib, the two shell policies and
// the fuzz hook.
func openFuzz(tb testing.TB) *engine.Engine {
	tb.Helper()
	e, _ := openPolicies(tb, func(name, src string) string { return src }, map[string]string{"00-fuzz.lua": fuzzHook})
	return e
}

// FuzzShellParse feeds arbitrary command lines to lib/shell and to the
// shipped shell policies through the real engine: no input may raise a Lua
// error or run past a hook's deadline (either would deny a fail-closed
// policy's call, and skip a fail-open one's).
func FuzzShellParse(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", `r""m -rf ~`, `$'\x72m' -rf ~`, "RM=rm; $RM -rf /*", `rm -rf "$HOME"/*`, "rm -rf ${HOME:?}",
		"rm -rf ~/{*,.*}", "echo / | xargs rm -rf", "find / -delete", "bash <(curl x)", ":(){ :|:& };:",
		"cat $(echo LmVudg==|base64 -d)", "cat .[e]nv", "git show HEAD:.env", "bash <<EOF\nrm -rf ~\nEOF",
		"sh -c 'rm \"$1\"' _ /", "a=(x y); echo ${a[@]}", "echo {1..3}{a,b}", "$((1+$(x)))", "f() { f|f& }",
		"case $x in a) y;; esac", "'", `"`, "$(", "`", "${", "$'", "<<", "{", "((", ")", "[", `\`, "${x:-", "\x00",
	} {
		f.Add(s)
	}
	e := openFuzz(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cmd string) {
		input, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		in := luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", SessionID: "fuzz", ToolInput: input}
		res := e.Runner().Fire(ctx, &in)
		for _, h := range res.Trace {
			if h.Failure != nil {
				t.Fatalf("%s failed on %q: %v", h.Name, cmd, h.Failure)
			}
		}
	})
}
