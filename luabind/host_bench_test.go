package luabind

import (
	"context"
	"testing"

	"github.com/luahook/luahook/host"
)

type benchRepo struct{ Branch string }

// BenchmarkHostCall is the cost of a host module in a hook: reading a
// payload field (the floor), calling func() string, calling
// func(ctx, string) (bool, error), and reading a field of a struct member.
// Each hook reads one value and returns nothing.
func BenchmarkHostCall(b *testing.B) {
	hm, err := NewHostModules([]host.Module{{Name: "bench", Members: map[string]any{
		"branch": func() string { return "main" },
		"allowed": func(ctx context.Context, s string) (bool, error) {
			return s != "", ctx.Err()
		},
		"repo": &benchRepo{Branch: "main"},
	}}})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct{ name, expr string }{
		{"payload-field", `input.toolInput.command`},
		{"func-string", `m.branch()`},
		{"func-ctx-string-bool-error", `m.allowed("ls")`},
		{"struct-field", `m.repo.Branch`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := load(b, `local m = require("host.bench")
hook.register("PreToolUse", "bash", function(input, rt)
  local v = `+c.expr+`
  if v == "never" then return hook.deny("x") end
end)`, Options{Host: hm})
			benchHook(b, f.Registrations()[0].Hook, preToolUse("bash", `{"command":"ls -la /tmp"}`))
		})
	}
}
