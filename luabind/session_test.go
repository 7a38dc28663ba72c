package luabind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
	"github.com/luahook/luahook/runner"
)

func newSession(t testing.TB, opts SessionOptions) *Session {
	t.Helper()
	s, err := NewSession(opts)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// eval runs src and fails the test on any error.
func eval(t testing.TB, s *Session, src string) []string {
	t.Helper()
	out, err := s.Eval(context.Background(), "stdin", src)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return out
}

func TestSessionEvalPrintsValuesLikeALuaPrompt(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, "x = 40")
	tests := []struct {
		src  string
		want []string
	}{
		{"1 + 1", []string{"2"}},
		{"=1 + 1", []string{"2"}},
		{"x + 2", []string{"42"}},
		{"return 1, 'a', nil", []string{"1", `"a"`, "nil"}},
		{"local y = 3", nil},
		{"", nil},
		{"y", []string{"nil"}}, // locals die with their chunk
		{"function f(a) return a * 2 end", nil},
		{"f(21)", []string{"42"}},
		{"=json.null", []string{"json.null"}},
		{"1.5", []string{"1.5"}},
		{"'tab\\tand \"quote\"'", []string{`"tab\tand \"quote\""`}},
		{"if x > 1 then\n  x = x + 1\nend\nreturn x", []string{"41"}},
	}
	for _, tt := range tests {
		if got := eval(t, s, tt.src); !slices.Equal(got, tt.want) {
			t.Errorf("Eval(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestSessionGlobalsAreNotFrozen(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, "helper = function() return 'ok' end")
	eval(t, s, "hook.register('Stop', nil, function() counter = (counter or 0) + 1 end)")
	h := s.Registrations()[0].Hook
	for range 3 {
		if _, err := h.Call(context.Background(), &luahook.Input{Event: luahook.Stop}); err != nil {
			t.Fatalf("hook: %v", err)
		}
	}
	if got := eval(t, s, "helper(), counter"); !slices.Equal(got, []string{`"ok"`, "3"}) {
		t.Errorf("globals after hook calls = %q, want helper and counter 3", got)
	}
}

func TestSessionKeepsTheSandbox(t *testing.T) {
	s := newSession(t, SessionOptions{})
	for _, src := range []string{"io.open('/etc/passwd')", "os.exit(1)", "dofile('x.lua')", "string.rep('x', 1e9)"} {
		_, err := s.Eval(context.Background(), "stdin", src)
		if err == nil || !strings.Contains(err.Error(), "not available") && !strings.Contains(err.Error(), "exceeds") {
			t.Errorf("Eval(%q) error %v, want the sandbox to refuse it", src, err)
		}
	}
}

func TestSessionIncompleteInputIsRecognised(t *testing.T) {
	s := newSession(t, SessionOptions{})
	tests := []struct {
		src        string
		incomplete bool
	}{
		{"function f()", true},
		{"function f()\n  return 1", true},
		{"t = {", true},
		{"=f(", true},
		{"if x then", true},
		{"x = [[long", true},
		{"x = 1 +", true},
		{"s = 'open\n", false}, // a quoted string cannot span lines
		{"x = = 1", false},
		{"end", false},
	}
	for _, tt := range tests {
		_, err := s.Eval(context.Background(), "stdin", tt.src+"\n")
		if err == nil {
			t.Errorf("Eval(%q) succeeded, want a syntax error", tt.src)
			continue
		}
		if got := Incomplete(err); got != tt.incomplete {
			t.Errorf("Incomplete(Eval(%q)) = %v, want %v (error %v)", tt.src, got, tt.incomplete, err)
		}
	}
}

func TestSessionRuntimeErrorsCarryThePosition(t *testing.T) {
	s := newSession(t, SessionOptions{})
	_, err := s.Eval(context.Background(), "stdin", "local t = nil\nreturn t.x")
	f := failure(t, err)
	if f.Kind != luahook.FailError || !strings.HasPrefix(f.Message, "stdin:2:") {
		t.Errorf("failure %v, want kind error at stdin:2", f)
	}
	if got := eval(t, s, "1"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("after an error Eval = %q, want the session usable", got)
	}
}

func TestSessionEvalStopsWhenTheContextEnds(t *testing.T) {
	s := newSession(t, SessionOptions{})
	started := make(chan struct{})
	s.Do(context.Background(), func(L *lua.LState) error {
		L.SetGlobal("started", L.NewFunction(func(*lua.LState) int { close(started); return 0 }))
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Eval(ctx, "stdin", "started() while true do end")
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if f := failure(t, err); f.Kind != luahook.FailAborted {
			t.Errorf("failure %v, want kind aborted", f)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Eval did not return after its context was cancelled")
	}
	if got := eval(t, s, "1+1"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("after a cancelled Eval = %q, want the session usable", got)
	}
}

func TestFormatPrintsTablesNestedSortedAndMarksCycles(t *testing.T) {
	s := newSession(t, SessionOptions{})
	tests := []struct {
		name, src, want string
	}{
		{"empty", "{}", "{}"},
		{"array inline", "{1, 'two', true}", `{ 1, "two", true }`},
		{"keys sorted after items", "{ 'x', b = 2, a = 1, [10] = 'ten' }", `{ "x", [10] = "ten", a = 1, b = 2 }`},
		{"keyword and odd keys bracketed", "{ ['end'] = 1, ['a b'] = 2 }", `{ ["a b"] = 2, ["end"] = 1 }`},
		{"nested inline", "{ a = { b = { c = 1 } } }", "{ a = { b = { c = 1 } } }"},
		{"cycle", "(function() local t = { name = 't' } t.self = t return t end)()", `{ name = "t", self = <cycle> }`},
		{"shared is not a cycle", "(function() local u = {1} return { a = u, b = u } end)()", "{ a = { 1 }, b = { 1 } }"},
		{"null and functions", "{ n = json.null, f = print }", "{ f = function: builtin, n = json.null }"},
		{"lua function", "function g() end return g", "function: stdin:1"},
		{"long table breaks lines",
			"{ command = 'npm install left-pad', description = 'install a package', timeout = 30000, nested = { deep = { list = { 1, 2, 3 } } } }",
			"{\n  command = \"npm install left-pad\",\n  description = \"install a package\",\n  nested = { deep = { list = { 1, 2, 3 } } },\n  timeout = 30000,\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := eval(t, s, tt.src)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
	big := eval(t, s, "local t = {} for i = 1, 1000 do t[i] = i end return t")[0]
	if !strings.HasSuffix(big, "... (800 more),\n}") {
		t.Errorf("a 1000-item table ends %q, want the items past 200 elided", big[max(0, len(big)-40):])
	}
	deep := eval(t, s, "local t = {} local c = t for i = 1, 40 do c.next = {} c = c.next end return t")[0]
	if !strings.Contains(deep, "{...}") {
		t.Errorf("a 40-deep table prints without the depth cut: %q", deep)
	}
}

func TestSessionHookRegisteredAtThePromptRunsInTheSession(t *testing.T) {
	s := newSession(t, SessionOptions{Name: "repl"})
	id := eval(t, s, `hook.register("PreToolUse", "bash", function(input, rt)
  last_seen = input.toolInput.command
  if last_seen:find("rm -rf", 1, true) then return hook.deny("no: " .. rt.name) end
end, { name = "guard" })`)
	if !slices.Equal(id, []string{`"repl#1"`}) {
		t.Fatalf("hook.register returned %q, want \"repl#1\"", id)
	}
	regs := s.Registrations()
	if len(regs) != 1 || regs[0].Event != luahook.PreToolUse || regs[0].Name != "guard" || regs[0].Source != "stdin:1" {
		t.Fatalf("registrations %+v, want the guard from stdin:1", regs)
	}
	reg := registry.New()
	specs := []luahook.Spec{{Event: regs[0].Event, Matcher: regs[0].Matcher, Name: regs[0].Name, Kind: luahook.KindLua, Hook: regs[0].Hook}}
	if err := reg.ReplaceOwner("repl", specs); err != nil {
		t.Fatal(err)
	}
	run := runner.New(runner.Options{Registry: reg})
	defer run.Close()
	res := run.PreToolUse(context.Background(), preToolUse("bash", `{"command":"rm -rf /"}`))
	if !res.Denied() || res.Reason != "no: guard" {
		t.Errorf("result %+v, want denied by the session hook", res)
	}
	if got := eval(t, s, "last_seen"); !slices.Equal(got, []string{`"rm -rf /"`}) {
		t.Errorf("last_seen = %q, want the hook to have run in the session's state", got)
	}
}

func TestSessionHookIsCancelledAndTheSessionSurvives(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, "hook.register('Stop', nil, function() while true do end end)")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	if f := failure(t, err); f.Kind != luahook.FailTimeout {
		t.Errorf("failure %v, want kind timeout", f)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the hook returned after %v, want soon after its 100ms deadline", d)
	}
	if got := eval(t, s, "1+1"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("after a timed-out hook Eval = %q, want the session usable", got)
	}
}

func TestSessionHookCallsFromManyGoroutinesAreSerialised(t *testing.T) {
	s := newSession(t, SessionOptions{})
	// A read-modify-write with work in between: interleaved calls would lose counts.
	eval(t, s, `n = 0
hook.register('Stop', nil, function()
  local v = n
  for i = 1, 200 do end
  n = v + 1
end)`)
	h := s.Registrations()[0].Hook
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if _, err := h.Call(context.Background(), &luahook.Input{Event: luahook.Stop}); err != nil {
					t.Errorf("hook: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if got := eval(t, s, "n"); !slices.Equal(got, []string{"200"}) {
		t.Errorf("n = %q after 200 calls, want 200", got)
	}
}

func TestSessionHookCalledFromInsideTheSessionBorrowsTheState(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, `hook.register('SessionStart', nil, function() hits = (hits or 0) + 1 return hook.context('a') end)
hook.register('SessionStart', nil, function() hits = (hits or 0) + 1 return hook.context('b') end)`)
	reg := registry.New()
	for _, r := range s.Registrations() {
		if _, err := reg.Register(luahook.Spec{Event: r.Event, Kind: luahook.KindLua, Owner: "repl", Hook: r.Hook}); err != nil {
			t.Fatal(err)
		}
	}
	run := runner.New(runner.Options{Registry: reg})
	defer run.Close()
	// fire() runs the two hooks in parallel, from inside an Eval that holds the state.
	err := s.Do(context.Background(), func(L *lua.LState) error {
		L.SetGlobal("fire", L.NewFunction(func(L *lua.LState) int {
			res := run.SessionStart(L.Context(), &luahook.Input{Event: luahook.SessionStart})
			L.Push(lua.LString(res.AdditionalContext))
			return 1
		}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := s.Eval(ctx, "stdin", "fire(), hits")
	if err != nil {
		t.Fatalf("Eval: %v", err)
	}
	if !slices.Equal(got, []string{`"a\nb"`, "2"}) {
		t.Errorf("fire() from the prompt = %q, want both hooks' context and 2 hits", got)
	}
}

func TestSessionUnregisterRemovesTheHook(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, "a = hook.register('Stop', nil, function() end)\nb = hook.register('Stop', nil, function() end)")
	h := s.Registrations()[0].Hook
	if !s.Unregister("session#1") || s.Unregister("session#1") {
		t.Fatal("Unregister: want true once, then false")
	}
	if regs := s.Registrations(); len(regs) != 1 || regs[0].ID != "session#2" {
		t.Errorf("registrations %+v, want only session#2", regs)
	}
	_, err := h.Call(context.Background(), &luahook.Input{Event: luahook.Stop})
	if f := failure(t, err); f.Kind != luahook.FailRejected {
		t.Errorf("calling an unregistered hook: %v, want kind rejected", f)
	}
}

func TestSessionLoadReplacesTheHooksOfTheSameFile(t *testing.T) {
	s := newSession(t, SessionOptions{})
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.lua")
	write := func(src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eval(t, s, "hook.register('Stop', nil, function() end, { name = 'prompt' })")
	write("hook.register('Stop', nil, function() end, { name = 'v1' })\n")
	for range 2 {
		if err := s.Load(context.Background(), path); err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		var out []string
		for _, r := range s.Registrations() {
			out = append(out, r.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"prompt", "v1"}) {
		t.Fatalf("after loading twice: %q, want the prompt's hook and one v1", got)
	}
	write("hook.register('Stop', nil, function() end, { name = 'v2' })\nerror('broken')\n")
	err := s.Load(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "policy.lua:2: broken") {
		t.Errorf("loading a broken file: %v, want its file:line", err)
	}
	if got := names(); !slices.Equal(got, []string{"prompt", "v1"}) {
		t.Errorf("after a failed load: %q, want v1 kept and v2 dropped", got)
	}
	write("hook.register('Stop', nil, function() end, { name = 'v3' })\n")
	if err := s.Load(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"prompt", "v3"}) {
		t.Errorf("after a good load: %q, want v1 replaced by v3", got)
	}
}

func TestSessionCompletesNamesFieldsAndMethods(t *testing.T) {
	s := newSession(t, SessionOptions{})
	eval(t, s, "greeting = 'hi'\nconfig = { limits = { rate = 60, burst = 5 } }")
	tests := []struct {
		text     string
		fragment string
		want     []string
	}{
		{"hook.reg", "hook.reg", []string{"hook.register"}},
		{"local ok = hook.de", "hook.de", []string{"hook.deny"}},
		{"hoo", "hoo", []string{"hook"}},
		{"re", "re", []string{"re", "repeat", "require", "return"}},
		{"json.n", "json.n", []string{"json.null"}},
		{"config.limits.", "config.limits.", []string{"config.limits.burst", "config.limits.rate"}},
		{"greeting:up", "greeting:up", []string{"greeting:upper"}},
		{"hook:reg", "hook:reg", []string{"hook:register"}},
		{"string.__", "string.__", []string{"string.__index", "string.__metatable"}},
		{"nosuch.x", "nosuch.x", nil},
		{"x = 12", "12", nil},
	}
	for _, tt := range tests {
		frag, got := s.Complete(tt.text)
		if frag != tt.fragment || !slices.Equal(got, tt.want) {
			t.Errorf("Complete(%q) = %q, %q; want %q, %q", tt.text, frag, got, tt.fragment, tt.want)
		}
	}
}

func TestSessionPrintWritesToStdout(t *testing.T) {
	var out bytes.Buffer
	s := newSession(t, SessionOptions{Stdout: &out})
	eval(t, s, "print('a', 1, nil, json.null)")
	if got := out.String(); got != "a\t1\tnil\tnull\n" {
		t.Errorf("print wrote %q", got)
	}
}

func TestSessionConvertsJSONBothWays(t *testing.T) {
	s := newSession(t, SessionOptions{})
	const doc = `{"b":[1,2,{}],"a":null,"c":{"d":"e"},"n":1.5}`
	err := s.Do(context.Background(), func(L *lua.LState) error {
		v, err := s.FromJSON([]byte(doc))
		if err != nil {
			return err
		}
		raw, err := s.ToJSON(v)
		if err != nil {
			return err
		}
		if string(raw) != doc {
			t.Errorf("round trip %s, want %s", raw, doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.EvalJSON(context.Background(), "stdin", "{ toolName = 'bash', toolInput = { command = 'ls' } }")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m["toolName"] != "bash" {
		t.Errorf("EvalJSON = %s (%v), want the table as JSON", raw, err)
	}
}

func TestSessionClosedRejectsCalls(t *testing.T) {
	s, err := NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eval(t, s, "hook.register('Stop', nil, function() end)")
	h := s.Registrations()[0].Hook
	s.Close()
	s.Close()
	if _, err := s.Eval(context.Background(), "stdin", "1"); failure(t, err).Kind != luahook.FailRejected {
		t.Errorf("Eval after Close: %v, want kind rejected", err)
	}
	_, err = h.Call(context.Background(), &luahook.Input{Event: luahook.Stop})
	var f *luahook.Failure
	if !errors.As(err, &f) || f.Kind != luahook.FailRejected {
		t.Errorf("hook after Close: %v, want kind rejected", err)
	}
}

func BenchmarkSessionEval(b *testing.B) {
	s := newSession(b, SessionOptions{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Eval(ctx, "stdin", "1 + 1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSessionHookCall(b *testing.B) {
	s := newSession(b, SessionOptions{})
	eval(b, s, `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:find("rm -rf", 1, true) then return hook.deny("no") end
end)`)
	h := s.Registrations()[0].Hook
	in := preToolUse("bash", `{"command":"ls -la","description":"list files"}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	s := newSession(b, SessionOptions{})
	eval(b, s, `t = { toolName = "bash", toolInput = { command = "npm install left-pad", timeout = 30000,
  env = { "A=1", "B=2" } }, trace = { { name = "prefer-pnpm", durationMs = 0.12 }, { name = "guard" } } }`)
	var v lua.LValue
	s.Do(context.Background(), func(L *lua.LState) error { v = L.GetGlobal("t"); return nil })
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Format(v)
	}
}

func BenchmarkComplete(b *testing.B) {
	s := newSession(b, SessionOptions{})
	b.ReportAllocs()
	for b.Loop() {
		if _, c := s.Complete("x = hook.reg"); len(c) != 1 {
			b.Fatal(c)
		}
	}
}
