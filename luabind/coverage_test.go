package luabind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// loadCovered compiles and loads src as testPath with coverage counted in cov.
func loadCovered(t *testing.T, src string, cov *Coverage, opts Options) *File {
	t.Helper()
	opts.Coverage = cov
	c, err := opts.Compile(testPath, []byte(src))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	f, err := Load(context.Background(), c, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

// fileCoverage returns cov's report of path, failing when there is none.
func fileCoverage(t *testing.T, cov *Coverage, path string) FileCoverage {
	t.Helper()
	for _, fc := range cov.Files() {
		if fc.Path == path {
			return fc
		}
	}
	t.Fatalf("no coverage of %s in %v", path, cov.Files())
	return FileCoverage{}
}

func TestCoverageCountsTheLinesAHookRan(t *testing.T) {
	const src = `hook.register("PreToolUse", "bash", function(input)
  local cmd = input.toolInput.command
  if cmd:find("rm ", 1, true) then
    return hook.deny("no rm")
  elseif cmd == "ls" then
    return nil
  else
    log.info("other")
  end
end)
`
	cov := NewCoverage()
	f := loadCovered(t, src, cov, Options{})
	if _, err := call(t, f, 0, preToolUse("bash", `{"command":"rm x"}`)); err != nil {
		t.Fatal(err)
	}
	fc := fileCoverage(t, cov, testPath)
	if want := []int{1, 2, 3, 4}; !slices.Equal(fc.Covered, want) {
		t.Errorf("covered %v, want %v", fc.Covered, want)
	}
	if want := []int{5, 6, 8}; !slices.Equal(fc.Uncovered, want) {
		t.Errorf("uncovered %v, want %v", fc.Uncovered, want)
	}
}

// TestCoverageKeepsTheLinesOfErrorsAndTracebacks: every error an
// instrumented file raises, at load or in a call, names the same lines as
// the file compiled without coverage.
func TestCoverageKeepsTheLinesOfErrorsAndTracebacks(t *testing.T) {
	const hooks = `local function deeper(t)
  return t.missing.field
end
local function middle(t)
  local x = 1
  return deeper(t) .. x
end
hook.register("Stop", nil, function(input)
  local t = {}
  middle(t)
end)
hook.register("Stop", nil, function(input)
  error({ code = 7 })
end)
hook.register("Stop", nil, function(input)
  local s = "a"
  for i = 1, 3 do
    s = s
      .. i
  end
  error("at four: " .. s, 1)
end)
`
	plain := load(t, hooks, Options{})
	covered := loadCovered(t, hooks, NewCoverage(), Options{})
	for i := range plain.Registrations() {
		_, perr := call(t, plain, i, &luahook.Input{Event: luahook.Stop})
		_, cerr := call(t, covered, i, &luahook.Input{Event: luahook.Stop})
		if perr == nil || cerr == nil {
			t.Fatalf("hook %d: errors %v and %v, want two", i, perr, cerr)
		}
		if perr.Error() != cerr.Error() {
			t.Errorf("hook %d: error %q with coverage, %q without", i, cerr, perr)
		}
		var pa, ca *lua.ApiError
		if errors.As(perr, &pa) && errors.As(cerr, &ca) && pa.StackTrace != ca.StackTrace {
			t.Errorf("hook %d: traceback with coverage\n%s\nwithout\n%s", i, ca.StackTrace, pa.StackTrace)
		}
	}
	for _, src := range []string{
		"local x = 1\nlocal y = nil\n\nprint(y.z)\n",
		"hook.register('Stop', nil, function() end)\nif true then\n  error('load fails')\nend\n",
		"local a = 1\n\n\nlocal b = a +\n  nil\n",
	} {
		pe := loadError(t, src, Options{})
		c, err := Options{Coverage: NewCoverage()}.Compile(testPath, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		_, cerr := Load(context.Background(), c, Options{})
		var ce *LoadError
		if !errors.As(cerr, &ce) {
			t.Fatalf("load error %v, want a *LoadError", cerr)
		}
		if pe.Error() != ce.Error() || pe.Line != ce.Line {
			t.Errorf("load error %q (line %d) with coverage, %q (line %d) without", ce, ce.Line, pe, pe.Line)
		}
	}
}

// TestCoverageCounterIsOutOfReachOfHooks: a hook can neither name the
// counting function nor forge it, and wiping every global it can reach
// does not stop the counting.
func TestCoverageCounterIsOutOfReachOfHooks(t *testing.T) {
	// The marker's literal is refused.
	c, err := Options{Coverage: NewCoverage()}.Compile(testPath, []byte("local x = 1\nlocal f = \"\\0luahook.cover\"\n"))
	var le *LoadError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(le.Message, "reserved") {
		t.Fatalf("compile of the marker literal: %v, %v; want a *LoadError at line 2", c, err)
	}
	// The file wipes every global at load, keeping what it needs in
	// locals; its hook tries to forge the marker and call it.
	const src = `local G, char, pcall, register = _G, string.char, pcall, hook.register
for k in pairs(G) do G[k] = nil end
register("Stop", nil, function(input)
  local forged = char(0) .. "luahook.cover"
  local ok = pcall(forged)
  if ok then
    error("the forged marker was callable")
  end
  local n = 0
  n = n + 1
end)
`
	cov := NewCoverage()
	f := loadCovered(t, src, cov, Options{})
	for range 2 {
		if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
			t.Fatal(err)
		}
	}
	fc := fileCoverage(t, cov, testPath)
	if want := []int{1, 2, 3, 4, 5, 6, 9, 10}; !slices.Equal(fc.Covered, want) || !slices.Equal(fc.Uncovered, []int{7}) {
		t.Errorf("covered %v, uncovered %v; want covered %v and the error line 7 uncovered", fc.Covered, fc.Uncovered, want)
	}
}

// TestCoverageCountsEveryPooledState: states of one file run concurrently
// and all write to one Coverage (go test -race checks the writes).
func TestCoverageCountsEveryPooledState(t *testing.T) {
	// Each call waits until all four have arrived, so four states run at
	// once.
	const src = `hook.register("Stop", nil, function(input)
  store.incr("arrived")
  while store.get("arrived") < 4 do end
  return nil
end)
local unused = function()
  return 1
end
`
	cov := NewCoverage()
	f := loadCovered(t, src, cov, Options{MaxStates: 4})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := call(t, f, 0, &luahook.Input{Event: luahook.Stop}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.Stats().Created; n != 4 {
		t.Fatalf("%d states were built, want 4", n)
	}
	fc := fileCoverage(t, cov, testPath)
	if want := []int{1, 2, 3, 4, 6}; !slices.Equal(fc.Covered, want) {
		t.Errorf("covered %v, want %v", fc.Covered, want)
	}
	if want := []int{7}; !slices.Equal(fc.Uncovered, want) {
		t.Errorf("uncovered %v, want %v", fc.Uncovered, want)
	}
}

// TestCoverageMeasuresLibModulesNotSessionCode: a session's own code (a
// policy test) is not measured; the lib modules it and its hooks require are.
func TestCoverageMeasuresLibModulesNotSessionCode(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "util.lua"), []byte("local M = {}\nfunction M.twice(x)\n  return 2 * x\nend\nfunction M.never()\n  return 0\nend\nreturn M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testFile := filepath.Join(dir, "x_test.lua")
	if err := os.WriteFile(testFile, []byte("local util = require('util')\nassert(util.twice(2) == 4)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cov := NewCoverage()
	sess, err := NewSession(SessionOptions{Options: Options{LibDir: lib, Coverage: cov}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Load(context.Background(), testFile); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Eval(context.Background(), "prompt", "1 + 1"); err != nil {
		t.Fatal(err)
	}
	files := cov.Files()
	if len(files) != 1 || files[0].Path != filepath.Join(lib, "util.lua") {
		t.Fatalf("measured %v, want the lib module alone", files)
	}
	if want := []int{1, 2, 3, 5, 8}; !slices.Equal(files[0].Covered, want) {
		t.Errorf("covered %v, want %v", files[0].Covered, want)
	}
	if want := []int{6}; !slices.Equal(files[0].Uncovered, want) {
		t.Errorf("uncovered %v, want %v", files[0].Uncovered, want)
	}
}

// TestCompileWithoutCoverageIsUnchanged: with Options.Coverage nil nothing
// is inserted: no counting call, no extra instruction.
func TestCompileWithoutCoverageIsUnchanged(t *testing.T) {
	const src = "local a = 1\nif a then\n  a = a + 1\nend\nreturn function() return a end\n"
	plain, err := Compile(testPath, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	covered, err := Options{Coverage: NewCoverage()}.Compile(testPath, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	count := func(p *lua.FunctionProto) (code, gfuncs int) {
		protos := []*lua.FunctionProto{p}
		for len(protos) > 0 {
			p := protos[0]
			protos = append(protos[1:], p.FunctionPrototypes...)
			code += len(p.Code)
			for _, k := range p.Constants {
				if fn, ok := k.(*lua.LFunction); ok && fn.IsG {
					gfuncs++
				}
			}
		}
		return code, gfuncs
	}
	pc, pg := count(plain.proto)
	cc, cg := count(covered.proto)
	if pg != 0 {
		t.Errorf("the plain chunk holds %d Go functions among its constants, want 0", pg)
	}
	if cg != 2 || cc != pc+2*5 {
		t.Errorf("the covered chunk has %d instructions and %d Go function constants; want %d and 2 (a call per executable line)", cc, cg, pc+10)
	}
}

// TestCoverageInstrumentsAMaximalFileInLinearMemory: instrumenting a file
// at the 1 MiB source cap costs a small multiple of compiling it plainly
// (no quadratic blow-up), and the file still runs.
func TestCoverageInstrumentsAMaximalFileInLinearMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("local n = 0\nlocal function f(x)\n")
	for i := 0; b.Len() < DefaultMaxSourceBytes-200; i++ {
		fmt.Fprintf(&b, "  if x > %d then n = n + 1 end\n", i%1000)
	}
	b.WriteString("  return n\nend\nf(500)\nfor i = 1, 100 do\n  n = n + i\nend\n")
	src := []byte(b.String())
	if len(src) > DefaultMaxSourceBytes {
		t.Fatalf("fixture of %d bytes", len(src))
	}
	alloc := func(o Options) (uint64, *Chunk) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, err := o.Compile(testPath, src)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, c
	}
	plain, _ := alloc(Options{})
	cov := NewCoverage()
	covered, c := alloc(Options{Coverage: cov})
	if covered > 4*plain {
		t.Errorf("instrumenting allocated %d bytes, compiling plainly %d: more than 4x", covered, plain)
	}
	f, err := Load(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fc := fileCoverage(t, cov, testPath)
	if len(fc.Covered)+len(fc.Uncovered) < 30_000 || len(fc.Uncovered) != 0 {
		t.Errorf("%d lines covered, %d uncovered; want every line of the file", len(fc.Covered), len(fc.Uncovered))
	}
	t.Logf("%d bytes, %d executable lines; compile allocated %d bytes plainly, %d instrumented", len(src), len(fc.Covered), plain, covered)
}
