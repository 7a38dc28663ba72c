package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/host"
	"github.com/luahook/luahook/luabind"
	"github.com/luahook/luahook/runner"
)

// hostEngine opens an engine on one hook file, hook.lua, with mods.
func hostEngine(t *testing.T, src string, mods ...host.Module) *Engine {
	t.Helper()
	e := openEngine(t, Options{Dir: hooksDir(t, map[string]string{"hook.lua": src}), NoWatch: true, Host: mods})
	if err := e.Err(); err != nil {
		t.Fatalf("load: %v", err)
	}
	return e
}

// fireBash fires a PreToolUse bash event at e under timeout.
func fireBash(t *testing.T, e *Engine, timeout time.Duration) runner.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return e.Runner().Fire(ctx, bashInput(t.TempDir()))
}

// denyReason runs a guard whose body returns hook.deny(<expr>) and
// returns the reason, failing the test if the hook failed.
func hookFailure(t *testing.T, r runner.Result) *luahook.Failure {
	t.Helper()
	if len(r.Trace) != 1 {
		t.Fatalf("trace has %d entries, want 1", len(r.Trace))
	}
	return r.Trace[0].Failure
}

// guard is a hook file whose PreToolUse guard denies with the string body
// evaluates to.
func guard(prelude, body string, opts string) string {
	if opts == "" {
		opts = `{ name = "g" }`
	}
	return prelude + "\nhook.register('PreToolUse', nil, function(input, rt)\n" + body + "\nend, " + opts + ")\n"
}

func reasonOf(t *testing.T, r runner.Result) string {
	t.Helper()
	if f := hookFailure(t, r); f != nil {
		t.Fatalf("hook failed: %v", f)
	}
	return r.Reason
}

type repoInfo struct {
	Branch  string
	Dirty   bool
	Tagged  string `luar:"tag"`
	Secret  string `luar:"-"`
	private string
	Hook    func()
	Ch      chan int
	Any     any
	Owner   owner
	Labels  map[string]int
	Commits []string
	Next    *repoInfo
}

type owner struct{ Name string }

func (o owner) Shout() string { return strings.ToUpper(o.Name) }

func (r repoInfo) Describe() string { return r.Branch + "!" }
func (r *repoInfo) SetBranch(b string) string {
	r.Branch = b
	return r.Branch
}

func TestHostStructShowsExportedFieldsAndMethodsOnly(t *testing.T) {
	info := &repoInfo{Branch: "main", Dirty: true, Tagged: "v1", Secret: "s", private: "p", Hook: func() {},
		Ch: make(chan int), Any: func() {}, Owner: owner{Name: "ann"}, Labels: map[string]int{"a": 1}, Commits: []string{"c1"}}
	e := hostEngine(t, guard(`local repo = require("host.repo").info`, `
		local seen = {}
		for _, k in ipairs({"Branch", "branch", "Dirty", "dirty", "tag", "Tagged", "Secret", "secret", "private",
			"Hook", "Ch", "Any", "Describe", "describe", "SetBranch", "Labels", "Commits", "Next"}) do
			if repo[k] ~= nil then seen[#seen+1] = k end
		end
		seen[#seen+1] = repo:Describe()
		seen[#seen+1] = repo:describe()
		seen[#seen+1] = tostring(repo.Owner.Shout) .. "/" .. tostring(repo.owner.shout) .. "/" .. repo.Owner.Name
		return hook.deny(table.concat(seen, ","))`, ""),
		host.Module{Name: "repo", Members: map[string]any{"info": info}})
	got := reasonOf(t, fireBash(t, e, 5*time.Second))
	want := "Branch,branch,Dirty,dirty,tag,Describe,describe,SetBranch,Labels,Commits,main!,main!,nil/nil/ann"
	if got != want {
		t.Fatalf("visible: got %q\nwant %q", got, want)
	}
}

