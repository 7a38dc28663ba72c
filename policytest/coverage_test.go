package policytest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/luabind"
)

// tree writes files (slash-separated paths, folders made as needed) into a
// new folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wordsLib is a lib module the tests below use one function of: lines 1-3
// and 5 and 12 run when it loads and first is called, 6-8 and 10 never.
const wordsLib = `local M = {}
function M.first(s)
  return s:match("^(%S+)")
end
function M.count(s)
  local n = 0
  for _ in s:gmatch("%S+") do
    n = n + 1
  end
  return n
end
return M
`

// guardHook denies the bash command whose first word is word.
func guardHook(word string) string {
	return `local words = require("words")
hook.register("PreToolUse", "bash", function(input)
  if words.first(input.toolInput.command) == "` + word + `" then return hook.deny("no ` + word + `") end
end)
`
}

const denyEach = `for _, c in ipairs({ "rm", "dd", "mkfs" }) do
  test(c .. " is denied", function()
    expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = c .. " x" } }), "no " .. c)
  end)
end
test("ls proceeds", function()
  expect.no_objection(fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls x" } }))
end)
`

// coverageOf runs the tests of dir with coverage and returns the report.
func coverageOf(t *testing.T, dir string) CoverageReport {
	t.Helper()
	sum, out := run(t, Options{Paths: []string{dir}, Coverage: luabind.NewCoverage()})
	if sum.Failed != 0 {
		t.Fatal(out)
	}
	if sum.Coverage == nil {
		t.Fatal("no coverage report in the summary of a run with Coverage")
	}
	return *sum.Coverage
}

func paths(dir string, files []FileCoverage) []string {
	var out []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// TestCoverageTotalsTheFilesUnderTest: three hook files fully covered,
// sharing a lib module the tests use a third of: the total is the hook
// files', 100%, and a minimum of 90 holds; the lib module is listed apart
// with its own figures.
func TestCoverageTotalsTheFilesUnderTest(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.lua": guardHook("rm"), "b.lua": guardHook("dd"), "c.lua": guardHook("mkfs"),
		"lib/words.lua": wordsLib, "all_test.lua": denyEach,
	})
	rep := coverageOf(t, dir)
	if got := strings.Join(paths(dir, rep.Files), " "); got != "a.lua b.lua c.lua" {
		t.Errorf("files under test %s, want the three hook files", got)
	}
	if rep.Total != (CoverageTotal{Executable: 9, Covered: 9, Percent: 100}) {
		t.Errorf("total %+v, want 9 of 9 lines, 100%%", rep.Total)
	}
	if rep.Below(90) || len(rep.Under(90)) != 0 {
		t.Errorf("a total of 100%% is below 90: %+v", rep.Under(90))
	}
	if got := strings.Join(paths(dir, rep.Lib), " "); got != "lib/words.lua" {
		t.Errorf("lib modules %s, want lib/words.lua", got)
	}
	if rep.LibTotal != (CoverageTotal{Executable: 9, Covered: 5, Percent: 55.6}) {
		t.Errorf("lib total %+v, want 5 of 9 lines", rep.LibTotal)
	}
}

// TestCoverageMinNamesTheFileUnderIt: one hook file of three half covered
// takes the total under 90, and Under names it, alone.
func TestCoverageMinNamesTheFileUnderIt(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.lua": guardHook("rm"), "b.lua": guardHook("dd"),
		"c.lua": `hook.register("PreToolUse", "bash", function(input)
  if input.toolInput.command == "never" then
    local msg = "no"
    return hook.deny(msg)
  end
end)
`,
		"lib/words.lua": wordsLib,
		"all_test.lua": `test("rm is denied", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "rm x" } }))
end)
test("dd is denied", function()
  expect.denied(fire("PreToolUse", { toolName = "bash", toolInput = { command = "dd x" } }))
end)
test("ls proceeds", function()
  expect.no_objection(fire("PreToolUse", { toolName = "bash", toolInput = { command = "ls x" } }))
end)
`,
	})
	rep := coverageOf(t, dir)
	if rep.Total != (CoverageTotal{Executable: 10, Covered: 8, Percent: 80}) || !rep.Below(90) {
		t.Fatalf("total %+v, want 8 of 10 lines, under 90", rep.Total)
	}
	under := rep.Under(90)
	if got := strings.Join(paths(dir, under), " "); got != "c.lua" || under[0].Percent != 50 {
		t.Errorf("under 90: %+v, want c.lua at 50%%", under)
	}
}

