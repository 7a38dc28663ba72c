package luabind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/fifotest"
	"github.com/luahook/luahook/luabind/internal/modules"
)

// fsProject makes a project folder in a temporary folder of its own (so
// that a link can point outside the project and stay in the test's
// folder), with files as path -> contents ("path/" a folder), and returns
// it and the outside folder.
func fsProject(t testing.TB, files map[string]string) (project, outside string) {
	t.Helper()
	base := t.TempDir()
	project, outside = filepath.Join(base, "project"), filepath.Join(base, "outside")
	for _, d := range []string{project, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(project, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project, outside
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// fsHook loads body as a PreToolUse hook of its own file.
func fsHook(t testing.TB, body string) *File {
	t.Helper()
	return load(t, "hook.register('PreToolUse', nil, function(input, rt)\n"+body+"\nend)", Options{})
}

// fsCall calls the hook with cwd as the payload's, under a deadline.
func fsCall(t testing.TB, f *File, cwd string) error {
	t.Helper()
	in := preToolUse("bash", `{"command":"ls"}`)
	in.Cwd = cwd
	_, err := call(t, f, 0, in)
	return err
}

// fsRun runs body (Lua asserting what it reads) with cwd as the payload's
// and fails the test when it raises.
func fsRun(t *testing.T, cwd, body string) {
	t.Helper()
	if err := fsCall(t, fsHook(t, body), cwd); err != nil {
		t.Fatal(err)
	}
}

// fsRaises runs body and checks that it raises an error containing want.
func fsRaises(t *testing.T, cwd, body, want string) {
	t.Helper()
	err := fsCall(t, fsHook(t, body), cwd)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}

func TestFSExists(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{"package-lock.json": "{}", "src/main.go": "package main", "empty/": ""})
	symlink(t, "src/main.go", filepath.Join(dir, "main-link"))
	symlink(t, "src", filepath.Join(dir, "src-link"))
	symlink(t, "missing", filepath.Join(dir, "dangling"))
	fsRun(t, dir, `
assert(fs.exists("package-lock.json") == true, "a file")
assert(fs.exists("src") == true, "a folder")
assert(fs.exists("empty/") == true, "a folder with a slash")
assert(fs.exists("./src/main.go") == true, "a file below")
assert(fs.exists("src/../package-lock.json") == true, ".. that stays inside")
assert(fs.exists("main-link") == true, "a link inside, to a file inside")
assert(fs.exists("src-link/main.go") == true, "through a link to a folder inside")
assert(fs.exists(".") == true, "the project folder")
assert(fs.exists(rt.cwd .. "/src/main.go") == true, "an absolute path inside")
assert(fs.exists(rt.cwd) == true, "the project folder, absolute")
assert(fs.exists("yarn.lock") == false, "a missing file")
assert(fs.exists("package-lock.json/x") == false, "below a file")
assert(fs.exists("dangling") == false, "a link to nothing")
`)
}

func TestFSStat(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{"a.txt": "hello", "d/": ""})
	symlink(t, "a.txt", filepath.Join(dir, "l"))
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	fsRun(t, dir, fmt.Sprintf(`
local s = assert(fs.stat("a.txt"))
assert(s.type == "file" and s.size == 5 and s.mtime == %d, json.encode(s))
assert(fs.stat("d").type == "dir")
local l = assert(fs.stat("l"))
assert(l.type == "link" and l.size == #"a.txt", "a link is itself: " .. json.encode(l))
local none, err = fs.stat("nothing")
assert(none == nil and err == "fs.stat: nothing: no such file or folder", tostring(err))
`, mtime.Unix()))
}

func TestFSRead(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{
		".nvmrc":    "20.11.0\n",
		"default":   strings.Repeat("x", modules.FSReadDefault),
		"over":      strings.Repeat("x", modules.FSReadDefault+1),
		"max":       strings.Repeat("y", modules.FSReadMax),
		"over-max":  strings.Repeat("y", modules.FSReadMax+1),
		"empty.txt": "",
		"folder/":   "",
	})
	fsRun(t, dir, fmt.Sprintf(`
assert(fs.read(".nvmrc") == "20.11.0\n")
assert(fs.read("empty.txt") == "")
assert(#fs.read("default") == %[1]d, "the default max is 64 KiB")
local none, err = fs.read("over")
assert(none == nil and err == "fs.read: over: the file holds %[2]d bytes, more than the max of %[1]d", tostring(err))
assert(#fs.read("over", %[2]d) == %[2]d, "a max above the default")
assert(fs.read(".nvmrc", 3) == nil, "a max below the file's size")
assert(#fs.read("max", %[3]d) == %[3]d, "the hard cap")
local none2, err2 = fs.read("over-max", %[3]d)
assert(none2 == nil and err2:find("more than the max of %[3]d", 1, true), tostring(err2))
local none3, err3 = fs.read("folder")
assert(none3 == nil and err3 == "fs.read: folder: refused: not a regular file: it is a folder", tostring(err3))
local none4, err4 = fs.read("missing")
assert(none4 == nil and err4 == "fs.read: missing: no such file or folder", tostring(err4))
`, modules.FSReadDefault, modules.FSReadDefault+1, modules.FSReadMax))
	for _, bad := range []string{fmt.Sprint(modules.FSReadMax + 1), "0", "-1", "1.5", "'10'"} {
		t.Run("max="+bad, func(t *testing.T) {
			fsRaises(t, dir, `fs.read(".nvmrc", `+bad+`)`, "max must be a whole number of bytes from 1 to 1048576")
		})
	}
}