func TestHostFunctionGetsTheHookContextAndStopsAtTheDeadline(t *testing.T) {
	var mu sync.Mutex
	var sawDeadline bool
	var call *host.Call
	var tool string
	stopped := make(chan error, 1)
	wait := func(ctx context.Context, s string) (bool, error) {
		_, ok := ctx.Deadline()
		mu.Lock()
		sawDeadline, call = ok, host.CallOf(ctx)
		if call != nil && call.Input != nil {
			tool = call.Input.ToolName // the payload is the call's: read it while the call runs
		}
		mu.Unlock()
		<-ctx.Done()
		stopped <- ctx.Err()
		return false, ctx.Err()
	}
	// The hook's 200 ms are for reaching m.wait, which a machine busy with
	// other work can delay by tens of ms; m.wait then waits for the deadline.
	e := hostEngine(t, guard(`local m = require("host.slow")`, `return hook.deny(tostring(m.wait("x")))`, `{ name = "waiter", timeout_ms = 200 }`),
		host.Module{Name: "slow", Members: map[string]any{"wait": wait}})
	r := fireBash(t, e, 10*time.Second)
	f := hookFailure(t, r)
	if f == nil || f.Kind != luahook.FailTimeout {
		t.Fatalf("failure = %v, want timed out", f)
	}
	select {
	case err := <-stopped:
		if err != context.DeadlineExceeded {
			t.Fatalf("the host function saw %v, want the deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the host function was never called, or its context never ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if !sawDeadline || call == nil || call.Hook != "waiter" || tool != "bash" || !strings.HasSuffix(call.File, "hook.lua") {
		t.Fatalf("deadline %v, call %+v %+v: want the hook's deadline, name, file and payload", sawDeadline, call, tool)
	}
}

func TestHostFunctionThatIgnoresItsContextDoesNotHoldTheHook(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	block := func() string { <-release; return "late" }
	e := hostEngine(t, guard(`local m = require("host.stuck")`, `return hook.deny(m.block())`, `{ name = "stuck", timeout_ms = 30, failure_policy = "closed" }`),
		host.Module{Name: "stuck", Members: map[string]any{"block": block}})
	r := fireBash(t, e, 10*time.Second)
	if f := hookFailure(t, r); f == nil || f.Kind != luahook.FailTimeout || !r.Denied() {
		t.Fatalf("failure %v, denied %v: want timed out and a fail-closed deny, while the host function still blocks", f, r.Denied())
	}
}

// TestHostStraysAreBoundedPerModule: at most 64 calls of a module's
// functions run on past their deadline; past that, a call of the module
// fails at once and starts nothing until the strays return. The strays are
// counted, not timed: "stuck" times out after 25 ms, and a call that a busy
// machine delays past those 25 ms before it reaches the host function
// leaves no stray; "patient" has 10 s, so its calls always reach the host
// function, where the bound must refuse them at once (without it, they
// would block until their deadline and time out).
func TestHostStraysAreBoundedPerModule(t *testing.T) {
	const maxStrays = 64 // hostbridge.MaxStrays
	const refused = "host.stuck.block: 64 calls of host.stuck are still running past their deadline"
	release := make(chan struct{})
	var entered atomic.Int64
	block := func() string { entered.Add(1); <-release; return "late" }
	e := hostEngine(t, `local m = require("host.stuck")
hook.register('PreToolUse', 'bash', function() return hook.deny(m.block()) end, { name = "stuck", timeout_ms = 25 })
hook.register('PreToolUse', 'patient', function() return hook.deny(m.block()) end, { name = "patient", timeout_ms = 10000 })
`, host.Module{Name: "stuck", Members: map[string]any{"block": block}})
	patient := func() runner.Result {
		in := bashInput(t.TempDir())
		in.ToolName = "patient"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return e.Runner().Fire(ctx, in)
	}

	timeouts := 0
	for { // until the module holds its strays' bound
		f := hookFailure(t, fireBash(t, e, 10*time.Second))
		if f != nil && f.Kind == luahook.FailError && strings.Contains(f.Message, refused) {
			break
		}
		if f == nil || f.Kind != luahook.FailTimeout {
			t.Fatalf("call %d: failure %v, want timed out", timeouts, f)
		}
		if timeouts++; timeouts > 10*maxStrays {
			t.Fatalf("%d calls timed out and none was refused: the strays are not bounded (%d host calls running)", timeouts, entered.Load())
		}
	}
	if timeouts < maxStrays {
		t.Fatalf("refused after %d timed-out calls, want at least %d", timeouts, maxStrays)
	}
	for i := 0; entered.Load() < maxStrays; i++ { // each stray's host call starts on its own goroutine
		if i > 1000 {
			t.Fatalf("%d host calls started, want %d strays", entered.Load(), maxStrays)
		}
		time.Sleep(10 * time.Millisecond)
	}
	base := runtime.NumGoroutine()
	for i := range 20 {
		f := hookFailure(t, patient())
		if f == nil || f.Kind != luahook.FailError || !strings.Contains(f.Message, refused) {
			t.Fatalf("call %d past the bound: failure %v, want an immediate error", i, f)
		}
	}
	if n := entered.Load(); n != maxStrays {
		t.Fatalf("%d host calls started, want the %d strays only", n, maxStrays)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		t.Fatalf("goroutines grew from %d to %d past the bound", base, n)
	}
	close(release)
	for i := 0; ; i++ { // the strays return, and calls start again
		r := patient()
		if f := hookFailure(t, r); f == nil {
			if r.Reason != "late" {
				t.Fatalf("reason %q, want late", r.Reason)
			}
			break
		} else if i > 100000 {
			t.Fatalf("calls still refused after the strays were released: %v", f)
		}
		runtime.Gosched()
	}
}

func TestHostPanicIsAnErrorFailureNamingTheHook(t *testing.T) {
	boom := func() string { panic("kaboom") }
	mods := host.Module{Name: "p", Members: map[string]any{"boom": boom, "ok": func() string { return "fine" }}}
	src := `local m = require("host.p")
hook.register('PreToolUse', nil, function() return hook.deny(m.boom()) end, { name = "closed-guard", failure_policy = "closed" })
hook.register('PreToolUse', nil, function() m.boom() end, { name = "open-guard", failure_policy = "open" })
`
	e := hostEngine(t, src, mods)
	r := fireBash(t, e, 10*time.Second)
	if !r.Denied() || r.DecidedBy != "closed-guard" {
		t.Fatalf("denied %v by %q, want the fail-closed hook to deny", r.Denied(), r.DecidedBy)
	}
	for _, tr := range r.Trace {
		if tr.Skipped != "" {
			continue // not reached after the deny
		}
		if tr.Failure == nil || tr.Failure.Kind != luahook.FailError || !strings.Contains(tr.Failure.Message, "host.p.boom panicked: kaboom") {
			t.Fatalf("%s: failure %v, want kind error with the panic", tr.Name, tr.Failure)
		}
	}
	if !strings.Contains(r.Reason, "closed-guard") {
		t.Fatalf("reason %q does not name the hook", r.Reason)
	}
	// Fail-open alone: skipped, and the host keeps serving.
	e2 := hostEngine(t, `local m = require("host.p")
hook.register('PreToolUse', nil, function() m.boom() end, { name = "open-guard", failure_policy = "open" })
hook.register('PreToolUse', nil, function() return hook.deny(m.ok()) end, { name = "after" })`, mods)
	for range 3 {
		r := fireBash(t, e2, 10*time.Second)
		if !r.Denied() || r.Reason != "fine" || r.Trace[0].Failure == nil {
			t.Fatalf("denied %v reason %q: want the fail-open failure skipped and the next hook to decide", r.Denied(), r.Reason)
		}
	}
}

type limits struct {
	Max   int
	Tags  []string
	Inner *owner
}

func TestHostValuesCannotChangeHostState(t *testing.T) {
	cfg := map[string]int{"a": 1}
	list := []string{"x"}
	lim := &limits{Max: 3, Tags: []string{"t"}, Inner: &owner{Name: "ann"}}
	mods := host.Module{Name: "v", Members: map[string]any{
		"cfg": cfg, "list": list, "lim": lim,
		"getCfg":  func() map[string]int { return cfg },
		"getList": func() []string { return list },
		"getLim":  func() *limits { return lim },
		"info":    &repoInfo{Branch: "main"},
	}}
	attempts := []struct{ name, code, want string }{
		{"assign member map", `m.cfg.a = 2`, "read-only"},
		{"rawset member map", `rawset(m.cfg, "a", 2)`, "read-only"},
		{"table.insert member list", `table.insert(m.list, "y")`, "read-only"},
		{"assign module", `m.cfg = {}`, "read-only"},
		{"assign struct field", `m.lim.Max = 9`, "host value engine.limits is read-only (assignment to Max)"},
		{"assign through pointer field", `m.lim.Inner.Name = "bob"`, "read-only"},
		{"assign slice field copy", `m.lim.Tags[1] = "u"`, ""},
		{"assign result map", `local c = m.getCfg(); c.a = 2; rawset(c, "b", 3)`, ""},
		{"insert result list", `local l = m.getList(); table.insert(l, "y"); l[1] = "z"`, ""},
		{"assign result struct", `m.getLim().Max = 9`, "read-only"},
		{"pointer-receiver method", `assert(m.info:SetBranch("evil") == "evil"); assert(m.info.Branch == "main")`, ""},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			e := hostEngine(t, guard(`local m = require("host.v")`, `
				local ok, err = pcall(function() `+a.code+` end)
				return hook.deny(ok and "ok" or tostring(err))`, ""), mods)
			got := reasonOf(t, fireBash(t, e, 10*time.Second))
			if a.want == "" && got != "ok" || a.want != "" && !strings.Contains(got, a.want) {
				t.Fatalf("got %q, want %q", got, a.want)
			}
		})
	}
	if cfg["a"] != 1 || len(cfg) != 1 || len(list) != 1 || list[0] != "x" || lim.Max != 3 || lim.Tags[0] != "t" || lim.Inner.Name != "ann" {
		t.Fatalf("host state changed: %v %v %+v %+v", cfg, list, lim, lim.Inner)
	}
}

