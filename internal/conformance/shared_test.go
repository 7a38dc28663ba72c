//go:build conformance

package conformance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The policies of the checks every agent answers beyond deny, written for
// any agent's shell tool.
const (
	sessionContextPolicy = `hook.register("SessionStart", nil, function()
  return hook.context("conformance: session context 7f3a")
end)
`
	postContextPolicy = `hook.register("PostToolUse", "@shell", function()
  return hook.context("conformance: after the call 91c2")
end)
`
	promptBlockPolicy = `hook.register("UserPromptSubmit", nil, function()
  return hook.deny("conformance: prompt refused 5d0e")
end)
`
	// rewritePolicy rewrites "original" to "rewritten" in a shell command
	// and approves nothing.
	rewritePolicy = `hook.register("PreToolUse", "@shell", function(input)
  local cmd = input.toolInput.command or ""
  if cmd:find("original", 1, true) then
    local args = input.toolInput
    args.command = cmd:gsub("original", "rewritten")
    return hook.mutate(args, "conformance: rewritten")
  end
end)
`
	// approvePolicy is a validate-stage hook that approves the rewritten
	// command.
	approvePolicy = `hook.register("PreToolUse", "@shell", function(input)
  if (input.toolInput.command or ""):find("rewritten", 1, true) then return hook.allow() end
end, { stage = "validate" })
`
	// askPolicy is a validate-stage hook that asks about the rewritten
	// command.
	askPolicy = `hook.register("PreToolUse", "@shell", function(input)
  if (input.toolInput.command or ""):find("rewritten", 1, true) then return hook.ask("conformance: confirm 33aa") end
end, { stage = "validate" })
`
)

// rewriteCall is a shell call of the agent (its call function) that
// creates the file "original" in dir.
func rewriteCall(call func(string) toolCall, dir string) toolCall {
	return call(filepath.Join(dir, "original"))
}

// exitStatus is how the table words a run's exit status.
func exitStatus(t *testing.T, err error) string {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "0"
	case errors.As(err, &exit) && exit.Exited():
		return "non-zero"
	}
	t.Fatalf("the agent did not run to its end: %v", err)
	return ""
}

// ran reports whether dir holds the file name.
func ran(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
