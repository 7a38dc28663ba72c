package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
)

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "hooks.d-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "10-no-rm.lua"), []byte(`
hook.register("PreToolUse", "bash", function(input)
  if (input.toolInput.command or ""):find("rm -rf", 1, true) then
    return hook.deny("recursive delete blocked")
  end
end, { stage = "validate", policy = true })
`), 0o644)

	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	res := eng.Runner().PreToolUse(ctx, &luahook.Input{
		Event:     luahook.PreToolUse,
		ToolName:  "bash",
		ToolInput: json.RawMessage(`{"command":"rm -rf build"}`),
		Cwd:       "/home/dev/project",
	})
	fmt.Println(res.Denied(), res.Reason)
	// Output: true recursive delete blocked
}

// ExampleOpen_host is docs/embedding.md's "Embedding in Go" snippet, whole: a host
// opens the engine on its hooks folder (a config file is optional, and one
// named in ConfigPath must exist), and asks before each tool call. ToolInput
// is the tool's arguments as JSON (a json.RawMessage); a mutate hook hands
// back the rewritten arguments in res.Input.
func ExampleOpen_host() {
	dir, _ := os.MkdirTemp("", "host-")
	defer os.RemoveAll(dir)
	hooks := filepath.Join(dir, "hooks.d")
	os.Mkdir(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "10-pnpm.lua"), []byte(`
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:find("^npm ") then return hook.mutate({ command = "p" .. cmd }) end
  if cmd:find("rm -rf", 1, true) then return hook.deny("recursive delete blocked") end
end)
`), 0o644)
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	cwd, id := dir, "session-1"

	eng, err := engine.Open(ctx, engine.Options{
		Dir:    hooks, // a folder that does not exist yet is fine: no Lua hooks until it appears
		Logger: logger,
		// ConfigPath: "luahook.toml", // optional; a file named here must exist and load
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()

	for _, input := range []json.RawMessage{
		json.RawMessage(`{"command":"npm install"}`), // the tool's arguments, as JSON
		json.RawMessage(`{"command":"rm -rf build"}`),
	} {
		run := eng.Runner()
		if run.Has(luahook.PreToolUse) { // free when nothing is registered
			res := run.PreToolUse(ctx, &luahook.Input{ToolName: "bash", ToolInput: input, Cwd: cwd, SessionID: id})
			if res.Denied() {
				fmt.Println("denied:", res.Reason) // tell the model res.Reason
				continue
			}
			if res.Input != nil {
				input = res.Input // rewritten (and re-validated) by a mutate hook
			}
		}
		fmt.Println("run:", string(input))
	}
	// Output:
	// run: {"command":"pnpm install"}
	// denied: recursive delete blocked
}