// Each read and each write Lua makes of a Writable map is one access under
// the host's lock: 100 hook calls on 4 goroutines each add their own key
// while the host writes under the same lock (go test -race), and every key
// arrives. (A read-modify-write in Lua is two accesses, not one: a counter
// belongs in store.incr or a host function.)
func TestHostWritableMapIsWrittenUnderItsLock(t *testing.T) {
	var mu sync.Mutex
	flags := map[string]int{"seen": 0}
	var ids atomic.Int64
	e := hostEngine(t, guard(`local m = require("host.w")`, `
		local f = m.flags
		f["call" .. m.next_id()] = f.seen + 1
		f.tmp = 1
		f.tmp = nil
		local n = 0
		for k, v in f() do n = n + 1 end
		return hook.deny(tostring(n) .. "/" .. #f)`, ""),
		host.Module{Name: "w", Members: map[string]any{"flags": host.Writable(flags, &mu),
			"next_id": func() int64 { return ids.Add(1) }}})
	done := make(chan struct{})
	go func() { // the host writes too, under the same lock
		defer close(done)
		for i := range 200 {
			mu.Lock()
			flags["host"] = i
			mu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				r := fireBash(t, e, 10*time.Second)
				if f := hookFailure(t, r); f != nil {
					t.Errorf("hook failed: %v", f)
					return
				}
			}
		}()
	}
	wg.Wait()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i <= 100; i++ {
		if flags["call"+strconv.Itoa(i)] != 1 {
			t.Fatalf("call%d = %d, want 1 (every call's write under the lock): %v", i, flags["call"+strconv.Itoa(i)], flags)
		}
	}
	if _, ok := flags["tmp"]; ok {
		t.Fatal("assigning nil did not delete the key")
	}
}

