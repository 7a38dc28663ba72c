package luabind

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The builders' fuzz targets call one Lua function of a loaded file's state
// with the fuzzer's strings, under a deadline, with a small cap so that the
// size checks are exercised at every input size. A result past the cap, a Go
// panic inside the function (gopher-lua turns it into an error of type
// ApiErrorPanic) or a call that outlives its deadline fails the target.

const (
	fuzzCapBytes = 512
	fuzzDeadline = 100 * time.Millisecond
)

// builderRig is a state of a loaded file, for calling its functions directly.
type builderRig struct {
	st *state
}

func newBuilderRig(f *testing.F) *builderRig {
	file := load(f, `hook.register("Stop", nil, function() end)`, Options{MaxStringBytes: fuzzCapBytes, MaxStates: 1})
	st, err := file.pool.get(context.Background(), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { file.pool.put(st) })
	return &builderRig{st: st}
}

// call calls module.fn with args and checks the rules above; it returns the
// first result, or nil after a Lua error.
func (r *builderRig) call(t *testing.T, module, fn string, args ...lua.LValue) lua.LValue {
	L := r.st.L
	f := r.st.backing.RawGetString(module).(*lua.LTable).RawGetString(fn)
	ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
	defer cancel()
	L.SetContext(ctx)
	defer L.RemoveContext()
	start := time.Now()
	err := L.CallByParam(lua.P{Fn: f, NRet: 1, Protect: true}, args...)
	if d := time.Since(start); d > fuzzDeadline+time.Second {
		t.Fatalf("%s.%s%q: returned after %v, past its %v deadline", module, fn, args, d, fuzzDeadline)
	}
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Type == lua.ApiErrorPanic {
		t.Fatalf("%s.%s%q: Go panic: %v", module, fn, args, err)
	}
	if err != nil {
		return nil
	}
	v := L.Get(-1)
	L.Pop(1)
	if s, ok := v.(lua.LString); ok && len(s) > fuzzCapBytes {
		t.Fatalf("%s.%s%q: a result of %d bytes passed the %d-byte cap", module, fn, args, len(s), fuzzCapBytes)
	}
	return v
}

// FuzzStringFormat: string.format with any format and a string, a number and
// a table as arguments never builds a string past the cap: the size bound it
// checks first is an upper bound of what Go's fmt writes.
func FuzzStringFormat(f *testing.F) {
	for _, s := range [][2]string{
		{"%s", "abc"}, {"%5.2s|%-9d|%x", "\xff\x00"}, {"% #x", "abcdef"}, {"%#X %q", "\xff\n\"é"},
		{"%+q", "\U0010ffff\u00e9"}, {"%c%o%u%i%e%E%f%g%G", "1"}, {"%99.99f", "1e308"}, {"%[1]s", "x"},
		{"%%%s%%", "100"}, {"%-+ #0s", "x"}, {"%d", "12345678901234567890"},
	} {
		f.Add(s[0], s[1])
	}
	r := newBuilderRig(f)
	tbl := r.st.L.NewTable()
	f.Fuzz(func(t *testing.T, format, arg string) {
		r.call(t, "string", "format", lua.LString(format), lua.LString(arg), lua.LNumber(len(arg))*1e300, tbl, lua.LString(arg))
		r.call(t, "string", "format", lua.LString(format), lua.LNumber(-1.5e-300), lua.LString(arg), lua.LString(arg), lua.LTrue)
	})
}

// FuzzGsubTemplate: string.gsub with any subject, pattern and replacement
// string never builds past the cap, never panics and stops at its deadline.
func FuzzGsubTemplate(f *testing.F) {
	for _, s := range [][3]string{
		{"hello world", "o", "0"}, {"abc", "", "-"}, {"abc", "%w", "%0%0"}, {"hello world", "(%w+) (%w+)", "%2 %1"},
		{"abc", "(b)()", "%2"}, {"abc", "b", "%"}, {"abc", "b", "%%%a"}, {"xxxxxxxx", ".+", "%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0%0"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", ".-.-.-.-c", "x"}, {"abc", "[%a-z]", "%1"}, {"abc", "b", "%9"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	r := newBuilderRig(f)
	f.Fuzz(func(t *testing.T, src, pat, repl string) {
		r.call(t, "string", "gsub", lua.LString(src), lua.LString(pat), lua.LString(repl))
	})
}

// FuzzReGsubTemplate: re.gsub with any subject, pattern and template never
// builds past the cap, never panics, stops at its deadline, and gives what
// regexp.ReplaceAllString gives when that fits.
func FuzzReGsubTemplate(f *testing.F) {
	for _, s := range [][3]string{
		{"a1b22c333", `\d+`, "#"}, {"john smith", `(\w+) (\w+)`, "$2 $1"}, {"k=v", `(?P<key>\w+)=(?P<val>\w+)`, "${val}=${key}"},
		{"abc", "", "-"}, {"abc", "b", "$$"}, {"abc", "b", "$"}, {"abc", "(b)", "${1"}, {"abc", "(b)", "$10$01$1x${1}x"},
		{"aaaaaaaa", ".+", "$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0"},
		{"é é", `(?P<é>é)\b`, "${é}$é"}, {"ab ab", `\bab`, "[$0]"},
		{"aaa", "^a", "b"}, {"a\na", "(?m)^a", "b"}, {"ab ab", `\Aab|x`, "y"}, {"ab ab", `^\bab`, "y"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	r := newBuilderRig(f)
	f.Fuzz(func(t *testing.T, src, pat, repl string) {
		got := r.call(t, "re", "gsub", lua.LString(src), lua.LString(pat), lua.LString(repl))
		if got == nil {
			return
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			t.Fatalf("re.gsub accepted the bad pattern %q: %v", pat, err)
		}
		if want := re.ReplaceAllString(src, repl); string(got.(lua.LString)) != want {
			t.Fatalf("re.gsub(%q, %q, %q) = %q, want %q", src, pat, repl, got, want)
		}
	})
}
