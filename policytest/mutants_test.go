package policytest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
)

// naive denies a bash command by its first word as written and asks about
// one by its raw text: spellings get past both. careful reads the program
// name through quotes, backslashes, wrappers and paths, as a policy should.
const naive = `
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:match("^rm ") then return hook.deny("no rm") end
  if cmd == "git push --force" then return hook.ask("force push?") end
  if cmd:match("^npm ") then return hook.mutate({ command = "p" .. cmd }) end
end, { name = "naive" })
`

const careful = `
hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  local plain = cmd:gsub("[\"'\\]", "")
  for word in plain:gmatch("[^%s;&|(){}]+") do
    local base = word:match("([^/]+)$") or word
    if base == "rm" or word:match("=rm$") then return hook.deny("no rm") end
  end
end, { name = "careful" })
`

// stateful asks about the second rm of a session only: its block depends on
// the call before it.
const stateful = `
hook.register("PreToolUse", "bash", function(input)
  local plain = input.toolInput.command:gsub("[\"'\\]", "")
  if not plain:find("rm", 1, true) then return end
  local n = store.incr("rm:" .. (input.sessionId or ""))
  if n >= 2 then return hook.ask("a second rm") end
end, { name = "stateful" })
`

func mutantRun(t *testing.T, hook, tests string, opts Options) (MutantReport, string) {
	t.Helper()
	dir := folder(t, map[string]string{"guard.lua": hook, "guard_test.lua": tests})
	opts.Paths = []string{dir}
	opts.Mutants = NewMutants()
	sum, out := run(t, opts)
	if sum.Failed != 0 {
		t.Fatalf("%v\n%s", sum, out)
	}
	return opts.Mutants.Report(), out
}

// only returns the one file of a report.
func only(t *testing.T, rep MutantReport) FileMutants {
	t.Helper()
	if len(rep.Files) != 1 {
		t.Fatalf("want one file with mutants: %+v", rep)
	}
	return rep.Files[0]
}

const denyRm = `test("rm is denied", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf /tmp/x" } }))
end)
`

// TestMutantsOfANaivePolicySurvive: a policy that reads the command as
// written lets spellings through; the report counts them and names the
// first.
func TestMutantsOfANaivePolicySurvive(t *testing.T) {
	rep, _ := mutantRun(t, naive, denyRm, Options{})
	f := only(t, rep)
	if f.Mutants != MaxMutantsPerCase || f.Blocked >= f.Mutants/2 || rep.Total.Mutants != f.Mutants {
		t.Fatalf("%+v", rep)
	}
	if len(f.Survivors) != 1 {
		t.Fatalf("survivors %+v", f.Survivors)
	}
	s := f.Survivors[0]
	if s.Case != "rm is denied" || s.Call != "rm -rf /tmp/x" || s.Field != "command" || s.Tool != "bash" ||
		s.Mutant != "r''m -rf /tmp/x" || s.Passed != f.Mutants-f.Blocked || s.Mutants != f.Mutants {
		t.Errorf("%+v", s)
	}
	if !rep.Below(99) || rep.Below(float64(f.Blocked)*100/float64(f.Mutants)) {
		t.Errorf("Below: %+v", rep.Total)
	}
}

// TestMutantsOfACarefulPolicyAreBlocked: the same case against a policy
// that reads the program through its spellings: every mutant blocked.
func TestMutantsOfACarefulPolicyAreBlocked(t *testing.T) {
	rep, _ := mutantRun(t, careful, denyRm, Options{})
	if rep.Total.Mutants != MaxMutantsPerCase || rep.Total.Blocked != rep.Total.Mutants || rep.Total.Percent != 100 || rep.Below(100) {
		t.Fatalf("%+v", rep)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "mutants: 40 of 40 still blocked (100.0%)\n") || strings.Contains(b.String(), "passes as") {
		t.Errorf("%s", b.String())
	}
}