func TestOpenRefusesModulesItCannotExpose(t *testing.T) {
	cases := []struct {
		name string
		mods []host.Module
		want string
	}{
		{"invalid name", []host.Module{{Name: "bad-name", Members: map[string]any{"x": 1}}}, `host module "bad-name": a name is dot-separated words`},
		{"duplicate name", []host.Module{{Name: "a", Members: map[string]any{}}, {Name: "a"}}, `host module "a": given twice`},
		{"chan member", []host.Module{{Name: "a", Members: map[string]any{"ch": make(chan int)}}}, `host module "a": member "ch": chan int is a chan`},
		{"func with a chan parameter", []host.Module{{Name: "a", Members: map[string]any{"f": func(chan int) {}}}}, `host module "a": member "f": parameter 1: chan int is a chan`},
		{"func returning a func", []host.Module{{Name: "a", Members: map[string]any{"f": func() func() { return nil }}}}, `host module "a": member "f": result 1: func() is a func`},
		{"context not first", []host.Module{{Name: "a", Members: map[string]any{"f": func(string, context.Context) {}}}}, `member "f": parameter 2: a context.Context must be the first parameter`},
		{"Writable of a non-map", []host.Module{{Name: "a", Members: map[string]any{"w": host.Writable([]int{1}, &sync.Mutex{})}}}, `host module "a": member "w": Writable takes a map with string keys or a pointer to a struct, not []int`},
		{"integer beyond 2^53", []host.Module{{Name: "a", Members: map[string]any{"id": []int64{1, 1 << 60}}}}, `member "id": at [2]: the integer 1152921504606846976 is beyond ±2^53`},
		{"map with a nil key", []host.Module{{Name: "a", Members: map[string]any{"m": map[any]int{nil: 1}}}}, `member "m": a nil map key`},
		{"bad member name", []host.Module{{Name: "a", Members: map[string]any{"1x": 1}}}, `member "1x": a member name is a Lua identifier`},
		{"method with a func parameter", []host.Module{{Name: "a", Members: map[string]any{"r": badMethod{}}}}, `member "r": method engine.badMethod.Each: parameter 1: func(string) is a func`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(context.Background(), Options{Dir: hooksDir(t, nil), NoWatch: true, Host: c.mods})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v\nwant an error containing %q", err, c.want)
			}
			if _, err := New(Options{Host: c.mods}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New: %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

type badMethod struct{}

func (badMethod) Each(fn func(string)) {}

func TestRequireOfAMissingHostModuleNamesFileLineAndTheModules(t *testing.T) {
	dir := hooksDir(t, map[string]string{"hook.lua": "-- a guard\nlocal q = require(\"host.quotas\")\n"})
	e := openEngine(t, Options{Dir: dir, NoWatch: true, Host: []host.Module{{Name: "quota"}, {Name: "git"}}})
	err := e.Err()
	want := `hook.lua:2: require "host.quotas": no host module "quotas" (this host provides: git, quota); did you mean "host.quota"?`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("load error %v\nwant it to contain %q", err, want)
	}
	// The host. namespace never reads hooks.d/lib, and a host without
	// modules says so.
	writeFile(t, filepath.Join(dir, "lib", "host", "x.lua"), "return 1")
	writeFile(t, filepath.Join(dir, "hook.lua"), "local x = require(\"host.x\")\n")
	e2 := openEngine(t, Options{Dir: dir, NoWatch: true})
	if err := e2.Err(); err == nil || !strings.Contains(err.Error(), `hook.lua:1: require "host.x": no host module "x": this host provides no host modules`) {
		t.Fatalf("load error %v", err)
	}
}

func TestNewGivesSessionsTheHostModules(t *testing.T) {
	calls := 0
	e, err := New(Options{Host: []host.Module{{Name: "n", Members: map[string]any{
		"count": func(ctx context.Context) (int, error) {
			v, err := host.Memo(ctx, "k", func() (any, error) { calls++; return calls, nil })
			return v.(int), err
		},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sess, err := luabind.NewSession(luabind.SessionOptions{Options: e.LuaOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for want := 1; want <= 2; want++ { // each evaluation is its own call: Memo runs again
		got, err := sess.Eval(context.Background(), "stdin", `local n = require("host.n"); return n.count() + n.count()`)
		if err != nil || len(got) != 1 || got[0] != strconv.Itoa(2*want) {
			t.Fatalf("eval %d: %v %v, want %d", want, got, err, 2*want)
		}
	}
}

type settings struct {
	Mode  string
	Limit int
}

func TestHostWritableStructIsLive(t *testing.T) {
	var mu sync.Mutex
	s := &settings{Mode: "warn", Limit: 1}
	e := hostEngine(t, guard(`local m = require("host.cfg")`, `
		local c = m.settings
		c.limit = c.limit + 1
		c.Mode = "block"
		local ok, err = pcall(function() c.Nope = 1 end)
		local ok2, err2 = pcall(function() c.Limit = 1.5 end)
		local names = {}
		for k, v in c() do names[#names+1] = k .. "=" .. tostring(v) end
		return hook.deny(table.concat(names, ",") .. " | " .. tostring(err) .. " | " .. tostring(err2))`, ""),
		host.Module{Name: "cfg", Members: map[string]any{"settings": host.Writable(s, &mu)}})
	got := reasonOf(t, fireBash(t, e, 10*time.Second))
	if !strings.HasPrefix(got, "Limit=2,Mode=block | ") || !strings.Contains(got, "has no field Nope") || !strings.Contains(got, "want an integer (int), got 1.5") {
		t.Fatalf("got %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if s.Mode != "block" || s.Limit != 2 {
		t.Fatalf("host struct %+v, want the writes", s)
	}
}

// A host that holds a Writable's lock does not hold the hook past its
// deadline: the hook fails, timed out, while the lock is still held.
func TestHostWritableLockHeldByTheHostDoesNotHoldTheHook(t *testing.T) {
	var mu sync.Mutex
	flags := map[string]int{"seen": 0}
	e := hostEngine(t, guard(`local m = require("host.w")`, `return hook.deny(tostring(m.flags.seen))`,
		`{ name = "w", timeout_ms = 30, failure_policy = "closed" }`),
		host.Module{Name: "w", Members: map[string]any{"flags": host.Writable(flags, &mu)}})
	mu.Lock()
	defer mu.Unlock()
	r := fireBash(t, e, 10*time.Second)
	if f := hookFailure(t, r); f == nil || f.Kind != luahook.FailTimeout || !r.Denied() {
		t.Fatalf("failure %v, denied %v: want timed out and a fail-closed deny while the host holds the lock", f, r.Denied())
	}
}

// Lua cannot grow a Writable map past the file's max_input_values keys;
// keys it already holds can still be written.
func TestHostWritableMapIsBoundedInKeys(t *testing.T) {
	var mu sync.Mutex
	flags := map[string]int{}
	dir := hooksDir(t, map[string]string{
		"hook.lua": guard(`local m = require("host.w")`, `
			local f = m.flags
			for i = 1, 20 do f["k" .. i] = i end
			return hook.deny("filled")`, `{ name = "w" }`),
		"set.lua": `hook.register('PostToolUse', nil, function() require("host.w").flags.k1 = 100 end, { name = "set" })`,
	})
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(cfg, []byte("[lua]\nmax_input_values = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, Options{Dir: dir, ConfigPath: cfg, NoWatch: true,
		Host: []host.Module{{Name: "w", Members: map[string]any{"flags": host.Writable(flags, &mu)}}}})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	r := fireBash(t, e, 10*time.Second)
	f := hookFailure(t, r)
	if f == nil || !strings.Contains(f.Error(), "host.w.flags holds 10 keys, the most Lua may fill it with") {
		t.Fatalf("failure %v: want the key cap", f)
	}
	in := bashInput(t.TempDir())
	in.Event, in.ToolResult = luahook.PostToolUse, &luahook.ToolResult{Content: "ok"}
	post := e.Runner().Fire(context.Background(), in)
	for _, tr := range post.Trace {
		if tr.Failure != nil {
			t.Fatalf("writing a key the map holds failed: %v", tr.Failure)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(flags) != 10 || flags["k1"] != 100 {
		t.Fatalf("flags = %v: want 10 keys, k1 rewritten to 100", flags)
	}
}
