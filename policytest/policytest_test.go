package policytest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// guard is a hook file for the tests: it denies bash commands containing
// "rm -rf" and rewrites "npm" into "pnpm".
const guard = `
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:find("rm -rf", 1, true) then return hook.deny("dangerous: " .. cmd) end
  if cmd == "make" then return hook.allow() end
  if cmd:find("^git push") then return hook.ask("push to the remote?") end
  if cmd:find("^npm ") then
    return hook.mutate({ command = "p" .. cmd, cwd = input.toolInput.cwd })
  end
end, { name = "guard" })
hook.register("SessionStart", nil, function() return hook.context("be nice") end)
`

// folder writes files into a new temporary folder and returns its path.
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs the tests of paths and returns the summary and the output.
func run(t *testing.T, opts Options) (Summary, string) {
	t.Helper()
	var out bytes.Buffer
	opts.Out = &out
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	return sum, out.String()
}

var summaryLine = regexp.MustCompile(`(?m)\A(?:.*\n)*\d+ passed, \d+ failed\n\z`)

// TestRunReportsEachCaseAndEndsWithTheSummary runs a few of the shipped
// cases (every shipped case runs in hooks.d's own tests) and reads the
// report: a line per case, naming its file, and the summary line last.
func TestRunReportsEachCaseAndEndsWithTheSummary(t *testing.T) {
	sum, out := run(t, Options{Paths: []string{"../hooks.d"}, Run: "^(denies rm -rf /|allows grep -r TODO src)$"})
	if sum.Failed != 0 || sum.Passed < 2 {
		t.Errorf("%v, want the selected shipped cases to pass:\n%s", sum, out)
	}
	if !strings.Contains(out, "ok   ../hooks.d/10-dangerous-commands_test.lua denies rm -rf /") {
		t.Errorf("no line for the case, naming its file:\n%s", out)
	}
	if !summaryLine.MatchString(out) {
		t.Errorf("output does not end with the summary line:\n%s", out)
	}
}

func TestFailingAssertionNamesTheFileAndLineOfTheAssertion(t *testing.T) {
	dir := folder(t, map[string]string{
		"guard.lua": guard,
		"guard_test.lua": `test("rm is denied", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf /" } }))
end)

test("ls is denied", function()
  local r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls" } })
  expect.denied(r)
end)
`,
	})
	sum, out := run(t, Options{Paths: []string{dir}})
	path := filepath.Join(dir, "guard_test.lua")
	if sum != (Summary{Passed: 1, Failed: 1}) {
		t.Errorf("summary %v, want 1 passed, 1 failed", sum)
	}
	if !regexp.MustCompile(`(?m)^ok   ` + regexp.QuoteMeta(path) + ` rm is denied \([0-9.]+[µm]?s\)$`).MatchString(out) {
		t.Errorf("no ok line for the passing case:\n%s", out)
	}
	want := "FAIL " + path + " ls is denied\n    " + path + ":7: expected a denial, but no hook objected (expect.no_objection); 1 hook(s) ran\n"
	if !strings.Contains(out, want) {
		t.Errorf("output\n%s\nwant it to contain\n%s", out, want)
	}
	if !strings.HasSuffix(out, "\n1 passed, 1 failed\n") {
		t.Errorf("output does not end with the summary:\n%s", out)
	}
}

