package luabind

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

// nested builds a chunk nesting one shape n levels deep.
func nested(shape string, n int) string {
	r := strings.Repeat
	switch shape {
	case "table":
		return "return " + r("{", n) + r("}", n)
	case "paren":
		return "return " + r("(", n) + "1" + r(")", n)
	case "index":
		return "local a = {} return " + r("a[", n) + "1" + r("]", n)
	case "call":
		return "local f = print return " + r("f(", n) + r(")", n)
	case "minus":
		return "return " + r("- ", n) + "1"
	case "not":
		return "return " + r("not ", n) + "true"
	case "len":
		return "return " + r("#", n) + "'x'"
	case "plus":
		return "return " + r("1 + ", n) + "1"
	case "or":
		return "local a return " + r("a or ", n) + "a"
	case "pow":
		return "return " + r("2 ^ ", n) + "1"
	case "function":
		return r("local f = function() ", n) + r("end ", n)
	case "do":
		return r("do ", n) + r("end ", n)
	case "if":
		return "local a " + r("if a then ", n) + r("end ", n)
	case "elseif":
		return "local a if a then " + r("elseif a then ", n) + "end"
	case "while":
		return "local a " + r("while a do ", n) + r("end ", n)
	case "repeat":
		return "local a " + r("repeat ", n) + r("until a ", n)
	case "for":
		return r("for i = 1, 2 do ", n) + r("end ", n)
	}
	panic(shape)
}

var nestingShapes = []string{"table", "paren", "index", "call", "minus", "not", "len", "plus", "or", "pow",
	"function", "do", "if", "elseif", "while", "repeat", "for"}

// Every shape the parser or the compiler recurses on is refused past
// maxNesting levels, before it is compiled, with the file and line; at 95
// levels it is no nesting error (a function nests two levels: its body and
// its statement, as in Lua 5.1). Parentheses leave no node for the compiler
// to recurse on, so only the scan before parsing bounds them.
func TestCompileRefusesNestingDeeperThanTheLimit(t *testing.T) {
	for _, shape := range nestingShapes {
		t.Run(shape, func(t *testing.T) {
			if _, err := Compile("hooks.d/x.lua", []byte(nested(shape, 95))); err != nil &&
				strings.Contains(err.Error(), "nesting") { // too many locals or registers are other errors
				t.Errorf("95 levels: %v", err)
			}
			levels := maxNesting + 5
			if shape == "paren" {
				levels = maxScanDepth + 5
			}
			src := strings.Replace(nested(shape, levels), " ", "\n", maxNesting/2)
			_, err := Compile("hooks.d/x.lua", []byte(src))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("%d levels: error %T %v, want a *LoadError", maxNesting+5, err, err)
			}
			if !strings.Contains(le.Message, "nesting deeper than 200 levels") || le.Path != "hooks.d/x.lua" || le.Line < 1 {
				t.Fatalf("%d levels: %v, want hooks.d/x.lua:N: nesting deeper than 200 levels", maxNesting+5, err)
			}
		})
	}
}

// heapGrowth runs f and returns how many bytes it allocated.
func heapGrowth(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Deep nesting is refused before the parser builds its stack for it: the
// parser takes about 1 KiB per level, so without the check a 1 MiB file
// costs a GiB before any limit could apply (and a 3 MiB one overflows the Go
// stack of the compiler, a fatal error).
func TestCompileOfDeepNestingTakesLittleMemory(t *testing.T) {
	for _, shape := range []string{"table", "paren", "pow", "not", "do", "function"} {
		src := nested(shape, 1<<20)[:256<<10]
		var err error
		n := heapGrowth(func() { _, err = Compile("hooks.d/x.lua", []byte(src)) })
		if err == nil {
			t.Errorf("%s: 256 KiB of nesting compiled", shape)
		}
		if n > 32<<20 {
			t.Errorf("%s: compiling 256 KiB of nesting allocated %d MiB, want at most 32", shape, n>>20)
		}
	}
}

// A file larger than Options.MaxSourceBytes is refused before it is parsed;
// one of exactly that size compiles.
func TestCompileRefusesSourceLargerThanTheLimit(t *testing.T) {
	const limit = 4096
	opts := Options{MaxSourceBytes: limit}
	body := "return 1\n"
	src := body + "--" + strings.Repeat("x", limit-len(body)-2)
	if _, err := opts.Compile("hooks.d/x.lua", []byte(src)); err != nil {
		t.Fatalf("exactly %d bytes: %v", limit, err)
	}
	for extra, want := range map[string]string{
		"x":   "hooks.d/x.lua: file larger than the 4096 bytes limit on Lua source",
		"xxx": "hooks.d/x.lua: file of 4099 bytes exceeds the 4096 bytes limit on Lua source",
	} {
		_, err := opts.Compile("hooks.d/x.lua", []byte(src+extra))
		if err == nil || err.Error() != want {
			t.Fatalf("%d bytes more: %v, want %q", len(extra), err, want)
		}
	}
	if _, err := Compile("hooks.d/x.lua", []byte("--"+strings.Repeat("x", DefaultMaxSourceBytes))); err == nil {
		t.Fatalf("Compile took a file past DefaultMaxSourceBytes")
	}
}

// A lib module nested too deep, first required during a hook call, is a
// failure of that call naming the module's file and line; the host lives on
// and the next call runs.
func TestRequireOfDeeplyNestedLibFailsTheCall(t *testing.T) {
	lib := t.TempDir()
	deep := "local x = 1\n" + nested("table", 3<<20/2) // 3 MiB of "{", past the size cap too
	for name, src := range map[string]string{"deep.lua": deep, "nest.lua": "local x = 1\n" + nested("table", 300)} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := load(t, `hook.register("Stop", nil, function(input)
  local m = input.cwd == "deep" and "deep" or "nest"
  return require(m)
end)`, Options{LibDir: lib, MaxStates: 1})
	for _, tt := range []struct {
		deep bool
		want string
	}{
		{false, filepath.Join(lib, "nest.lua") + ":2: nesting deeper than 200 levels"},
		{true, filepath.Join(lib, "deep.lua") + ": file is larger than 1 MiB"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop, Cwd: map[bool]string{true: "deep"}[tt.deep]})
		cancel()
		if err == nil || failure(t, err).Kind != luahook.FailError || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("deep=%v: %v, want a failure naming %q", tt.deep, err, tt.want)
		}
	}
}