// The string cap lowers fs.read's hard cap: no read builds a string the
// sandbox would refuse.
func TestFSReadKeepsToTheStringCap(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{"f": strings.Repeat("z", 2000)})
	f := load(t, `hook.register('PreToolUse', nil, function()
  local s, err = fs.read("f")
  assert(s == nil and err:find("more than the max of 1024", 1, true), tostring(err))
  fs.read("f", 1025)
end)`, Options{MaxStringBytes: 1024})
	err := fsCall(t, f, dir)
	if err == nil || !strings.Contains(err.Error(), "from 1 to 1024") {
		t.Fatalf("error %v, want max refused past the string cap", err)
	}
}

func TestFSGlob(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{
		"go.mod": "", "b.txt": "", "a.txt": "", ".env": "", "src/x.go": "", "src/y.go": "", "src/sub/z.go": "",
		"src/sub/deeper/w.go": "", "docs/readme.md": "", "[x]": "",
	})
	symlink(t, "src", filepath.Join(dir, "src-link"))
	fsRun(t, dir, `
local function list(t) return table.concat(t, " ") end
local got, more = fs.glob("*.txt")
assert(list(got) == "a.txt b.txt" and more == false, list(got))
assert(json.encode(fs.glob("*.none")) == "[]", "no match is an empty list")
assert(list(fs.glob("src/*.go")) == "src/x.go src/y.go")
assert(list(fs.glob("**/*.go")) == "src/sub/deeper/w.go src/sub/z.go src/x.go src/y.go", list(fs.glob("**/*.go")))
assert(list(fs.glob("src/**")) == "src src/sub src/sub/deeper src/sub/deeper/w.go src/sub/z.go src/x.go src/y.go", list(fs.glob("src/**")))
assert(list(fs.glob("src-link/*.go")) == "", "a glob does not walk through a link")
assert(list(fs.glob("src-*")) == "src-link", "a link is matched")
assert(list(fs.glob(".env")) == ".env" and list(fs.glob(".e*")) == ".env")
assert(list(fs.glob("go.mod")) == "go.mod" and list(fs.glob("nothing/go.mod")) == "")
assert(list(fs.glob("\\[x]")) == "[x]", "an escaped bracket")
assert(list(fs.glob("./docs/*")) == "docs/readme.md")
assert(list(fs.glob("**/*.md")) == "docs/readme.md" and fs.glob("**")[1] == ".env", "** is not the folder itself")
assert(list(fs.glob(".")) == ".")
local two, cut = fs.glob("**/*.go", 2)
assert(list(two) == "src/sub/deeper/w.go src/sub/z.go" and cut == true, "max keeps the first paths in order")
`)
	for _, c := range []struct{ pattern, want string }{
		{`"/etc/*"`, "patterns are relative to the project folder"},
		{`"../*"`, "'..' leads out of the project folder"},
		{`"src/../../*"`, "'..' leads out of the project folder"},
		{`"a**"`, "'**' must be a whole path element"},
		{`"[x"`, "malformed pattern element"},
		{`""`, "an empty path"},
		{`"*", 0`, "max must be a whole number of paths from 1 to 4096"},
		{`"*", 4097`, "max must be a whole number of paths from 1 to 4096"},
	} {
		t.Run(c.pattern, func(t *testing.T) { fsRaises(t, dir, "fs.glob("+c.pattern+")", c.want) })
	}
}

