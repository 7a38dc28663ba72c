package main

import (
	"context"
	"sync"

	"github.com/luahook/luahook/host"
)

// user is who sits at the keyboard: something the host knows and no
// payload carries.
type user struct {
	Name string
	Role string
}

// Maintainer reports whether the user may release.
func (u user) Maintainer() bool { return u.Role == "maintainer" }

// budgets are the host's per-session tool budgets, which it keeps (and
// changes) itself; policies only read them, through a function.
type budgets struct {
	mu   sync.Mutex
	left map[string]int
}

func newBudgets(left map[string]int) *budgets { return &budgets{left: left} }

// remaining is the budget left to the session of the hook call that asks:
// host.CallOf gives the payload the hook was called with.
func (b *budgets) remaining(ctx context.Context) (int, error) {
	call := host.CallOf(ctx)
	if call == nil {
		return 0, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left[call.Input.SessionID], nil
}

// hostModule is what the host gives its policies: require("host.embed")
// in a hook file. The user is a read-only copy; the budget is read on
// each call, under the hook's deadline.
func hostModule(u user, b *budgets) host.Module {
	return host.Module{
		Name: "embed",
		Doc:  "What the embed host knows that a payload does not carry.",
		Members: map[string]any{
			"user":             u,
			"budget_remaining": b.remaining,
		},
		Docs: map[string]string{
			"user":             "The user at the keyboard.",
			"budget_remaining": "Tool calls left to this session.\n@return integer",
		},
	}
}

// deployPolicy reads the host module: only maintainers deploy.
const deployPolicy = `local embed = require("host.embed")

hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("make deploy", 1, true) and not embed.user:Maintainer() then
    return hook.deny(("only maintainers deploy; %s is a %s (%d tool calls left)"):format(
      embed.user.name, embed.user.role, embed.budget_remaining()))
  end
end, { name = "deploy-role", stage = "validate", policy = true, failure_policy = "closed" })
`