// A session (the REPL, policy tests) compiles through the same checks.
func TestSessionCompilesWithTheLimits(t *testing.T) {
	s, err := NewSession(SessionOptions{Options: Options{MaxStringBytes: 1 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Eval(ctx, "=repl", nested("table", 300)); err == nil || !strings.Contains(err.Error(), "nesting deeper than 200 levels") {
		t.Errorf("Eval of deep nesting: %v", err)
	}
	_, err = s.Eval(ctx, "=repl", `local s = ("x"):rep(600) return s .. s`)
	if err == nil || !strings.Contains(err.Error(), "..: result of 1200 bytes exceeds the 1024 bytes limit") {
		t.Errorf("Eval of a concat past the cap: %v", err)
	}
	if out, err := s.Eval(ctx, "=repl", `1 .. "x" .. 2`); err != nil || fmt.Sprint(out) != `["1x2"]` {
		t.Errorf("Eval of a concat: %v, %v", out, err)
	}
}

// nestingTokens are the pieces FuzzNesting builds sources from: brackets,
// blocks, operators and operands.
var nestingTokens = []string{"{", "}", "(", ")", "a[", "]", "- ", "not ", "#", "1", " + ", " .. ", " ^ ", " or ",
	" do ", " end ", "function() ", "if a then ", " elseif a then ", " else ", "return ", ", ", "a", "\n", "f(",
	"local x = ", "repeat ", " until a ", "'s'", "[[s]]", "--[[", "]]", ";", " = "}

// FuzzNesting compiles sources of random nesting shapes, each piece repeated
// up to thousands of times: Compile returns a chunk or an error, quickly and
// without panicking or overflowing the Go stack.
func FuzzNesting(f *testing.F) {
	for _, s := range []string{"\x00\xff\x01\xff", "\x02\xff\x09\x01\x03\xff", "\x06\xff\x09\x01", "\x07\x90\x09\x01",
		"\x14\x10\x10\xff\x0f\xff", "\x11\x20\x0f\x20", "\x09\x01\x0b\xff\x09\x01", "\x1a\xff\x09\x01\x1b\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var src strings.Builder
		for i := 0; i+1 < len(data) && src.Len() < 2*DefaultMaxSourceBytes; i += 2 {
			tok := nestingTokens[int(data[i])%len(nestingTokens)]
			src.WriteString(strings.Repeat(tok, 1+int(data[i+1])*int(data[i+1])/16))
		}
		start := time.Now()
		c, err := Compile("hooks.d/x.lua", []byte(src.String()))
		if err == nil && c == nil {
			t.Fatal("no chunk and no error")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Compile took %v over %d bytes", d, src.Len())
		}
	})
}

// FuzzOpeningsBoundCoversTheTokenScan holds openingsBound to what
// scanNesting relies on: the token scan's estimate never passes 1 plus the
// bound, so a source under the limit by the bound is one the scan accepts.
func FuzzOpeningsBoundCoversTheTokenScan(f *testing.F) {
	for _, s := range []string{"\x00\xff\x01\xff", "\x02\xff\x09\x01\x03\xff", "\x06\xff\x09\x01", "\x07\x90\x09\x01",
		"\x0b\x04\x0c\x04\x10\x04", "\x1b\x04\x1c\x04\x1d\x04"} {
		f.Add([]byte(s))
	}
	extra := []string{"==", "~=", "<=", ">=", "...", "x.y", "a%b", "a*b", "a/b", "'(('", "--(\n", "[==[((]==]", "\"\\\"(\""}
	tokens := append(slices.Clone(nestingTokens), extra...)
	f.Fuzz(func(t *testing.T, data []byte) {
		var src strings.Builder
		for i := 0; i+1 < len(data) && src.Len() < DefaultMaxSourceBytes; i += 2 {
			src.WriteString(strings.Repeat(tokens[int(data[i])%len(tokens)], 1+int(data[i+1])))
		}
		b := []byte(src.String())
		if err := scanTokens("x.lua", b, 1+openingsBound(b)); err != nil {
			t.Fatalf("the token scan passed 1+%d: %v", openingsBound(b), err)
		}
	})
}

// TestShippedFilesSkipTheTokenScan checks that every Lua file shipped in
// hooks.d is accepted by openingsBound alone, so Compile does not scan its
// tokens twice.
func TestShippedFilesSkipTheTokenScan(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join("..", "hooks.d"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".lua" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if b := openingsBound(src); 1+b > maxScanDepth {
			t.Errorf("%s: bound %d, past %d", path, b, maxScanDepth)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walking hooks.d: %v (%d files)", err, n)
	}
}
