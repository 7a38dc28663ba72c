package luabind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func TestLoadErrorsNameFileAndLine(t *testing.T) {
	libDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(libDir, "broken.lua"), []byte("local M = {}\nerror('lib failed')\nreturn M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const ok = "hook.register('Stop', nil, function() end)\n"
	tests := []struct {
		name string
		src  string
		opts Options
		line int
		want string
	}{
		{"syntax error", "local x = 1\nhook.register(\n  'a' 'b' +", Options{}, 3, "syntax error near 'b'"},
		{"unterminated string", "local x = 1\nlocal y = 'abc", Options{}, 2, "unterminated string at end of file"},
		{"runtime error", ok + "local t = nil\nlocal x = t.y\n", Options{}, 3, "attempt to index"},
		{"error call", ok + ok + "error('nope')\n", Options{}, 3, "nope"},
		{"load timeout", ok + "\nwhile true do end\n", Options{LoadTimeout: 100 * time.Millisecond}, 3, "loading timed out after 100ms"},
		{"unknown event", ok + "hook.register('PreToolUsee', nil, function() end)\n", Options{}, 2, `unknown event "PreToolUsee"`},
		{"unknown opts key", ok + "hook.register('Stop', nil, function() end,\n { nmae = 'x' })\n", Options{}, 2, `unknown opts key "nmae"`},
		{"mistyped timeout", "hook.register('Stop', nil, function() end, { timeout_ms = '3000' })\n", Options{}, 1, "opts.timeout_ms must be a positive number"},
		{"negative timeout", "hook.register('Stop', nil, function() end, { timeout_ms = -1 })\n", Options{}, 1, "opts.timeout_ms must be a positive number"},
		{"bad stage", "hook.register('PreToolUse', nil, function() end, { stage = 'late' })\n", Options{}, 1, `opts.stage must be "mutate" or "validate"`},
		{"bad failure policy", "hook.register('Stop', nil, function() end, { failure_policy = 'shut' })\n", Options{}, 1, `opts.failure_policy must be "open" or "closed"`},
		{"mistyped policy", "hook.register('Stop', nil, function() end, { policy = 'yes' })\n", Options{}, 1, "opts.policy must be a boolean"},
		{"mistyped name", "hook.register('Stop', nil, function() end, { name = 7 })\n", Options{}, 1, "opts.name must be a string"},
		{"non-string opts key", "hook.register('Stop', nil, function() end, { 'x' })\n", Options{}, 1, "opts keys must be strings"},
		{"background off PostToolUse", "hook.register('PreToolUse', nil, function() end, { background = true })\n", Options{}, 1, "apply to PostToolUse hooks only"},
		{"opts not a table", "hook.register('Stop', nil, function() end, 'fast')\n", Options{}, 1, "opts (argument #4) must be a table or nil"},
		{"non-function", ok + "\nhook.register('Stop', nil, 'notfn')\n", Options{}, 3, "the hook (argument #3) must be a function, got string"},
		{"matcher not a string", "hook.register('PreToolUse', 42, function() end)\n", Options{}, 1, "the matcher (argument #2) must be a string or nil, got number"},
		{"matcher is the function", "hook.register('PreToolUse', function() end)\n", Options{}, 1, "the matcher (argument #2) must be a string or nil, got function"},
		{"event not a string", "hook.register(nil, 'bash', function() end)\n", Options{}, 1, "bad argument #1 to register"},
		{"error in a required lib", ok + "local b = require('broken')\n", Options{LibDir: libDir}, 2, "lib failed"},
		{"unknown allowed lib", ok, Options{AllowLibs: []string{"debug"}}, 0, `unknown Lua library "debug"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			le := loadError(t, tt.src, tt.opts)
			if le.Path != testPath || le.Line != tt.line {
				t.Errorf("position %s:%d, want %s:%d (error %v)", le.Path, le.Line, testPath, tt.line, le)
			}
			if !strings.Contains(le.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", le.Error(), tt.want)
			}
			if tt.line > 0 && !strings.HasPrefix(le.Error(), testPath+":") {
				t.Errorf("error %q does not start with the file's path", le.Error())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("load took %v", d)
			}
		})
	}
}

func TestLoadIsAllOrNothing(t *testing.T) {
	f, err := loadSrc(testPath, `
hook.register("PreToolUse", "bash", function() return hook.deny("no") end)
hook.register("Stop", nil, function() end)
hook.register("Stop", nil, function() end, { retries = 3 })
`, Options{})
	if err == nil || f != nil {
		t.Fatalf("Load = %v, %v; want no file and an error", f, err)
	}
}

func TestRegistrationCarriesEveryOption(t *testing.T) {
	f := load(t, `
ids = {}
ids[1] = hook.register("PreToolUse", "bash|edit", function() end, {
  name = "guard", stage = "validate", timeout_ms = 3000, failure_policy = "closed", policy = true })
ids[2] = hook.register("PostToolUse", nil, function() end, {
  background = true, run_when_tool_skipped = true, timeout_ms = 0.5 })
hook.register("Stop", nil, function() return hook.deny(ids[1] .. " " .. ids[2]) end)
`, Options{})
	regs := f.Registrations()
	if len(regs) != 3 {
		t.Fatalf("%d registrations, want 3", len(regs))
	}
	want := []Registration{
		{ID: testPath + "#1", Line: 3, Spec: luahook.Spec{Event: luahook.PreToolUse, Matcher: "bash|edit", Name: "guard",
			Kind: luahook.KindLua, Stage: luahook.StageValidate, Timeout: 3 * time.Second, FailurePolicy: luahook.FailClosed,
			Policy: true, Source: testPath + ":3"}},
		{ID: testPath + "#2", Line: 5, Spec: luahook.Spec{Event: luahook.PostToolUse, Kind: luahook.KindLua,
			Background: true, RunWhenToolSkipped: true, Timeout: 500 * time.Microsecond, Source: testPath + ":5"}},
		{ID: testPath + "#3", Line: 7, Spec: luahook.Spec{Event: luahook.Stop, Kind: luahook.KindLua, Source: testPath + ":7"}},
	}
	for i, r := range regs {
		if r.Hook == nil {
			t.Errorf("registration %d has no Hook", i)
		}
		r.Hook = nil
		if r != want[i] {
			t.Errorf("registration %d:\n got %+v\nwant %+v", i, r, want[i])
		}
	}
	out, err := call(t, f, 2, &luahook.Input{Event: luahook.Stop})
	if err != nil || out.Reason != testPath+"#1 "+testPath+"#2" {
		t.Errorf("hook.register returned ids %v, %v; want the registrations' IDs", out, err)
	}
}

func TestRegisterInsideAHookCallIsAnError(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function()
  hook.register("Stop", nil, function() end)
end)`, Options{})
	_, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
	fl := failure(t, err)
	if fl.Kind != luahook.FailError || !strings.Contains(fl.Message, testPath+":2: hook.register can only be called while the file loads") {
		t.Errorf("failure %v", fl)
	}
}

func TestCompileErrorIsALoadError(t *testing.T) {
	_, err := Compile("hooks.d/bad.lua", []byte("x = = 1"))
	if err == nil || !strings.HasPrefix(err.Error(), "hooks.d/bad.lua:1: ") {
		t.Errorf("Compile error %v, want it to start with hooks.d/bad.lua:1:", err)
	}
}

func TestNonDeterministicFileIsRefusedWhenThePoolGrows(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"different count", `
if store.incr("loads") == 1 then
  hook.register("Stop", nil, function() return hook.deny("first") end)
end
hook.register("Stop", nil, function() return hook.deny("always") end)
`, "registered 1 hooks, the first one 2"},
		{"different line", `
if store.incr("loads") == 1 then
  hook.register("Stop", nil, function() return hook.deny("first") end)
else
  hook.register("Stop", nil, function() return hook.deny("other") end)
end
`, "registration #1 differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, tt.src, Options{MaxStates: 2})
			ctx := context.Background()
			held, err := f.pool.get(ctx, 0) // the first state, so that the next call needs a new one
			if err != nil {
				t.Fatal(err)
			}
			_, err = call(t, f, 0, &luahook.Input{Event: luahook.Stop})
			fl := failure(t, err)
			if fl.Kind != luahook.FailError || !strings.Contains(fl.Message, "not deterministic") || !strings.Contains(fl.Message, tt.want) {
				t.Errorf("failure %v, want a FailError about %q", fl, tt.want)
			}
			f.pool.put(held)
			out, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop})
			if err != nil || out == nil || out.Reason != "first" {
				t.Errorf("the first state after the refusal: %v, %v; want deny \"first\"", out, err)
			}
			if s := f.Stats(); s.Created != 1 || s.Idle != 1 || s.Busy != 0 {
				t.Errorf("stats %+v, want the one first state, idle", s)
			}
		})
	}
}

func TestPoolGrowsWithIdenticalRegistrations(t *testing.T) {
	f := load(t, `hook.register("Stop", nil, function() return hook.deny("ok") end)`, Options{MaxStates: 3})
	var held []*state
	for i := 0; i < 3; i++ {
		st, err := f.pool.get(context.Background(), 0)
		if err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
		held = append(held, st)
	}
	if s := f.Stats(); s.Created != 3 || s.Busy != 3 {
		t.Errorf("stats %+v, want 3 created and busy", s)
	}
	for _, st := range held {
		f.pool.put(st)
	}
	if s := f.Stats(); s.Idle != 3 || s.Busy != 0 {
		t.Errorf("stats %+v, want 3 idle", s)
	}
}