func TestAssertionsFailWithWhatWentWrong(t *testing.T) {
	dir := folder(t, map[string]string{"guard.lua": guard})
	bash := func(cmd string) string {
		return `fire("PreToolUse", { toolName = "bash", toolInput = { command = "` + cmd + `", cwd = "/w" } })`
	}
	tests := []struct {
		name, body, want string
	}{
		{"denied passes", "expect.denied(" + bash("rm -rf /") + ", 'dangerous')", ""},
		{"denied on a call no hook objected to", "expect.denied(" + bash("ls") + ")", "expected a denial, but no hook objected (expect.no_objection); 1 hook(s) ran"},
		{"denied on an ask", "expect.denied(" + bash("git push") + ")", `expected a denial, but it was handed to the user by "guard": push to the remote?`},
		{"denied with another reason", "expect.denied(" + bash("rm -rf /") + ", 'forbidden')", `expected the reason to contain "forbidden", got "dangerous: rm -rf /"`},
		{"asked passes", "expect.asked(" + bash("git push") + ", 'remote')", ""},
		{"asked with another reason", "expect.asked(" + bash("git push") + ", 'force')", `expected the reason to contain "force", got "push to the remote?"`},
		{"asked on a denial", "expect.asked(" + bash("rm -rf x") + ")", `expected the call to be handed to the user (hook.ask), but it was denied by "guard": dangerous: rm -rf x`},
		{"asked on no objection", "expect.asked(" + bash("ls") + ")", "but no hook objected (expect.no_objection)"},
		{"allowed passes", "expect.allowed(" + bash("make") + ")", ""},
		{"allowed on no objection", "expect.allowed(" + bash("ls") + ")", "expected an explicit allow (hook.allow()), but no hook objected (expect.no_objection); 1 hook(s) ran"},
		{"allowed on a denial", "expect.allowed(" + bash("rm -rf x") + ")", `expected an explicit allow (hook.allow()), but it was denied by "guard": dangerous: rm -rf x`},
		{"allowed on an ask", "expect.allowed(" + bash("git push") + ")", `but it was handed to the user by "guard": push to the remote?`},
		{"no objection passes", "expect.no_objection(" + bash("ls") + ")", ""},
		{"no objection on an allow", "expect.no_objection(" + bash("make") + ")", `expected no hook to object, but it was allowed explicitly by "guard" (expect.allowed)`},
		{"no objection on a rewrite", "expect.no_objection(" + bash("npm i") + ")", `expected no hook to object, but its input was rewritten by "guard" (expect.mutated)`},
		{"no objection with a failing hook", "expect.no_objection(fire('PreToolUse', { toolName = 'bash' }))", `the call was let through, but hook "guard" failed (error):`},
		{"proceeds passes on no objection, an allow and a rewrite", "expect.proceeds(" + bash("ls") + ") expect.proceeds(" + bash("make") + ") expect.proceeds(" + bash("npm i") + ")", ""},
		{"proceeds on an ask", "expect.proceeds(" + bash("git push") + ")", `expected the call to proceed, but it was handed to the user by "guard"`},
		{"proceeds on a denial", "expect.proceeds(" + bash("rm -rf x") + ")", `expected the call to proceed, but it was denied by "guard"`},
		{"mutated passes", "expect.mutated(" + bash("npm i") + ", { command = 'pnpm i' })", ""},
		{"mutated without a rewrite", "expect.mutated(" + bash("ls") + ")", "expected the input to be rewritten, but no hook changed it"},
		{"mutated differently", "expect.mutated(" + bash("npm i") + ", { command = 'yarn' })", `(at input.command)`},
		{"context passes", "expect.context(fire('SessionStart'), 'nice')", ""},
		{"context missing", "expect.context(" + bash("ls") + ", 'hello')", `expected additional context containing "hello", but there is none`},
		{"context different", "expect.context(fire('SessionStart'), 'rude')", `expected the additional context to contain "rude", got "be nice"`},
		{"eq passes on tables", "expect.eq({ a = { 1, 2 }, b = json.null }, { b = json.null, a = { 1, 2 } })", ""},
		{"eq on tables", "expect.eq({ a = { 1, 2 } }, { a = { 1, 3 } }, 'items')", "items: got { a = { 1, 2 } }, want { a = { 1, 3 } }"},
		{"eq on extra keys", "expect.eq({ a = 1, b = 2 }, { a = 1 })", "got { a = 1, b = 2 }, want { a = 1 }"},
		{"truthy", "expect.truthy(nil, 'the thing')", "the thing: expected a true value, got nil"},
		{"contains a string", "expect.contains('abc', 'x')", `expected "abc" to contain "x"`},
		{"contains an item", "expect.contains({ 'a', 'b' }, 'c')", `expected { "a", "b" } to contain "c"`},
		{"contains passes", "expect.contains({ 'a', { 1 } }, { 1 })", ""},
		{"not a result", "expect.denied('x')", "expect.denied: argument #1 must be what fire returned, got string"},
		{"unknown payload key", "fire('PreToolUse', { toolname = 'bash' })", `fire: the payload: unknown key "toolname" (did you mean "toolName"?)`},
		{"unknown key", "fire('PreToolUse', { toolName = 'bash', tool_input = {} })", `fire: the payload: unknown key "tool_input" (known: event, toolName`},
		{"unknown event", "fire('PreToolUsee')", `unknown event "PreToolUsee"`},
		{"plain error", "error('boom')", "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "case_test.lua")
			src := "test('case', function()\n  " + tt.body + "\nend)\n"
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			sum, out := run(t, Options{Paths: []string{path}})
			if tt.want == "" {
				if sum != (Summary{Passed: 1}) {
					t.Errorf("%v, want the case to pass:\n%s", sum, out)
				}
				return
			}
			prefix := "    " + path + ":2: "
			if sum != (Summary{Failed: 1}) || !strings.Contains(out, prefix) || !strings.Contains(out, tt.want) {
				t.Errorf("output\n%s\nwant a failure at %s:2 containing %q", out, path, tt.want)
			}
		})
	}
}

