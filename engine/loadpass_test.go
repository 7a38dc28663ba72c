package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestFilesOfAPassLoadTogetherAndSwapInNameOrder loads the files of a pass
// at the same time (each file's top level waits, in a bounded loop, until
// another file's top level is running too, and says whether it saw one),
// and still swaps their hooks in by file name, with a broken file failing
// alone.
func TestFilesOfAPassLoadTogetherAndSwapInNameOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	files := map[string]string{"35-broken.lua": `hook.register("PreToolUse", "bash", function() end`}
	const n = 6
	for i := range n {
		files[fmt.Sprintf("%02d-file.lua", 60-i*10)] = fmt.Sprintf(`
store.incr("loading", 1)
local together = false
for _ = 1, 20000 do
  if store.get("loading") >= 2 then together = true break end
end
store.incr("loading", -1)
hook.register("PreToolUse", "bash", function()
  return { action = "allow", additionalContext = "%d:" .. tostring(together) }
end)`, 60-i*10)
	}
	e := openEngine(t, Options{Dir: hooksDir(t, files), NoWatch: true})
	err := e.Err()
	if err == nil || !strings.Contains(err.Error(), "35-broken.lua") {
		t.Fatalf("load error %v, want 35-broken.lua's", err)
	}
	if strings.Contains(err.Error(), "-file.lua") {
		t.Fatalf("a file that should load did not: %v", err)
	}
	res := e.Runner().PreToolUse(context.Background(), bashInput(os.TempDir()))
	var order []string
	together := 0
	for _, tr := range res.Trace {
		if tr.Outcome == nil {
			t.Fatalf("hook %s: no outcome (%+v)", tr.Name, tr.Failure)
		}
		num, saw, _ := strings.Cut(tr.Outcome.AdditionalContext, ":")
		order = append(order, num)
		if saw == "true" {
			together++
		}
	}
	if got := strings.Join(order, " "); got != "10 20 30 40 50 60" {
		t.Errorf("hooks ran in the order %s, want the files' name order", got)
	}
	if together == 0 {
		t.Error("no file's top level ran while another's did: the pass loaded them one after the other")
	}
}