// TestOnlyBlockedCallsAreMutated: an allowed call, a rewrite and a
// UserPromptSubmit are not mutated; an ask is, and an ask counts as a block;
// a case that fails gets none.
func TestOnlyBlockedCallsAreMutated(t *testing.T) {
	rep, _ := mutantRun(t, naive, `
test("ls runs", function()
  expect.no_objection(fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls -la" } }))
end)
test("npm is rewritten", function()
  expect.mutated(fire("PreToolUse", { toolName = "bash", toolInput = { command = "npm i" } }))
end)
test("force push is asked", function()
  expect.asked(fire("PreToolUse", { toolName = "bash", toolInput = { command = "git push --force" } }))
end)
`, Options{})
	f := only(t, rep)
	if f.Mutants == 0 || len(f.Survivors) != 1 || f.Survivors[0].Case != "force push is asked" {
		t.Fatalf("%+v", rep)
	}
	// Every spelling of the exact text gets past the exact comparison but
	// for none: the ask was counted on the original only.
	if f.Blocked != 0 {
		t.Errorf("blocked %d of %d: the naive ask compares the raw text", f.Blocked, f.Mutants)
	}

	dir := folder(t, map[string]string{"guard.lua": naive, "guard_test.lua": `
test("rm is denied but the case fails", function()
  fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm -rf /tmp/x" } })
  error("no")
end)
`})
	m := NewMutants()
	sum, _ := run(t, Options{Paths: []string{dir}, Mutants: m})
	if sum.Failed != 1 || m.Report().Total.Mutants != 0 {
		t.Errorf("%v %+v", sum, m.Report())
	}
}

// TestMutantsReplayWhatTheCaseFiredBefore: a block that depends on an
// earlier call of the case is judged after that call is replayed, and each
// mutant on hooks of its own: a mutant does not count towards the next.
func TestMutantsReplayWhatTheCaseFiredBefore(t *testing.T) {
	rep, _ := mutantRun(t, stateful, `
test("the second rm is asked", function()
  local p = { toolName = "bash", sessionId = "s1", toolInput = { command = "rm -rf /tmp/x" } }
  expect.proceeds(fire("PreToolUse", p))
  expect.asked(fire("PreToolUse", p))
end)
`, Options{})
	if rep.Total.Mutants != MaxMutantsPerCase || rep.Total.Blocked != rep.Total.Mutants {
		t.Fatalf("%+v", rep)
	}
	// The first rm of a case is never blocked by the stateful hook: its
	// mutants, had they shared the hooks (and the session), would block each
	// other. A hook that blocks the first rm, for the test's sake.
	rep, _ = mutantRun(t, stateful+naive, denyRm, Options{})
	if f := only(t, rep); f.Blocked >= f.Mutants/2 {
		t.Errorf("mutants blocked one another: %+v", f)
	}
}

// TestMutantsAreDeterministic: two runs of a suite report the same.
func TestMutantsAreDeterministic(t *testing.T) {
	tests := denyRm + `
test("rm in a chain", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm x && ls" } }))
end)
`
	a, _ := mutantRun(t, naive, tests, Options{})
	b, _ := mutantRun(t, naive, tests, Options{})
	for i := range a.Files {
		a.Files[i].Path, b.Files[i].Path = "", ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s\n%s", ja, jb)
	}
}

// TestMutantsGoThroughTheAgent: with Options.Agent, each mutant is sent
// in the agent's wire format, as the case's payloads are.
func TestMutantsGoThroughTheAgent(t *testing.T) {
	hook := `
hook.register("PreToolUse", "@shell", function(input)
  if input.toolName ~= "run_shell_command" then return hook.deny("not as gemini sends it") end
  if input.toolInput.command:match("^rm ") then return hook.deny("no rm") end
end, { name = "g" })
`
	rep, _ := mutantRun(t, hook, denyRm, Options{Agent: "gemini"})
	if f := only(t, rep); f.Mutants != MaxMutantsPerCase || f.Blocked == f.Mutants {
		t.Errorf("%+v", f)
	}
}

