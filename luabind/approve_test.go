package luabind

import (
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// hook.approve builds an ask routed to the web with its approvers and
// timeout; hook.ask is unchanged; a table with the keys written by hand
// reads the same.
func TestHookApproveBuildsAWebAsk(t *testing.T) {
	f := load(t, `hook.register("PreToolUse", nil, function(input)
  return hook.approve{reason = "deploy " .. input.toolInput.command, approvers = {"alice", "bob"}, timeout_ms = 60000}
end)
hook.register("PreToolUse", nil, function() return hook.approve{reason = "any"} end)
hook.register("PreToolUse", nil, function() return hook.ask("plain") end)
hook.register("PreToolUse", nil, function()
  return {action = "ask", reason = "by hand", route = "web", approvers = {"carol"}, timeoutMs = 1000}
end)`, Options{})
	in := preToolUse("bash", `{"command":"prod"}`)
	out, err := call(t, f, 0, in)
	if err != nil || out.Action != luahook.ActionAsk || out.Reason != "deploy prod" || out.Route != luahook.RouteWeb ||
		!slices.Equal(out.Approvers, []string{"alice", "bob"}) || out.TimeoutMs != 60000 {
		t.Fatalf("hook.approve: %+v, %v", out, err)
	}
	out, err = call(t, f, 1, in)
	if err != nil || out.Route != luahook.RouteWeb || out.Approvers != nil || out.TimeoutMs != 0 {
		t.Fatalf("hook.approve{reason}: %+v, %v", out, err)
	}
	out, err = call(t, f, 2, in)
	if err != nil || out.Action != luahook.ActionAsk || out.Route != "" {
		t.Fatalf("hook.ask: %+v, %v", out, err)
	}
	out, err = call(t, f, 3, in)
	if err != nil || out.Route != luahook.RouteWeb || !slices.Equal(out.Approvers, []string{"carol"}) || out.TimeoutMs != 1000 {
		t.Fatalf("a web ask written by hand: %+v, %v", out, err)
	}
}

// hook.approve's mistakes are errors naming the key, and an outcome
// table with a web key out of place is invalid output naming it.
func TestHookApproveRefusesBadArguments(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{`hook.approve{}`, "reason is required"},
		{`hook.approve{reason = ""}`, "reason must be a non-empty string"},
		{`hook.approve{reason = "r", approver = {"a"}}`, "unknown key approver"},
		{`hook.approve{reason = "r", approvers = "alice"}`, "approvers must be an array"},
		{`hook.approve{reason = "r", approvers = {"a", x = "b"}}`, "keys 1 to n"},
		{`hook.approve{reason = "r", approvers = {""}}`, "approvers[1]"},
		{`hook.approve{reason = "r", timeout_ms = 0}`, "timeout_ms"},
		{`hook.approve{reason = "r", timeout_ms = 600001}`, "timeout_ms"},
		{`hook.approve{reason = "r", timeout_ms = 1.5}`, "timeout_ms"},
		{`hook.approve("r")`, "bad argument #1 to approve"},
		{`{action = "deny", reason = "r", route = "web"}`, `"route"`},
		{`{action = "ask", reason = "r", timeoutMs = 5}`, `"timeoutMs"`},
	} {
		f := load(t, `hook.register("PreToolUse", nil, function() return `+c.call+` end)`, Options{})
		_, err := call(t, f, 0, preToolUse("bash", `{}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.call, err, c.want)
		}
	}
}
