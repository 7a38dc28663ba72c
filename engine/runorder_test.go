package engine

import (
	"testing"

	"github.com/luahook/luahook"
)

func TestRunOrderPutsMutateStageHooksBeforeValidators(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-check.lua":   `hook.register("PreToolUse", "bash", function() end, { name = "check", stage = "validate" })`,
		"20-rewrite.lua": `hook.register("PreToolUse", "bash", function() end, { name = "rewrite", stage = "mutate" })`,
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	var names []string
	for _, h := range e.RunOrder(luahook.PreToolUse) {
		names = append(names, h.Name)
	}
	if len(names) != 2 || names[0] != "rewrite" || names[1] != "check" {
		t.Errorf("run order %q, want rewrite then check", names)
	}
}
