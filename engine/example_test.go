package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
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
		Cwd:       dir,
	})
	fmt.Println(res.Denied, res.Reason)
	// Output: true recursive delete blocked
}