// TestCoverageLibModuleATestRequiresIsUnderTest: a lib module a test file
// requires itself (a lib's own tests) is a file under test; the module it
// requires in turn stays a lib module, and so does one only the hooks
// require. A require of the test file that fails still names the test
// file's line.
func TestCoverageLibModuleATestRequiresIsUnderTest(t *testing.T) {
	dir := tree(t, map[string]string{
		"h.lua":         `local other = require("other")` + "\nhook.register(\"Stop\", nil, function() return nil end)\n",
		"lib/other.lua": "return { x = 1 }\n",
		"lib/words.lua": `local chars = require("chars")
local M = {}
function M.first(s) return chars.head(s) end
return M
`,
		"lib/chars.lua": `local M = {}
function M.head(s) return s:match("^(%S+)") end
return M
`,
		"lib-words_test.lua": `local words = require("words")
test("the first word", function()
  expect.eq(words.first("rm -rf x"), "rm")
  expect.no_objection(fire("Stop", {}))
end)
`,
	})
	rep := coverageOf(t, dir)
	if got := strings.Join(paths(dir, rep.Files), " "); got != "h.lua lib/words.lua" {
		t.Errorf("files under test %s, want h.lua and lib/words.lua", got)
	}
	if got := strings.Join(paths(dir, rep.Lib), " "); got != "lib/chars.lua lib/other.lua" {
		t.Errorf("lib modules %s, want lib/chars.lua and lib/other.lua", got)
	}

	bad := tree(t, map[string]string{
		"h.lua":        "hook.register(\"Stop\", nil, function() return nil end)\n",
		"bad_test.lua": "\nlocal m = require(\"nosuch\")\n",
	})
	sum, out := run(t, Options{Paths: []string{bad}, Coverage: luabind.NewCoverage()})
	if sum.Failed != 1 || !strings.Contains(out, filepath.Join(bad, "bad_test.lua")+":2: require \"nosuch\": module not found") {
		t.Errorf("a failed require: %v\n%s", sum, out)
	}
}

// TestCoverageTextAlignsBothTables: the text report puts the files under
// test and their total, a blank line, then the lib modules and theirs,
// every column aligned across both; without lib modules, no second table.
func TestCoverageTextAlignsBothTables(t *testing.T) {
	rep := CoverageReport{
		Files:    []FileCoverage{{Path: "h.d/a.lua", Executable: 4, Covered: 2, Percent: 50, UncoveredLines: []int{3, 4}}},
		Total:    CoverageTotal{Executable: 4, Covered: 2, Percent: 50},
		Lib:      []FileCoverage{{Path: "h.d/lib/long_name.lua", Executable: 10, Covered: 10, Percent: 100}},
		LibTotal: CoverageTotal{Executable: 10, Covered: 10, Percent: 100},
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `FILE                   LINES  COVERAGE  UNCOVERED
h.d/a.lua              2/4    50.0%     3-4
total                  2/4    50.0%

LIB MODULE             LINES  COVERAGE  UNCOVERED
h.d/lib/long_name.lua  10/10  100.0%    -
lib total              10/10  100.0%
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	rep.Lib, rep.LibTotal = nil, CoverageTotal{}
	b.Reset()
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "FILE       LINES  COVERAGE  UNCOVERED\nh.d/a.lua  2/4    50.0%     3-4\ntotal      2/4    50.0%\n"; b.String() != want {
		t.Errorf("without lib modules, got\n%s\nwant\n%s", b.String(), want)
	}
}