// fs.glob returns 256 paths unless told otherwise, 4096 at most, and
// says that it left some out.
func TestFSGlobCapsItsPaths(t *testing.T) {
	files := map[string]string{}
	for i := range modules.FSGlobMax + 1 {
		files[fmt.Sprintf("f%05d", i)] = ""
	}
	dir, _ := fsProject(t, files)
	fsRun(t, dir, fmt.Sprintf(`
local t, more = fs.glob("f*")
assert(#t == %[1]d and more == true and t[1] == "f00000" and t[%[1]d] == "f00255", #t)
local all, cut = fs.glob("f*", %[2]d)
assert(#all == %[2]d and cut == true and all[%[2]d] == "f04095", #all)
`, modules.FSGlobDefault, modules.FSGlobMax))
}

// One glob visits at most FSGlobVisits entries: a walk that would visit
// more raises, saying so, rather than answer from part of the tree.
func TestFSGlobBoundsItsWalk(t *testing.T) {
	files := map[string]string{}
	for i := range modules.FSGlobVisits {
		files[fmt.Sprintf("d%d/f%04d", i%10, i)] = ""
	}
	dir, _ := fsProject(t, files)
	// 10 folders and 10,000 files: 10,010 entries.
	fsRaises(t, dir, `fs.glob("*/*.none")`, "visited 10000 entries without finishing")
	fsRun(t, dir, `assert(#fs.glob("d1/*", 4096) == 1000)`)
}

// Paths that leave the project folder are refused, saying which rule
// refused them: exists raises (a boolean cannot say so), stat and read
// return nil and the reason.
func TestFSConfinement(t *testing.T) {
	dir, outside := fsProject(t, map[string]string{"inside.txt": "in", "sub/": ""})
	secret := filepath.Join(outside, "secret")
	symlink(t, "../outside/secret", filepath.Join(dir, "rel-out"))
	symlink(t, secret, filepath.Join(dir, "abs-out"))
	symlink(t, filepath.Join(dir, "inside.txt"), filepath.Join(dir, "abs-in"))
	symlink(t, "../outside", filepath.Join(dir, "dir-out"))
	symlink(t, "/dev/null", filepath.Join(dir, "null"))
	symlink(t, "../inside.txt", filepath.Join(dir, "sub", "up-in"))
	fsRun(t, dir, `assert(fs.read("sub/up-in") == "in", "a link that climbs but stays inside")`)
	const dots, out, link = "'..' leads out of the project folder", "is outside the project folder", "a symbolic link on the way leads out of the project folder, or is absolute"
	for _, c := range []struct{ path, why string }{
		{"../outside/secret", dots},
		{"sub/../../outside/secret", dots},
		{"..", dots},
		{secret, out},
		{"/etc/passwd", out},
		{dir + "-other/x", out},
		{"rel-out", link},
		{"abs-out", link},
		{"abs-in", link},
		{"dir-out/secret", link},
		{"null", link},
	} {
		t.Run(c.path, func(t *testing.T) {
			q := fmt.Sprintf("%q", c.path)
			fsRaises(t, dir, "fs.exists("+q+")", "fs.exists: "+c.path+": refused: ")
			fsRaises(t, dir, "fs.exists("+q+")", c.why)
			fsRun(t, dir, fmt.Sprintf(`
local v, err = fs.read(%[1]s)
assert(v == nil and err:find("fs.read: " .. %[1]s .. ": refused: ", 1, true) and err:find(%[2]q, 1, true), tostring(err))
`, q, c.why))
			if c.why != link { // stat looks at the link itself
				fsRun(t, dir, fmt.Sprintf(`
local v, err = fs.stat(%[1]s)
assert(v == nil and err:find(%[2]q, 1, true), tostring(err))
`, q, c.why))
			}
		})
	}
	fsRun(t, dir, `
local v, err = fs.stat("dir-out/secret")
assert(v == nil and err:find("a symbolic link on the way leads out", 1, true), tostring(err))
assert(fs.stat("abs-out").type == "link", "stat describes the link itself")`)
}

