package luabind

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// A hook registered in a Session and the same hook loaded from a file go
// through one call path (state.call: the payload's conversion, the outcome's
// reading, the failures' classification), so every per-call rule gives both
// the same answer, kind for kind.
func TestSessionHooksAndFileHooksAnswerAlike(t *testing.T) {
	const src = `hook.register("PreToolUse", nil, function(input)
  local c = input.toolInput.command
  if c == "loop" then while true do end end
  if c == "error" then error("boom") end
  if c == "table-error" then error({message = "boom"}) end
  if c == "number" then return 42 end
  if c == "array" then return {1, 2} end
  if c == "deny" then return hook.deny("no") end
  if c == "mutate" then return hook.mutate({command = "ls", n = 9007199254740993}) end
end)`
	file := load(t, src, Options{})
	s := newSession(t, SessionOptions{Options: Options{MaxInputValues: 5}})
	if _, err := s.Eval(context.Background(), "policy.lua", src); err != nil {
		t.Fatal(err)
	}
	fileHook := file.Registrations()[0].Hook
	sessionHook := s.Registrations()[0].Hook
	// The file's cap on values, as the session's.
	fileCapped := load(t, src, Options{MaxInputValues: 5}).Registrations()[0].Hook

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name  string
		in    *luahook.Input
		ctx   func() (context.Context, context.CancelFunc)
		want  luahook.FailureKind // "" for no failure
		check func(t *testing.T, out *luahook.Outcome)
	}{
		{name: "nil input", want: luahook.FailRejected},
		{name: "cancelled before", in: preToolUse("bash", `{"command":"x"}`), want: luahook.FailAborted,
			ctx: func() (context.Context, context.CancelFunc) { return cancelled, func() {} }},
		{name: "deadline", in: preToolUse("bash", `{"command":"loop"}`), want: luahook.FailTimeout,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			}},
		{name: "lua error", in: preToolUse("bash", `{"command":"error"}`), want: luahook.FailError},
		{name: "table error", in: preToolUse("bash", `{"command":"table-error"}`), want: luahook.FailError},
		{name: "number returned", in: preToolUse("bash", `{"command":"number"}`), want: luahook.FailInvalidOutput},
		{name: "array returned", in: preToolUse("bash", `{"command":"array"}`), want: luahook.FailInvalidOutput},
		{name: "duplicate key", in: preToolUse("bash", `{"command":"deny","command":"x"}`), want: luahook.FailRejected},
		{name: "too many values", in: preToolUse("bash", `{"command":"deny","a":[1,2,3,4,5,6]}`), want: luahook.FailRejected},
		{name: "invalid JSON", in: preToolUse("bash", `{"command":`), want: luahook.FailError},
		{name: "deny", in: preToolUse("bash", `{"command":"deny"}`), check: func(t *testing.T, out *luahook.Outcome) {
			if out == nil || out.Action != luahook.ActionDeny || out.Reason != "no" {
				t.Errorf("outcome %+v, want deny \"no\"", out)
			}
		}},
		{name: "mutate", in: preToolUse("bash", `{"command":"mutate"}`), check: func(t *testing.T, out *luahook.Outcome) {
			if out == nil || out.Action != luahook.ActionMutate || !strings.Contains(string(out.Input), `"n":9007199254740992`) {
				t.Errorf("outcome %+v, want a mutate with the number as float64 formats it", out)
			}
		}},
		{name: "no objection", in: preToolUse("bash", `{"command":"ls"}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := fileHook
			if c.name == "too many values" {
				file = fileCapped
			}
			for _, h := range []struct {
				name string
				hook luahook.Hook
			}{{"file", file}, {"session", sessionHook}} {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if c.ctx != nil {
					ctx, cancel = c.ctx()
				}
				out, err := h.hook.Call(ctx, c.in)
				cancel()
				var f *luahook.Failure
				switch {
				case c.want == "" && err != nil:
					t.Errorf("%s hook: %v, want no failure", h.name, err)
				case c.want != "" && (!errors.As(err, &f) || f.Kind != c.want):
					t.Errorf("%s hook: %v (%v), want a %s failure", h.name, err, out, c.want)
				case c.check != nil:
					c.check(t, out)
				}
			}
		})
	}
}
