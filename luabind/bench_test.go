package luabind

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind/internal/codec"
)

const validateSrc = `hook.register("PreToolUse", "bash", function(input, rt)
  local cmd = input.toolInput.command or ""
  if cmd:find("rm -rf", 1, true) then
    return hook.deny("dangerous command blocked")
  end
end, { name = "bash-safety", stage = "validate" })`

// benchCtx is a context with a deadline, as the runner gives every hook call.
func benchCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	b.Cleanup(cancel)
	return ctx
}

func benchHook(b *testing.B, h luahook.Hook, in *luahook.Input) {
	ctx := benchCtx(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := h.Call(ctx, in)
		if err != nil || out != nil {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkValidateLua is a typical validate hook for a typical PreToolUse
// payload, called through the luahook.Hook interface.
func BenchmarkValidateLua(b *testing.B) {
	f := load(b, validateSrc, Options{})
	benchHook(b, f.Registrations()[0].Hook, preToolUse("bash", `{"command":"ls -la /tmp"}`))
}

// BenchmarkValidateGo is the same check as a Go hook that decodes toolInput.
func BenchmarkValidateGo(b *testing.B) {
	h := luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		var ti struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(in.ToolInput, &ti); err != nil {
			return nil, err
		}
		if strings.Contains(ti.Command, "rm -rf") {
			return luahook.Deny("dangerous command blocked"), nil
		}
		return nil, nil
	})
	benchHook(b, h, preToolUse("bash", `{"command":"ls -la /tmp"}`))
}

// bigToolInput is about 100 KiB: a command and a list of file objects.
func bigToolInput() string {
	var sb strings.Builder
	sb.WriteString(`{"command":"ls -la /tmp","files":[`)
	for i := 0; sb.Len() < 100<<10; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"path":"/src/pkg%d/file%d.go","size":%d,"mode":"0644","tags":["go","src"]}`, i, i, i*37)
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// BenchmarkValidateLuaBigInput reads one field of a 100 KiB toolInput.
func BenchmarkValidateLuaBigInput(b *testing.B) {
	f := load(b, validateSrc, Options{})
	in := preToolUse("bash", bigToolInput())
	b.SetBytes(int64(len(in.ToolInput)))
	benchHook(b, f.Registrations()[0].Hook, in)
}

// BenchmarkValidateGoBigInput is the Go hook on the same 100 KiB toolInput.
func BenchmarkValidateGoBigInput(b *testing.B) {
	h := luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		var ti struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(in.ToolInput, &ti); err != nil {
			return nil, err
		}
		if strings.Contains(ti.Command, "rm -rf") {
			return luahook.Deny("dangerous command blocked"), nil
		}
		return nil, nil
	})
	in := preToolUse("bash", bigToolInput())
	b.SetBytes(int64(len(in.ToolInput)))
	benchHook(b, h, in)
}

// BenchmarkMutateRoundTrip returns a small toolInput unchanged as a mutate.
func BenchmarkMutateRoundTrip(b *testing.B) {
	f := load(b, `hook.register("PreToolUse", nil, function(input) return hook.mutate(input.toolInput) end)`, Options{})
	h, in := f.Registrations()[0].Hook, preToolUse("bash", `{"command":"npm install","args":["--save","left-pad"],"env":{"CI":"1"},"timeout":30}`)
	ctx := benchCtx(b)
	b.ReportAllocs()
	for b.Loop() {
		if out, err := h.Call(ctx, in); err != nil || out == nil {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkMutateBigInput returns the 100 KiB toolInput with one field
// changed as a mutate.
func BenchmarkMutateBigInput(b *testing.B) {
	f := load(b, `hook.register("PreToolUse", nil, function(input)
  local t = input.toolInput
  t.command = "ls"
  return hook.mutate(t)
end)`, Options{})
	h, in := f.Registrations()[0].Hook, preToolUse("bash", bigToolInput())
	b.SetBytes(int64(len(in.ToolInput)))
	ctx := benchCtx(b)
	b.ReportAllocs()
	for b.Loop() {
		if out, err := h.Call(ctx, in); err != nil || out == nil {
			b.Fatal(out, err)
		}
	}
}

// thirtyLines is a 30-line hook file.
const thirtyLines = `-- a policy file of 30 lines
local blocked = { "rm -rf", "mkfs", "dd if=", ":(){", "chmod -R 777 /" }

local function dangerous(cmd)
  for _, pat in ipairs(blocked) do
    if cmd:find(pat, 1, true) then return pat end
  end
end

hook.register("PreToolUse", "bash", function(input, rt)
  local cmd = input.toolInput.command or ""
  local hit = dangerous(cmd)
  if hit then
    return hook.deny("blocked: " .. hit)
  end
end, { name = "bash-safety", stage = "validate", timeout_ms = 3000 })

hook.register("PreToolUse", "write|edit", function(input)
  local path = input.toolInput.path or ""
  if path:match("%.env$") then
    return hook.deny("writing .env files is not allowed")
  end
end, { name = "env-guard", policy = true })

hook.register("SessionStart", nil, function()
  return hook.context("Remember: run the tests before you commit.")
end)

log.debug("loaded")
`

// BenchmarkLoadFromSource compiles and loads a 30-line file.
func BenchmarkLoadFromSource(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, err := Compile(testPath, []byte(thirtyLines))
		if err != nil {
			b.Fatal(err)
		}
		f, err := Load(ctx, c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkLoadFromChunk loads the same file from its compiled chunk.
func BenchmarkLoadFromChunk(b *testing.B) {
	c, err := Compile(testPath, []byte(thirtyLines))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		f, err := Load(ctx, c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkPoolMiss builds one more state of a loaded file from its chunk,
// the determinism check included.
func BenchmarkPoolMiss(b *testing.B) {
	f := load(b, thirtyLines, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		st, err := f.grow(ctx)
		if err != nil {
			b.Fatal(err)
		}
		st.close()
	}
}

// capPayloads are the costliest toolInputs to convert that the default caps
// let through (DefaultMaxInputValues values, luahook.DefaultMaxInputBytes bytes).
func capPayloads() map[string]string {
	n := DefaultMaxInputValues
	keys := make([]string, n-1)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":0`, i)
	}
	return map[string]string{
		"empty-arrays":  valuesPayload(n),
		"empty-objects": `{"command":"x","pad":[` + strings.TrimSuffix(strings.Repeat("{},", n-3), ",") + `]}`,
		"distinct-keys": "{" + strings.Join(keys, ",") + "}",
		"strings":       `{"command":"x","pad":[` + strings.TrimSuffix(strings.Repeat(`"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",`, n-3), ",") + `]}`,
		"nested":        strings.Repeat(`{"a":`, codec.MaxDepth-1) + "[]" + strings.Repeat("}", codec.MaxDepth-1),
		"one-string":    `{"command":"` + strings.Repeat("x", luahook.DefaultMaxInputBytes-100) + `"}`,
	}
}

// BenchmarkPayloadConversionAtTheCaps measures the worst payload conversion
// the default caps allow: the time Prepare may take, under the caller's
// context, before a hook's deadline starts (on top of the wait for a state).
func BenchmarkPayloadConversionAtTheCaps(b *testing.B) {
	f := load(b, `hook.register("PreToolUse", nil, function() end)`, Options{})
	h := f.Registrations()[0].Hook.(luahook.Preparer)
	for name, ti := range capPayloads() {
		b.Run(name, func(b *testing.B) {
			in := preToolUse("bash", ti)
			ctx := benchCtx(b)
			b.SetBytes(int64(len(ti)))
			b.ReportAllocs()
			for b.Loop() {
				p, err := h.Prepare(ctx, in, time.Second)
				if err != nil {
					b.Fatal(err)
				}
				p.Run(ctx)
			}
		})
	}
}
