package hooksd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/luahook/luahook"
	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// shippedCase is one shipped policy on a typical payload of its kind, with
// the lean floor for that payload: a minimal Lua hook on the same event that
// reads one field and returns nil, which the reuse analysis proves lean.
type shippedCase struct {
	name, file string
	in         luahook.Input
	floor      string // the floor's hook.register line
}

// shippedCases are the shipped policies' typical calls: a build command for
// the bash policies, an edit's result, a prompt.
func shippedCases() []shippedCase {
	bash := luahook.Input{Event: luahook.PreToolUse, ToolName: "bash", SessionID: "bench", Cwd: "/home/dev/project",
		ToolInput: json.RawMessage(`{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"}`)}
	bashFloor := `hook.register("PreToolUse", "bash", function(input)
  if input.toolName == "x" then return hook.deny("x") end
end)`
	edit := luahook.Input{Event: luahook.PostToolUse, ToolName: "edit", SessionID: "bench", Cwd: "/home/dev/project",
		ToolInput:  json.RawMessage(`{"path":"src/main.go","old_string":"a","new_string":"b"}`),
		ToolResult: &luahook.ToolResult{Content: "ok"}}
	prompt := luahook.Input{Event: luahook.UserPromptSubmit, SessionID: "bench", Cwd: "/home/dev/project",
		Prompt: "Add a greeting to hello.txt, run the tests and commit with a conventional message."}
	return []shippedCase{
		{"10-dangerous-commands", "10-dangerous-commands.lua", bash, bashFloor},
		{"20-protect-secrets", "20-protect-secrets.lua", bash, bashFloor},
		{"30-prefer-pnpm", "30-prefer-pnpm.lua", bash, bashFloor},
		{"40-session-context", "40-session-context.lua", edit, `hook.register("PostToolUse", "edit|write", function(input)
  if input.toolName == "x" then return hook.deny("x") end
end)`},
		{"50-rate-limit", "50-rate-limit.lua", bash, bashFloor},
		{"60-prompt-secrets", "60-prompt-secrets.lua", prompt, `hook.register("UserPromptSubmit", nil, function(input)
  if input.sessionId == "x" then return hook.deny("x") end
end)`},
	}
}

// policyRunner loads the named files of dir (lib modules from dir/lib) as
// the engine loads hooks.d files, on store, into a runner of their own.
func policyRunner(b testing.TB, dir string, store luabind.StoreBackend, files ...string) *runner.Runner {
	reg := registry.New()
	for _, name := range files {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		c, err := luabind.Compile(filepath.Join(dir, name), src)
		if err != nil {
			b.Fatal(err)
		}
		f, err := luabind.Load(context.Background(), c, luabind.Options{LibDir: filepath.Join(dir, "lib"), Store: store})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(f.Close)
		if err := reg.ReplaceOwner(name, luabind.Specs(f.Registrations())); err != nil {
			b.Fatal(err)
		}
	}
	r := runner.New(runner.Options{Registry: reg})
	b.Cleanup(r.Close)
	return r
}

// BenchmarkShippedPolicy measures each shipped policy's typical call through
// the runner, as a host fires it, beside the lean floor on the same payload
// in the same run; it reports the allocations of each and the policy's time
// as a multiple of the floor's (x_floor): in "interleaved", from turns of
// policyBlock calls of each side taken in alternation, the median turn of
// the policy over the floor's, so that both sides share the machine's load
// of the moment; in "policy", from the two sub-benchmarks run one after the
// other. The rate limit's counters are cleared every 50 calls, on both
// sides and inside the timer (two deletes per 50 calls; stopping the timer
// would stop the world to read the memory statistics), so that its calls
// stay on the path of a session under its limit.
func BenchmarkShippedPolicy(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, hooksd.FS); err != nil {
		b.Fatal(err)
	}
	// caller returns one call of file's hooks on in, checked; the store's
	// counters are cleared every 50 calls.
	caller := func(b *testing.B, file string, in luahook.Input) func() {
		store := luabind.NewStore()
		r := policyRunner(b, dir, store, file)
		ctx := context.Background()
		n := 0
		call := func() {
			if n++; n%50 == 0 {
				_ = store.Delete(ctx, "bash-calls:")
				_ = store.Delete(ctx, "bash-calls:\x00bench")
			}
			res := r.Fire(ctx, &in)
			if res.Denied() || len(res.Trace) == 0 || res.Trace[0].Failure != nil {
				b.Fatalf("%s: denied or failed: %s %+v", file, res.Reason, res.Trace)
			}
		}
		call()
		return call
	}
	for _, c := range shippedCases() {
		floorFile := "floor-" + c.name + ".lua"
		if err := os.WriteFile(filepath.Join(dir, floorFile), []byte(c.floor), 0o644); err != nil {
			b.Fatal(err)
		}
		var floorNs float64
		for _, side := range []struct{ name, file string }{{"floor", floorFile}, {"policy", c.file}} {
			b.Run(c.name+"/"+side.name, func(b *testing.B) {
				call := caller(b, side.file, c.in)
				b.ReportAllocs()
				for b.Loop() {
					call()
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				if side.name == "floor" {
					floorNs = ns
				} else if floorNs > 0 {
					b.ReportMetric(ns/floorNs, "x_floor")
				}
			})
		}
		b.Run(c.name+"/interleaved", func(b *testing.B) {
			calls := [2]func(){caller(b, floorFile, c.in), caller(b, c.file, c.in)}
			var turns [2][]float64
			round := 0
			for b.Loop() {
				for k := range calls {
					i := (round + k) % 2
					start := time.Now()
					for range policyBlock {
						calls[i]()
					}
					turns[i] = append(turns[i], float64(time.Since(start))/policyBlock)
				}
				round++
			}
			b.ReportMetric(median(turns[1])/median(turns[0]), "x_floor")
		})
	}
}

// policyBlock is how many calls of one side make a turn of the interleaved
// measurement: enough that reading the clock costs nothing beside them, few
// enough (well under a millisecond) that the two sides' turns share their
// load.
const policyBlock = 64

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	vs = slices.Clone(vs)
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}