func TestTestFileThatDoesNotLoadIsAFailure(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"syntax error", "test('a', function()\n  expect.truthy(true)\nedn)\n", "_test.lua:3: "},
		{"runtime error", "local x = nil\nx.y = 1\n", "_test.lua:2: attempt to index"},
		{"bad test call", "test('a')\n", "_test.lua:1: bad argument #2 to test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := folder(t, map[string]string{"guard.lua": guard, "broken_test.lua": tt.src, "good_test.lua": "test('fine', function() end)\n"})
			sum, out := run(t, Options{Paths: []string{dir}})
			if sum != (Summary{Passed: 1, Failed: 1}) {
				t.Errorf("summary %v, want the broken file as one failure and the good case passing", sum)
			}
			if !strings.Contains(out, "FAIL "+filepath.Join(dir, "broken_test.lua")+" (does not load)\n") || !strings.Contains(out, tt.want) {
				t.Errorf("output\n%s\nwant the broken file reported with %q", out, tt.want)
			}
		})
	}
}

func TestHooksThatDoNotLoadFailTheirTestFile(t *testing.T) {
	dir := folder(t, map[string]string{
		"guard.lua":      guard,
		"broken.lua":     "hook.register('Stop', nil, function() end)\nhook.register('Nope', nil, function() end)\n",
		"guard_test.lua": "test('never runs', function() error('ran') end)\n",
	})
	sum, out := run(t, Options{Paths: []string{dir}})
	if sum != (Summary{Failed: 1}) {
		t.Errorf("summary %v, want one failure", sum)
	}
	if !strings.Contains(out, "(hooks do not load)") || !strings.Contains(out, "broken.lua:2:") || strings.Contains(out, "ran") {
		t.Errorf("output\n%s\nwant the hook file's error with its line, and no case run", out)
	}
}

func TestRunPatternSelectsCases(t *testing.T) {
	dir := folder(t, map[string]string{
		"guard.lua":      guard,
		"guard_test.lua": "test('alpha one', function() end)\ntest('beta', function() end)\ntest('alpha two', function() end)\n",
	})
	sum, out := run(t, Options{Paths: []string{dir}, Run: "^alpha"})
	if sum != (Summary{Passed: 2}) || strings.Contains(out, "beta") {
		t.Errorf("summary %v, want only the alpha cases:\n%s", sum, out)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{dir}, Run: "("}); err == nil {
		t.Error("a bad -run pattern: no error")
	}
}

func TestEveryCaseStartsWithAnEmptyStore(t *testing.T) {
	dir := folder(t, map[string]string{
		"once.lua": `hook.register("PreToolUse", nil, function()
  if store.incr("calls") > 1 then return hook.deny("second call") end
end)`,
		"once_test.lua": `for _, name in ipairs({ "first", "second", "third" }) do
  test(name, function()
    expect.no_objection(fire("PreToolUse", { toolName = "bash", toolInput = {} }))
    expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = {} }), "second call")
  end)
end`,
	})
	sum, out := run(t, Options{Paths: []string{dir}})
	if sum != (Summary{Passed: 3}) {
		t.Errorf("summary %v, want each case to see a fresh store:\n%s", sum, out)
	}
}

func TestHooksRegisteredInATestFileAreLive(t *testing.T) {
	dir := folder(t, map[string]string{
		"guard.lua": guard,
		"extra_test.lua": `local seen = {}
hook.register("PreToolUse", "bash", function(input) seen[#seen + 1] = input.toolInput.command end,
  { stage = "validate" })
test("sees the rewritten command", function()
  fire("PreToolUse", { toolName = "bash", toolInput = { command = "npm test" } })
  expect.eq(seen, { "pnpm test" })
end)`,
	})
	if sum, out := run(t, Options{Paths: []string{dir}}); sum != (Summary{Passed: 1}) {
		t.Errorf("summary %v:\n%s", sum, out)
	}
}