// A named pipe is refused by fs.read, which never opens it (an open for
// reading would wait for a writer); exists and stat do not open it.
func TestFSReadRefusesANamedPipeWithoutBlocking(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{})
	fifo := fifotest.Make(t, filepath.Join(dir, "pipe"))
	symlink(t, "pipe", filepath.Join(dir, "pipe-link"))
	fifotest.Within(t, 20*time.Second, []string{fifo}, func() {
		fsRun(t, dir, `
local v, err = fs.read("pipe")
assert(v == nil and err == "fs.read: pipe: refused: not a regular file: it is a named pipe (FIFO)", tostring(err))
local v2, err2 = fs.read("pipe-link")
assert(v2 == nil and err2:find("named pipe", 1, true), tostring(err2))
assert(fs.exists("pipe") == true)
assert(fs.stat("pipe").type == "other")`)
	})
}

// What one hook call may read is bounded: FSCallBytes read and
// FSCallEntries looked up; the next call starts afresh.
func TestFSCapsEachHookCall(t *testing.T) {
	dir, _ := fsProject(t, map[string]string{"mib": strings.Repeat("m", modules.FSReadMax), "ten": "0123456789"})
	reads := modules.FSCallBytes / modules.FSReadMax
	f := fsHook(t, fmt.Sprintf(`
for i = 1, %d do assert(#fs.read("mib", %d) == %d) end
assert(fs.read("ten") == "0123456789")
fs.read("mib", %d)`, reads-1, modules.FSReadMax, modules.FSReadMax, modules.FSReadMax))
	for range 2 {
		err := fsCall(t, f, dir)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("fs.read: mib: reading its 1048576 bytes would pass the 4 MiB fs.read may read in one hook call (%d left)", modules.FSReadMax-10)) {
			t.Fatalf("error %v, want the call's bytes spent", err)
		}
	}
	spent := fsHook(t, fmt.Sprintf(`
for i = 1, %d do assert(#fs.read("mib", %d) == %d) end
fs.read("ten")`, reads, modules.FSReadMax, modules.FSReadMax))
	if err := fsCall(t, spent, dir); err == nil || !strings.Contains(err.Error(), "fs.read: this hook call has read the 4 MiB fs.read may read in one call") {
		t.Fatalf("error %v, want the call's bytes spent", err)
	}
	g := fsHook(t, fmt.Sprintf(`
local n = 0
local ok, err = pcall(function()
  for i = 1, %d do fs.exists("mib"); n = n + 1 end
end)
assert(n == %d and not ok, "looked up " .. n)
error(err, 0)`, modules.FSCallEntries+1, modules.FSCallEntries))
	for range 2 {
		err := fsCall(t, g, dir)
		if err == nil || !strings.Contains(err.Error(), "this hook call has used the 20000 file system entries") {
			t.Fatalf("error %v, want the call's entries spent", err)
		}
	}
	// A glob's visits count too: the call's last entries cut a walk short.
	files := map[string]string{}
	for i := range 100 {
		files[fmt.Sprintf("f%03d", i)] = ""
	}
	dir2, _ := fsProject(t, files)
	h := fsHook(t, fmt.Sprintf(`
for i = 1, %d do fs.exists("f000") end
fs.glob("*")`, modules.FSCallEntries-50))
	if err := fsCall(t, h, dir2); err == nil || !strings.Contains(err.Error(), "fs.glob: this hook call has used the 20000") {
		t.Fatalf("error %v, want the glob stopped by the call's entries", err)
	}
}

