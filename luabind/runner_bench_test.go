package luabind_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// The benchmarks below measure one PreToolUse call through the runner as a
// host or `luahook serve` makes it: the payload JSON is decoded into a
// luahook.Input, the runner fires it at one validate-stage hook, and the
// contract's outcome is encoded to JSON. Only the hook differs: the same
// policy in Lua, as a plain Go HookFunc (run on its own goroutine), and as a
// Go hook bound by its context (run inline, as Lua hooks are).

// benchPayload is a typical bash tool call.
const benchPayload = `{"event":"PreToolUse","toolName":"bash",` +
	`"toolInput":{"command":"go test ./... -run TestRunner -count=1","timeout":120000,"description":"Run the runner tests"},` +
	`"toolCapabilities":["exec","network"],"cwd":"/home/dev/project","sessionId":"sess-4f2a"}`

const benchLuaPolicy = `hook.register("PreToolUse", "bash", function(input, rt)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then
    return hook.deny("rm -rf is not allowed")
  end
end, { name = "bash-safety", stage = "validate" })`

// goPolicy is the Lua policy in Go: decode the command, refuse rm -rf.
func goPolicy(_ context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(in.ToolInput, &args); err != nil {
		return nil, err
	}
	if strings.Contains(args.Command, "rm -rf") {
		return luahook.Deny("rm -rf is not allowed"), nil
	}
	return nil, nil
}

// boundHook is a Go hook that declares it returns once its context is done,
// so that the runner calls it on the caller's goroutine, as it calls Lua.
type boundHook luahook.HookFunc

func (h boundHook) Call(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
	return h(ctx, in)
}
func (boundHook) BoundByContext() bool { return true }

// luaRunner returns a runner whose only hook is benchLuaPolicy, loaded as
// the engine loads a hooks.d file.
func luaRunner(b *testing.B) *runner.Runner { return luaRunnerOf(b, benchLuaPolicy) }

// luaRunnerOf returns a runner whose hooks are those src registers, loaded
// as the engine loads a hooks.d file.
func luaRunnerOf(tb testing.TB, src string) *runner.Runner {
	tb.Helper()
	c, err := luabind.Compile("10-bash-safety.lua", []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	f, err := luabind.Load(context.Background(), c, luabind.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Close)
	reg := registry.New()
	if err := reg.ReplaceOwner("10-bash-safety.lua", luabind.Specs(f.Registrations())); err != nil {
		tb.Fatal(err)
	}
	r := runner.New(runner.Options{Registry: reg})
	tb.Cleanup(r.Close)
	return r
}

// goRunner returns a runner whose only hook is h, a validate-stage Go hook.
func goRunner(b *testing.B, h luahook.Hook) *runner.Runner {
	reg := registry.New()
	if _, err := reg.Register(luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Name: "bash-safety",
		Stage: luahook.StageValidate, Hook: h}); err != nil {
		b.Fatal(err)
	}
	r := runner.New(runner.Options{Registry: reg})
	b.Cleanup(r.Close)
	return r
}

// fireJSON is one round trip: payload JSON in, outcome JSON out.
func fireJSON(ctx context.Context, r *runner.Runner, payload []byte) ([]byte, error) {
	var in luahook.Input
	if err := json.Unmarshal(payload, &in); err != nil {
		return nil, err
	}
	res := r.PreToolUse(ctx, &in)
	if len(res.Trace) != 1 || res.Trace[0].Failure != nil {
		return nil, fmt.Errorf("trace %+v", res.Trace)
	}
	return json.Marshal(res.Outcome())
}

func benchFire(b *testing.B, r *runner.Runner, payload string) {
	ctx := context.Background()
	p := []byte(payload)
	if out, err := fireJSON(ctx, r, p); err != nil || string(out) != `{}` {
		b.Fatalf("%s, %v", out, err)
	}
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := fireJSON(ctx, r, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerLuaValidate is a validate-stage Lua hook through the runner.
func BenchmarkRunnerLuaValidate(b *testing.B) { benchFire(b, luaRunner(b), benchPayload) }

// BenchmarkRunnerGoValidate is the same policy as a plain Go hook, which the
// runner calls on a goroutine of its own.
func BenchmarkRunnerGoValidate(b *testing.B) {
	benchFire(b, goRunner(b, luahook.HookFunc(goPolicy)), benchPayload)
}

// BenchmarkRunnerGoBoundValidate is the same Go hook called inline, as Lua is.
func BenchmarkRunnerGoBoundValidate(b *testing.B) {
	benchFire(b, goRunner(b, boundHook(goPolicy)), benchPayload)
}

// BenchmarkRunnerLuaValidateParallel is the Lua hook under concurrent calls;
// run it with -cpu 1,2 to see how it scales.
func BenchmarkRunnerLuaValidateParallel(b *testing.B) {
	r := luaRunner(b)
	p := []byte(benchPayload)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := fireJSON(ctx, r, p); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRunnerGoBoundValidateParallel is the inline Go hook under
// concurrent calls, the ceiling for the Lua one.
func BenchmarkRunnerGoBoundValidateParallel(b *testing.B) {
	r := goRunner(b, boundHook(goPolicy))
	p := []byte(benchPayload)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := fireJSON(ctx, r, p); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// bigPayload is a PreToolUse payload whose toolInput is about 100 KiB: the
// command and a long list of file objects the hook never reads.
func bigPayload() string {
	var sb strings.Builder
	sb.WriteString(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"ls -la /tmp","files":[`)
	for i := 0; sb.Len() < 100<<10; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"path":"/src/pkg%d/file%d.go","size":%d,"mode":"0644","tags":["go","src"]}`, i, i, i*37)
	}
	sb.WriteString(`]},"cwd":"/home/dev/project","sessionId":"sess-4f2a"}`)
	return sb.String()
}

// BenchmarkRunnerLuaValidateBigInput reads one field of a 100 KiB toolInput.
func BenchmarkRunnerLuaValidateBigInput(b *testing.B) { benchFire(b, luaRunner(b), bigPayload()) }

// BenchmarkRunnerGoBoundValidateBigInput is the inline Go hook on the same payload.
func BenchmarkRunnerGoBoundValidateBigInput(b *testing.B) {
	benchFire(b, goRunner(b, boundHook(goPolicy)), bigPayload())
}