func TestCaseThatRunsForeverTimesOut(t *testing.T) {
	dir := folder(t, map[string]string{
		"guard.lua":      guard,
		"loop_test.lua":  "test('spins', function() while true do end end)\ntest('after', function() end)\n",
		"print_test.lua": "test('prints', function() print('hello', 42) end)\n",
	})
	start := time.Now()
	sum, out := run(t, Options{Paths: []string{dir}, Timeout: 200 * time.Millisecond})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %v with a 200ms case timeout", d)
	}
	if sum != (Summary{Passed: 2, Failed: 1}) || !strings.Contains(out, "the case did not finish within 200ms") {
		t.Errorf("summary %v, want the spinning case to time out and the others to pass:\n%s", sum, out)
	}
	if !strings.Contains(out, "hello\t42\n") {
		t.Errorf("print's output is missing:\n%s", out)
	}
}

func TestRunRefusesPathsWithoutTests(t *testing.T) {
	empty := t.TempDir()
	if _, err := Run(context.Background(), Options{Paths: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no *_test.lua files") {
		t.Errorf("a folder without tests: %v, want an error saying so", err)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{filepath.Join(empty, "missing")}}); err == nil {
		t.Error("a missing path: no error")
	}
}

// BenchmarkCase measures one case of the shipped dangerous-commands tests:
// a fresh engine over ../hooks.d (six files loaded), one fire, one assertion.
func BenchmarkCase(b *testing.B) {
	opts := Options{Paths: []string{"../hooks.d/10-dangerous-commands_test.lua"}, Run: "^denies rm -rf /$"}
	b.ReportAllocs()
	for b.Loop() {
		sum, err := Run(context.Background(), opts)
		if err != nil || sum != (Summary{Passed: 1}) {
			b.Fatal(sum, err)
		}
	}
}

// A failed expectation is shown with the errors of the hooks behind it, one
// line each (name, source, kind, message with file:line), without any flag:
// "expected context" alone does not say that the hook raised.
func TestFailedExpectationShowsTheHooksErrors(t *testing.T) {
	dir := folder(t, map[string]string{
		"10-ctx.lua": `hook.register("SessionStart", nil, function()
  local cfg = nil
  return hook.context(cfg.greeting)
end, { name = "greeter" })
`,
		"10-ctx_test.lua": `test("greets", function()
  expect.context(fire("SessionStart"), "hello")
end)
test("passes", function()
  expect.truthy(fire("SessionStart"))
end)
`,
	})
	sum, out := run(t, Options{Paths: []string{dir}})
	if sum.Failed != 1 || sum.Passed != 1 {
		t.Fatalf("%v\n%s", sum, out)
	}
	want := "    hook \"greeter\" (" + filepath.Join(dir, "10-ctx.lua") + ":1) failed (error): " + filepath.Join(dir, "10-ctx.lua") + ":3: attempt to index a non-table object(nil) with key 'greeting'\n"
	if !strings.Contains(out, "expected additional context containing \"hello\", but there is none\n"+want) {
		t.Errorf("output\n%s\nwant the failed expectation followed by\n%s", out, want)
	}
	if strings.Count(out, "failed (error)") != 1 {
		t.Errorf("output\n%s\nwant the hook's error under the failing case only, once", out)
	}
}

func TestRangesJoinConsecutiveLines(t *testing.T) {
	for _, tc := range []struct {
		lines []int
		want  string
	}{
		{nil, "-"},
		{[]int{7}, "7"},
		{[]int{12, 13, 14, 20}, "12-14, 20"},
		{[]int{1, 3, 4, 6, 7, 8, 10}, "1, 3-4, 6-8, 10"},
	} {
		if got := Ranges(tc.lines); got != tc.want {
			t.Errorf("Ranges(%v) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}

// A case whose engine does not load (here: the file's top level fails on
// its second load) fails naming the load error, not with "no hook
// matched" of a call that no hook saw.
func TestACaseWhoseHooksDoNotLoadSaysSo(t *testing.T) {
	dir := folder(t, map[string]string{
		"luahook.toml": "[lua]\nallow_env = [\"LOADS\"]\n",
		"guard.lua": `if env.get("LOADS") == "later" then error("cannot load now") end
hook.register("PreToolUse", "bash", function() return hook.deny("no") end, { name = "guard" })`,
		"guard_test.lua": `test("denied", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "x" } }))
end)`,
	})
	loads := 0
	lookup := func(name string) (string, bool) {
		if name != "LOADS" {
			return "", false
		}
		loads++
		if loads == 1 {
			return "first", true
		}
		return "later", true
	}
	sum, out := run(t, Options{Paths: []string{dir}, ConfigPath: filepath.Join(dir, "luahook.toml"), LookupEnv: lookup})
	if sum.Failed != 1 || !strings.Contains(out, "the hooks did not load for this case") || !strings.Contains(out, "cannot load now") {
		t.Errorf("%v, want the case to fail naming the load error:\n%s", sum, out)
	}
}
