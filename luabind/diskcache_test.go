package luabind

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/binenc"
)

// shippedSources returns every Lua file of the repository's hooks.d and its
// lib folder, and this package's test sources: the chunks the cache must
// give back exactly.
func shippedSources(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, root := range []string{"../hooks.d", "../internal/packs"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
				return err
			}
			src, err := os.ReadFile(path)
			out[path] = src
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 10 {
		t.Fatalf("found %d Lua files", len(out))
	}
	// Constants of every kind the compiler keeps, NaN and folded ones among them.
	out["kinds.lua"] = []byte(`local a, b, c, d = 1.5, "s", -(2^53), 0/0
local t = {x = true, y = false, [3] = "z", 1e308 * 10}
local s = a .. b .. "c" .. c
return function(...) local n = select("#", ...) return t, s, n, d, nil end`)
	return out
}

// sameValue compares a and b field by field, unexported fields included,
// with nil and empty slices alike, NaNs equal to NaNs of the same bits,
// and pointers compared by what they point to.
func sameValue(a, b reflect.Value, at string) error {
	if a.Kind() != b.Kind() {
		return errors.New(at + ": kinds differ")
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return errors.New(at + ": nil and non-nil")
			}
			return nil
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return errors.New(at + ": types differ: " + a.Elem().Type().String() + ", " + b.Elem().Type().String())
		}
		if a.Kind() == reflect.Pointer && a.Pointer() == b.Pointer() {
			return nil
		}
		return sameValue(a.Elem(), b.Elem(), at)
	case reflect.Struct:
		for i := range a.NumField() {
			if err := sameValue(a.Field(i), b.Field(i), at+"."+a.Type().Field(i).Name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return errors.New(at + ": lengths differ")
		}
		for i := range a.Len() {
			if err := sameValue(a.Index(i), b.Index(i), at+"["+itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return errors.New(at + ": map sizes differ")
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return errors.New(at + ": key missing")
			}
			if err := sameValue(a.MapIndex(k), bv, at+"[key]"); err != nil {
				return err
			}
		}
	case reflect.String:
		if a.String() != b.String() {
			return errors.New(at + ": " + a.String() + " != " + b.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return errors.New(at + ": bools differ")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return errors.New(at + ": " + itoa(int(a.Int())) + " != " + itoa(int(b.Int())))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return errors.New(at + ": unsigned values differ")
		}
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return errors.New(at + ": floats differ")
		}
	case reflect.Func:
		if a.Pointer() != b.Pointer() {
			return errors.New(at + ": functions differ")
		}
	default:
		return errors.New(at + ": cannot compare kind " + a.Kind().String())
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// sameChunk reports how got differs from want: prototype (stringConstants
// included) and lint facts.
func sameChunk(got, want *Chunk) error {
	if got.path != want.path {
		return errors.New("paths differ")
	}
	if err := sameValue(reflect.ValueOf(got.proto).Elem(), reflect.ValueOf(want.proto).Elem(), "proto"); err != nil {
		return err
	}
	return sameValue(reflect.ValueOf(got.lint).Elem(), reflect.ValueOf(want.lint).Elem(), "lint")
}

func openTestCache(t testing.TB) (*DiskCache, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chunks")
	c, err := OpenDiskCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

// entries lists the entry files of a cache folder.
func entries(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+diskCacheSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDiskCacheGivesTheCompilersChunk: for every shipped source, the chunk
// read back from the cache is the compiler's, field by field (the VM's
// unexported stringConstants included), and a second process's cache (a
// new DiskCache on the folder) reads the entry rather than compiling.
func TestDiskCacheGivesTheCompilersChunk(t *testing.T) {
	c, dir := openTestCache(t)
	o := Options{DiskCache: c}
	for path, src := range shippedSources(t) {
		want, err := (&Options{}).compileSource(path, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		first, err := o.Compile(path, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := sameChunk(first, want); err != nil {
			t.Fatalf("%s, compiled through the cache: %v", path, err)
		}
		again, err := OpenDiskCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := again.load(again.entryName(path, sha256.Sum256(src)), path, sha256.Sum256(src))
		if got == nil {
			t.Fatalf("%s: no entry after a compile", path)
		}
		if err := sameChunk(got, want); err != nil {
			t.Fatalf("%s, read from the cache: %v", path, err)
		}
	}
}

// TestDiskCacheHitSkipsTheCompiler: an entry signed with the folder's key
// is what Compile returns, whatever the source says: the cache is really
// read (and so its signature is what keeps out any other content).
func TestDiskCacheHitSkipsTheCompiler(t *testing.T) {
	c, _ := openTestCache(t)
	src := []byte(`return "from the source"`)
	other, err := (&Options{}).compileSource("x.lua", []byte(`return "from the entry"`))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	c.store(c.entryName("x.lua", sum), "x.lua", sum, other)
	ch, err := Options{DiskCache: c}.Compile("x.lua", src)
	if err != nil {
		t.Fatal(err)
	}
	if got := runChunk(t, ch); got != "from the entry" {
		t.Fatalf("Compile returned the chunk of %q, not the cached one", got)
	}
	if got := runChunk(t, mustCompile(t, Options{}, "x.lua", src)); got != "from the source" {
		t.Fatalf("without the cache: %q", got)
	}
}

func mustCompile(t testing.TB, o Options, path string, src []byte) *Chunk {
	t.Helper()
	ch, err := o.Compile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// runChunk runs a chunk in a bare state and returns its string result.
func runChunk(t testing.TB, ch *Chunk) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(ch.proto))
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatal(err)
	}
	return L.Get(-1).String()
}

// TestDiskCacheRefusesDamagedEntries: an entry changed in any way (a byte
// flipped in its mark, its signature or its body, cut short, grown, empty,
// another source's entry moved into its place, a link or a folder in its
// place) is not used: Compile compiles the source, returns its chunk, and
// writes a good entry again.
func TestDiskCacheRefusesDamagedEntries(t *testing.T) {
	c, dir := openTestCache(t)
	srcA := []byte(`local x = 1 return function() return x + 1 end`)
	srcB := []byte(`return 2`)
	want := mustCompile(t, Options{}, "a.lua", srcA)
	mustCompile(t, Options{DiskCache: c}, "b.lua", srcB)
	sumA, sumB := sha256.Sum256(srcA), sha256.Sum256(srcB)
	nameA := filepath.Join(dir, c.entryName("a.lua", sumA))
	nameB := filepath.Join(dir, c.entryName("b.lua", sumB))
	mustCompile(t, Options{DiskCache: c}, "a.lua", srcA)
	good, err := os.ReadFile(nameA)
	if err != nil {
		t.Fatal(err)
	}
	goodB, err := os.ReadFile(nameB)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) func() error {
		return func() error {
			b := append([]byte(nil), good...)
			b[i] ^= 0x20
			return os.WriteFile(nameA, b, 0o600)
		}
	}
	damage := map[string]func() error{
		"mark":      flip(1),
		"signature": flip(len(diskCacheMagic) + 3),
		"body":      flip(len(good) - 5),
		"header":    flip(len(diskCacheMagic) + sha256.Size + 2),
		"cut short": func() error { return os.WriteFile(nameA, good[:len(good)/2], 0o600) },
		"grown":     func() error { return os.WriteFile(nameA, append(append([]byte(nil), good...), 0), 0o600) },
		"empty":     func() error { return os.WriteFile(nameA, nil, 0o600) },
		"another source's entry": func() error {
			return os.WriteFile(nameA, goodB, 0o600)
		},
		"a link": func() error {
			os.Remove(nameA)
			return os.Symlink(nameB, nameA)
		},
		"a folder": func() error {
			os.Remove(nameA)
			return os.Mkdir(nameA, 0o700)
		},
		"a named pipe": func() error {
			os.Remove(nameA)
			return syscall.Mkfifo(nameA, 0o600)
		},
	}
	for what, do := range damage {
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c.load(filepath.Base(nameA), "a.lua", sumA) != nil {
			t.Errorf("%s: the entry was used", what)
		}
		got, err := Options{DiskCache: c}.Compile("a.lua", srcA)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := sameChunk(got, want); err != nil {
			t.Errorf("%s: %v", what, err)
		}
		if what == "a folder" {
			os.Remove(nameA)
			mustCompile(t, Options{DiskCache: c}, "a.lua", srcA)
		}
		if c.load(filepath.Base(nameA), "a.lua", sumA) == nil {
			t.Errorf("%s: no good entry written back", what)
		}
	}
}

// TestDiskCacheEntryIsForOneSourcePathAndBuild: an entry is not found for
// another source at the same path, the same source at another path, or
// another executable (build identity).
func TestDiskCacheEntryIsForOneSourcePathAndBuild(t *testing.T) {
	c, dir := openTestCache(t)
	src := []byte(`return 1`)
	mustCompile(t, Options{DiskCache: c}, "a.lua", src)
	sum := sha256.Sum256(src)
	if c.load(c.entryName("a.lua", sum), "a.lua", sum) == nil {
		t.Fatal("no entry")
	}
	other := sha256.Sum256([]byte(`return 2`))
	if c.entryName("a.lua", other) == c.entryName("a.lua", sum) || c.entryName("b.lua", sum) == c.entryName("a.lua", sum) {
		t.Error("two sources share an entry name")
	}
	rebuilt, err := OpenDiskCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt.build += "x"
	if rebuilt.entryName("a.lua", sum) == c.entryName("a.lua", sum) {
		t.Error("another build finds the same entry")
	}
	// The entry's own header is checked too: an entry moved to the name
	// another build would look for is refused.
	if err := os.Rename(filepath.Join(dir, c.entryName("a.lua", sum)), filepath.Join(dir, rebuilt.entryName("a.lua", sum))); err != nil {
		t.Fatal(err)
	}
	if rebuilt.load(rebuilt.entryName("a.lua", sum), "a.lua", sum) != nil {
		t.Error("an entry of another build was used")
	}
}

// TestDiskCacheKeepsTheSizeCheck: a source over MaxSourceBytes is refused
// before the cache is asked, even when an entry for it exists.
func TestDiskCacheKeepsTheSizeCheck(t *testing.T) {
	c, _ := openTestCache(t)
	src := []byte(`return "` + strings.Repeat("x", 100) + `"`)
	mustCompile(t, Options{DiskCache: c}, "a.lua", src)
	_, err := Options{DiskCache: c, MaxSourceBytes: 50}.Compile("a.lua", src)
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "limit on Lua source") {
		t.Fatalf("got %v, want the size error", err)
	}
}

// TestDiskCacheStoresNoFailure: a source that does not compile is an error
// every time and leaves no entry.
func TestDiskCacheStoresNoFailure(t *testing.T) {
	c, dir := openTestCache(t)
	for range 2 {
		if _, err := (Options{DiskCache: c}).Compile("bad.lua", []byte(`return (`)); err == nil {
			t.Fatal("a syntax error compiled")
		}
	}
	if n := len(entries(t, dir)); n != 0 {
		t.Fatalf("%d entries after failed compiles", n)
	}
}

// TestDiskCacheKeepsAtMostMaxEntries: past c.max entries the oldest go.
func TestDiskCacheKeepsAtMostMaxEntries(t *testing.T) {
	c, dir := openTestCache(t)
	c.max = 8
	for i := range 30 {
		mustCompile(t, Options{DiskCache: c}, "f.lua", []byte("return "+itoa(i)))
	}
	if n := len(entries(t, dir)); n > 8 || n < 6 {
		t.Fatalf("%d entries, want 6 to 8", n)
	}
	sum := sha256.Sum256([]byte("return 29"))
	if c.load(c.entryName("f.lua", sum), "f.lua", sum) == nil {
		t.Error("the newest entry was removed")
	}
}

// TestOpenDiskCacheRefusesWhatOthersCanChange: a folder that group or
// others can write, a link in the folder's place, a folder of another
// user, and a key others can read are each refused.
func TestOpenDiskCacheRefusesWhatOthersCanChange(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDiskCache(open); err == nil || !strings.Contains(err.Error(), open+": mode 0777 lets others write it") {
		t.Errorf("folder 0777: %v", err)
	}
	good := filepath.Join(base, "good")
	if _, err := OpenDiskCache(good); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDiskCache(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v", err)
	}
	if err := os.Chmod(filepath.Join(good, diskCacheKeyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDiskCache(good); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("key 0644: %v", err)
	}
	// A folder of another user: as root, one chowned to nobody; otherwise
	// the root folder, which root owns.
	theirs := "/"
	if os.Geteuid() == 0 {
		theirs = filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenDiskCache(theirs); err == nil || !strings.Contains(err.Error(), "not by this user") {
		t.Errorf("another user's folder: %v", err)
	}
}

// TestDiskCacheFileLoadsAndRunsAsCompiled: a hook file and the lib module
// it requires, loaded through a warm cache in a second pass, register and
// decide as they did when compiled (the whole path: Load, require, call).
func TestDiskCacheFileLoadsAndRunsAsCompiled(t *testing.T) {
	c, dir := openTestCache(t)
	lib := t.TempDir()
	if err := os.WriteFile(filepath.Join(lib, "m.lua"), []byte(`local M = {} function M.bad(s) return s:find("rm", 1, true) ~= nil end return M`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := []byte(`local m = require("m")
hook.register("PreToolUse", "bash", function(input)
  if m.bad(input.toolInput.command) then return hook.deny("no " .. "rm") end
end)`)
	decide := func() string {
		o := Options{LibDir: lib, DiskCache: c}
		f, err := Load(context.Background(), mustCompile(t, o, "h.lua", src), o)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out, err := call(t, f, 0, preToolUse("Bash", `{"command":"rm -rf x"}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(out.Action) + ": " + out.Reason
	}
	first := decide()
	if n := len(entries(t, dir)); n != 2 {
		t.Fatalf("%d entries, want the file's and the module's", n)
	}
	if second := decide(); second != first || !strings.Contains(first, "no rm") {
		t.Fatalf("first %q, second %q", first, second)
	}
}

// FuzzDecodeCacheEntry: no entry body, however damaged, panics the decoder
// or makes it allocate past what the body could describe (binenc.Reader
// checks every count against the bytes left). The fuzzer changes what
// follows a good header, so that its inputs reach the prototype and lint
// decoders.
func FuzzDecodeCacheEntry(f *testing.F) {
	const build = "LHC1 test"
	sum := sha256.Sum256(nil)
	hw := &binenc.Writer{}
	hw.String(build)
	hw.String("f.lua")
	hw.String(string(sum[:]))
	header := hw.B
	for _, src := range []string{`return 1`, `local s = "a" .. "b" return function(x) return s, x, 0/0, true end`, `hook.register("Stop", nil, function() end) -- luahook: ignore nope`} {
		ch, err := (&Options{}).compileSource("f.lua", []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		body, err := encodeEntry(build, "f.lua", sum, ch)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body[len(header):])
	}
	f.Fuzz(func(t *testing.T, rest []byte) {
		ch, err := decodeEntry(string(header)+string(rest), build, "f.lua", sum)
		if err == nil && (ch == nil || ch.proto == nil || ch.lint == nil) {
			t.Fatal("accepted a body and returned no chunk")
		}
	})
}