// Outside a hook call, and in a call whose payload has no cwd, there is no
// project folder; a cwd that is not a folder raises.
func TestFSNeedsTheCallsProjectFolder(t *testing.T) {
	le := loadError(t, `fs.exists("x")`, Options{})
	if !strings.Contains(le.Message, "fs.exists: the project's files are only available inside a hook call") {
		t.Errorf("load error %q", le.Message)
	}
	f := fsHook(t, `fs.stat("x")`)
	if err := fsCall(t, f, ""); err == nil || !strings.Contains(err.Error(), "fs.stat: this call's payload has no cwd") {
		t.Errorf("without a cwd: %v", err)
	}
	dir, _ := fsProject(t, map[string]string{"file": ""})
	if err := fsCall(t, f, filepath.Join(dir, "file")); err == nil || !strings.Contains(err.Error(), "fs.stat: the project folder (the payload's cwd): ") ||
		!strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a cwd that is a file: %v", err)
	}
	if err := fsCall(t, f, filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("a cwd that does not exist: %v", err)
	}
	fsRaises(t, dir, `fs.read = nil`, "the fs module is read-only")
}

// A hook whose deadline passes while its glob walks a big tree fails as
// a timeout, raised by the glob: the hook first measures how long the walk
// takes here, then starts it with a quarter of that time left. (modules'
// own tests count the entries a walk visits once its context is done.)
func TestFSGlobStopsAtTheDeadline(t *testing.T) {
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("d%02d/e%04d/", i%40, i)] = ""
	}
	dir, _ := fsProject(t, files)
	f := fsHook(t, `
local leave = input.toolInput.leave
if leave then while rt.remaining_ms() > leave do end end
fs.glob("**/none", 4096)
if leave then error("the glob finished before the deadline") end`)
	in := preToolUse("bash", `{}`)
	in.Cwd = dir
	start := time.Now()
	if _, err := call(t, f, 0, in); err != nil {
		t.Fatal(err)
	}
	walk := time.Since(start)
	leave := walk.Milliseconds() / 4
	t.Logf("the walk takes %v here; the timed one starts with %dms left", walk, leave)
	if leave < 2 {
		t.Fatalf("the walk took %v: too little to start it with a quarter of that left", walk)
	}
	in.ToolInput = []byte(fmt.Sprintf(`{"leave":%d}`, leave))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond+time.Duration(leave)*time.Millisecond)
	defer cancel()
	_, err := f.Registrations()[0].Hook.Call(ctx, in)
	if fl := failure(t, err); fl.Kind != luahook.FailTimeout || !strings.Contains(fl.Message, "fs.glob: context deadline exceeded") {
		t.Fatalf("failure %v: %s, want a timeout raised by fs.glob", fl.Kind, fl.Message)
	}
}

// The linter knows the fs module's functions.
func TestLintKnowsTheFSModule(t *testing.T) {
	wantWarnings(t, warnings(t, `hook.register("PreToolUse", nil, function()
  if fs.exists("a") or fs.stat("b") or fs.read("c") or fs.glob("d") then return end
  return fs.exist("x")
end)`, Options{}), "3: [unknown-field] fs.exist does not exist (did you mean 'exists'?)")
}

func BenchmarkFSExists(b *testing.B) {
	dir, _ := fsProject(b, map[string]string{"package-lock.json": "{}"})
	const per = 1000
	f := fsHook(b, fmt.Sprintf(`for i = 1, %d do if not fs.exists("package-lock.json") then error("missing") end end`, per))
	in := preToolUse("bash", `{}`)
	in.Cwd = dir
	h := f.Registrations()[0].Hook
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := h.Call(ctx, in)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/exists")
}
