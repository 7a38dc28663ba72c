package luabind

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

// A REPL or policy-test session's hooks once skipped the input cap, which
// luabind applied to hook files only; the runner applies it to every hook.
func TestSessionHooksGetTheRunnersInputCap(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, `ran = false
hook.register("PreToolUse", "bash", function() ran = true end, {name = "session-hook"})`)
	reg := registry.New()
	if _, err := reg.Register(luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash", Name: "session-hook",
		Kind: luahook.KindLua, Hook: s.Registrations()[0].Hook}); err != nil {
		t.Fatal(err)
	}
	r := runner.New(runner.Options{Registry: reg, MaxInputBytes: 1 << 10})
	defer r.Close()
	in := preToolUse("bash", `{"command":"`+strings.Repeat("x", 2<<10)+`"}`)
	res := r.PreToolUse(context.Background(), in)
	if len(res.Trace) != 1 || res.Trace[0].Failure == nil || res.Trace[0].Failure.Kind != luahook.FailRejected ||
		!strings.Contains(res.Trace[0].Failure.Message, "max_input_bytes") {
		t.Fatalf("trace %+v, want the session hook rejected over max_input_bytes", res.Trace)
	}
	if !res.Denied() {
		t.Errorf("result %+v, want denied", res)
	}
	var ran bool
	out, err := s.EvalJSON(context.Background(), "check", "ran")
	if err != nil || json.Unmarshal(out, &ran) != nil || ran {
		t.Errorf("ran = %s, %v; want the hook never called", out, err)
	}
}