// TestMutantsOfFileAndWebCalls: a file tool's path and a URL's host are
// spelled otherwise too.
func TestMutantsOfFileAndWebCalls(t *testing.T) {
	hook := `
hook.register("PreToolUse", "Read", function(input)
  if input.toolInput.file_path == "/etc/shadow" then return hook.deny("no") end
end, { name = "r" })
hook.register("PreToolUse", "WebFetch", function(input)
  if input.toolInput.url:find("evil.example", 1, true) then return hook.deny("no") end
end, { name = "w" })
`
	rep, _ := mutantRun(t, hook, `
test("shadow", function()
  expect.denied(fire("PreToolUse", { toolName = "Read", toolInput = { file_path = "/etc/shadow" } }))
end)
test("evil", function()
  expect.denied(fire("PreToolUse", { toolName = "WebFetch", toolInput = { url = "https://evil.example/x", prompt = "p" } }))
end)
`, Options{})
	f := only(t, rep)
	if f.Mutants != 5 || f.Blocked != 0 || len(f.Survivors) != 2 ||
		f.Survivors[0].Mutant != "/./etc/shadow" || f.Survivors[1].Mutant != "https://EVIL.EXAMPLE/x" {
		t.Errorf("%+v", f)
	}
}

// TestMutantsMeetTheTestFileHooks: hooks a test file registers run for
// the mutants too, as for the case.
func TestMutantsMeetTheTestFileHooks(t *testing.T) {
	rep, _ := mutantRun(t, "", `
hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command:match("^rm ") then return hook.deny("no rm") end
end, { name = "in the test file" })
`+denyRm, Options{})
	if f := only(t, rep); f.Mutants != MaxMutantsPerCase || f.Blocked == 0 || f.Blocked == f.Mutants {
		t.Errorf("%+v", f)
	}
}

// TestMutantsPerCaseTakesTheFirstOfEachFamily: a lower cap keeps the
// first spelling of each family, in order.
func TestMutantsPerCaseTakesTheFirstOfEachFamily(t *testing.T) {
	dir := folder(t, map[string]string{"guard.lua": naive, "guard_test.lua": denyRm})
	m := NewMutants()
	m.PerCase = 3
	if sum, out := run(t, Options{Paths: []string{dir}, Mutants: m}); sum.Failed != 0 {
		t.Fatal(out)
	}
	f := only(t, m.Report())
	// r''m (quotes), sudo rm (a wrapper), r\m (a backslash): none starts
	// with "rm ", so none is blocked.
	if f.Mutants != 3 || f.Blocked != 0 || len(f.Survivors) != 1 || f.Survivors[0].Passed != 3 {
		t.Errorf("%+v", f)
	}
	_, _, muts := spellings(&luahook.Input{Event: luahook.PreToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{"command":"rm -rf /tmp/x"}`)}, 3)
	var got []string
	for _, m := range muts {
		got = append(got, m.spelling)
	}
	if strings.Join(got, "|") != `r''m -rf /tmp/x|sudo rm -rf /tmp/x|r\m -rf /tmp/x` {
		t.Errorf("%q", got)
	}
}

// TestMutantsDoNotCountInCoverage: coverage is what the tests ran; a line
// only a mutant reaches stays uncovered.
func TestMutantsDoNotCountInCoverage(t *testing.T) {
	hook := `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:match("^rm ") then return hook.deny("no rm") end
  if cmd:match("^sudo ") then
    return hook.deny("no sudo")
  end
end, { name = "g" })
`
	dir := folder(t, map[string]string{"guard.lua": hook, "guard_test.lua": denyRm})
	cov := luabind.NewCoverage()
	m := NewMutants()
	sum, out := run(t, Options{Paths: []string{dir}, Mutants: m, Coverage: cov})
	if sum.Failed != 0 {
		t.Fatal(out)
	}
	if f := only(t, m.Report()); f.Blocked == 0 {
		t.Fatalf("no mutant reached the sudo line: %+v", f)
	}
	rep := sum.Coverage
	if len(rep.Files) != 1 || !slices.Contains(rep.Files[0].UncoveredLines, 5) {
		t.Errorf("line 5 (reached by mutants only) counted as covered: %+v", rep.Files)
	}
}
