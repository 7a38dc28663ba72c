package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// These tests change a real folder and wait, polling, for the real fsnotify
// events to reach the engine.

func TestWatchedFolderFollowsEveryKindOfChange(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v1")})
	e := openEngine(t, Options{Dir: dir})
	path := filepath.Join(dir, "10-ver.lua")
	waitVerdict(t, e, "v1")

	// Modify in place.
	writeFile(t, path, denyFile("v2"))
	waitVerdict(t, e, "v2")

	// Save by rename: write a temporary file, rename it over the hook file.
	saveByRename(t, path, denyFile("v3"))
	waitVerdict(t, e, "v3")

	// Delete.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, e, "allowed")

	// Create.
	writeFile(t, path, denyFile("v4"))
	waitVerdict(t, e, "v4")

	// Rename away (no longer a hook file) and back.
	if err := os.Rename(path, path+".off"); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, e, "allowed")
	if err := os.Rename(path+".off", path); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, e, "v4")

	// Rename to another hook file name: the hooks move with it.
	other := filepath.Join(dir, "20-moved.lua")
	if err := os.Rename(path, other); err != nil {
		t.Fatal(err)
	}
	eventually(t, "hooks owned by the new name only", func() bool {
		return e.Registry().CountByOwner("20-moved.lua") == 1 && e.Registry().CountByOwner("10-ver.lua") == 0
	})
	if got := verdict(e); got != "v4" {
		t.Errorf("verdict after a rename %q, want v4", got)
	}
	waitNoErr(t, e)
}

func TestSyntaxErrorKeepsThePreviousVersionUntilFixed(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v1")})
	logs := &logRecorder{}
	e := openEngine(t, Options{Dir: dir, Logger: slog.New(logs)})
	path := filepath.Join(dir, "10-ver.lua")

	writeFile(t, path, "-- broken\nhook.register(\"PreToolUse\", \"bash\", function()\n  return hook.deny(\"v2\"\nend)\n")
	eventually(t, "the syntax error is listed", func() bool { return len(e.Errors()) == 1 })
	if err := e.Errors()[0]; !strings.HasPrefix(err.Error(), path+":4:") {
		t.Errorf("error %q does not name the file and line 4", err)
	}
	if got := verdict(e); got != "v1" {
		t.Errorf("verdict %q with a broken file, want the previous version v1", got)
	}
	errLines := logs.records(slog.LevelError, "hook file not loaded; the previous version stays live")
	if len(errLines) != 1 || !strings.Contains(errLines[0], "file="+path) || !strings.Contains(errLines[0], "line=4") {
		t.Errorf("error log lines %q, want one naming the file and line", errLines)
	}

	writeFile(t, path, denyFile("v3"))
	waitVerdict(t, e, "v3")
	waitNoErr(t, e)
}

func TestRestoringTheLiveVersionClearsItsError(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v1")})
	e := openEngine(t, Options{Dir: dir})
	path := filepath.Join(dir, "10-ver.lua")
	before := ids(e, "10-ver.lua")
	writeFile(t, path, "error('broken')\n")
	eventually(t, "the error is listed", func() bool { return len(e.Errors()) == 1 })
	writeFile(t, path, denyFile("v1"))
	eventually(t, "the error is cleared", func() bool { return len(e.Errors()) == 0 })
	if got := ids(e, "10-ver.lua"); !slices.Equal(got, before) {
		t.Errorf("entries %v, want the live ones %v untouched", got, before)
	}
}

func TestReloadedFileKeepsItsPlaceInTheOrder(t *testing.T) {
	reg := func(name string) string {
		return fmt.Sprintf("hook.register(\"Stop\", nil, function() end, { name = %q })\n", name)
	}
	dir := hooksDir(t, map[string]string{
		"10-a.lua": reg("a1"),
		"20-b.lua": reg("b"),
		"30-c.lua": reg("c"),
	})
	e := openEngine(t, Options{Dir: dir})
	writeFile(t, filepath.Join(dir, "10-a.lua"), reg("a2")+reg("a3"))
	names := func() []string {
		var out []string
		for _, en := range e.Registry().List(luahook.Stop) {
			out = append(out, en.Name)
		}
		return out
	}
	want := []string{"a2", "a3", "b", "c"}
	eventually(t, "the reloaded file's hooks first", func() bool { return slices.Equal(names(), want) })
}

func TestLibChangeReloadsItsDependantsOnly(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"lib/words.lua":       `return { reason = "lib-v1" }`,
		"lib/deep/nested.lua": `return { suffix = "" }`,
		"10-user.lua": `local words = require("words")
local nested = require("deep.nested")
hook.register("PreToolUse", "bash", function() return hook.deny(words.reason .. nested.suffix) end)`,
		"20-other.lua": `hook.register("Stop", nil, function() end)`,
	})
	e := openEngine(t, Options{Dir: dir})
	other := ids(e, "20-other.lua")
	waitVerdict(t, e, "lib-v1")

	writeFile(t, filepath.Join(dir, "lib", "words.lua"), `return { reason = "lib-v2" }`)
	waitVerdict(t, e, "lib-v2")
	saveByRename(t, filepath.Join(dir, "lib", "deep", "nested.lua"), `return { suffix = "+nested" }`)
	waitVerdict(t, e, "lib-v2+nested")
	if got := ids(e, "20-other.lua"); !slices.Equal(got, other) {
		t.Errorf("a file that does not require the lib was reloaded: %v -> %v", other, got)
	}
}

func TestLibFixRetriesAFileThatFailedOnIt(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-user.lua": `local words = require("words")
hook.register("PreToolUse", "bash", function() return hook.deny(words.reason) end)`,
	})
	e := openEngine(t, Options{Dir: dir})
	if errs := e.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), `require "words"`) {
		t.Fatalf("Errors = %v, want the missing module", errs)
	}
	writeFile(t, filepath.Join(dir, "lib", "words.lua"), `return { reason = "found" }`)
	waitVerdict(t, e, "found")
	waitNoErr(t, e)
}

func TestHooksFolderCreatedAfterOpenIsLoaded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks.d")
	e := openEngine(t, Options{Dir: dir})
	waitVerdict(t, e, "allowed")
	writeFile(t, filepath.Join(dir, "lib", "r.lua"), `return "from lib"`)
	writeFile(t, filepath.Join(dir, "10-ver.lua"), `local r = require("r")
hook.register("PreToolUse", "bash", function() return hook.deny(r) end)`)
	waitVerdict(t, e, "from lib")
	// The lib folder, created with the hooks folder, is watched too.
	writeFile(t, filepath.Join(dir, "lib", "r.lua"), `return "lib edited"`)
	waitVerdict(t, e, "lib edited")

	// The whole folder removed: no Lua hooks.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, e, "allowed")
	writeFile(t, filepath.Join(dir, "10-ver.lua"), denyFile("back"))
	waitVerdict(t, e, "back")
}

func TestEditorTempFilesAndChmodDoNotReload(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v1"), "20-sync.lua": ""})
	e := openEngine(t, Options{Dir: dir})
	before := e.Stats().Reloads
	broken := "this is not Lua ((("
	for _, name := range []string{".#10-ver.lua", ".10-ver.lua.swp", "10-ver.lua~", "#10-ver.lua#", "4913", "10-ver.lua.tmp", "x_test.lua", "lib/.#words.lua", "lib/words.lua~"} {
		writeFile(t, filepath.Join(dir, name), broken)
	}
	if err := os.Chmod(filepath.Join(dir, "10-ver.lua"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A real change afterwards: once it is live, every earlier event has
	// been seen.
	writeFile(t, filepath.Join(dir, "20-sync.lua"), `hook.register("Stop", nil, function() end)`)
	eventually(t, "the later change is loaded", func() bool {
		return e.Registry().CountByOwner("20-sync.lua") == 1 && e.Stats().Reloads > before
	})
	waitNoErr(t, e)
	if got := e.Stats().Reloads - before; got != 1 {
		t.Errorf("%d reloads, want 1 (only the real change)", got)
	}
	if got := verdict(e); got != "v1" {
		t.Errorf("verdict %q, want v1", got)
	}
}

func TestBurstOfWritesEndsInAFewReloads(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v0")})
	e := openEngine(t, Options{Dir: dir, Debounce: DefaultDebounce})
	before := e.Stats().Reloads
	path := filepath.Join(dir, "10-ver.lua")
	for i := 1; i <= 50; i++ {
		writeFile(t, path, denyFile(fmt.Sprintf("v%d", i)))
	}
	waitVerdict(t, e, "v50")
	eventually(t, "the reload published", func() bool { return e.Stats().Reloads > before })
	if n := e.Stats().Reloads - before; n > 5 {
		t.Errorf("%d reloads for a burst of 50 writes, want one or a few", n)
	}
}

func TestConfigChanges(t *testing.T) {
	const cmdHook = `
[[hooks.PreToolUse]]
name = "cfg"
matcher = "bash"
command = "sh -c 'echo %s >&2; exit 2'"
`
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v1"))
	writeFile(t, filepath.Join(root, "hooks.d", "10-stop.lua"), `hook.register("Stop", nil, function() end)`)
	logs := &logRecorder{}
	e := openEngine(t, Options{ConfigPath: cfgPath, Logger: slog.New(logs)})
	waitVerdict(t, e, "cfg-v1")

	t.Run("altered command hook", func(t *testing.T) {
		lua := ids(e, "10-stop.lua")
		writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v2"))
		waitVerdict(t, e, "cfg-v2")
		if got := ids(e, "10-stop.lua"); !slices.Equal(got, lua) {
			t.Errorf("Lua entries %v -> %v: a hook change in the config reloaded the Lua files", lua, got)
		}
	})

	t.Run("unrelated key", func(t *testing.T) {
		configured, lua := ids(e, ConfiguredOwner), ids(e, "10-stop.lua")
		reloads := e.Stats().Reloads
		writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v2")+"\n[tools.write]\nschema = '{\"type\":\"object\"}'\n")
		eventually(t, "the new config in force", func() bool { return e.Config().Tools["write"].Schema != nil })
		if got := ids(e, ConfiguredOwner); !slices.Equal(got, configured) {
			t.Errorf("configured entries %v -> %v: rebuilt for a change outside the hooks", configured, got)
		}
		if got := ids(e, "10-stop.lua"); !slices.Equal(got, lua) {
			t.Errorf("Lua entries %v -> %v: reloaded for a change outside the hooks", lua, got)
		}
		if got := e.Stats().Reloads - reloads; got != 1 {
			t.Errorf("%d reloads, want 1", got)
		}
		lines := logs.records(slog.LevelInfo, "luahook: reloaded")
		if last := lines[len(lines)-1]; !strings.Contains(last, "configured hooks unchanged") {
			t.Errorf("reload line %q does not say the hooks are unchanged", last)
		}
	})

	t.Run("deleted config keeps the last good one", func(t *testing.T) {
		if err := os.Remove(cfgPath); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the removal reported", func() bool { return len(e.Errors()) == 1 })
		if err := e.Errors()[0]; !strings.Contains(err.Error(), "was removed") {
			t.Errorf("error %q", err)
		}
		if got := verdict(e); got != "cfg-v2" {
			t.Errorf("verdict %q, want the last good config's hook", got)
		}
	})

	t.Run("recreated by rename", func(t *testing.T) {
		saveByRename(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v3"))
		waitVerdict(t, e, "cfg-v3")
		waitNoErr(t, e)
	})

	t.Run("broken config keeps the last good one", func(t *testing.T) {
		writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v4")+"\nhooks_dri = 1\n")
		eventually(t, "the error reported", func() bool { return len(e.Errors()) == 1 })
		if err := e.Errors()[0]; !strings.Contains(err.Error(), cfgPath+":") || !strings.Contains(err.Error(), "hooks_dri") {
			t.Errorf("error %q does not name the file, line and key", err)
		}
		if got := verdict(e); got != "cfg-v3" {
			t.Errorf("verdict %q, want the last good config's hook", got)
		}
	})

	t.Run("lua section reloads every file", func(t *testing.T) {
		lua := ids(e, "10-stop.lua")
		writeFile(t, cfgPath, fmt.Sprintf(cmdHook, "cfg-v3")+"\n[lua]\nallow_env = [\"HOME\"]\n")
		eventually(t, "the Lua file reloaded", func() bool { return !slices.Equal(ids(e, "10-stop.lua"), lua) })
		waitNoErr(t, e)
	})
}

func TestEveryReloadLogsExactlyOneInfoLine(t *testing.T) {
	dir := hooksDir(t, map[string]string{"10-ver.lua": denyFile("v0"), "20-x.lua": ""})
	logs := &logRecorder{}
	e := openEngine(t, Options{Dir: dir, Logger: slog.New(logs)})
	path := filepath.Join(dir, "10-ver.lua")
	for i := 1; i <= 5; i++ {
		saveByRename(t, path, denyFile(fmt.Sprintf("v%d", i)))
		waitVerdict(t, e, fmt.Sprintf("v%d", i))
	}
	writeFile(t, path, "error('x')")
	eventually(t, "the error", func() bool { return e.Err() != nil })
	os.Remove(filepath.Join(dir, "20-x.lua"))
	eventually(t, "the removal", func() bool { return e.Stats().Files == 1 })
	e.Close() // no reload from now on: the count and the lines can be compared

	lines := logs.records(slog.LevelInfo, "luahook: reloaded")
	if n := e.Stats().Reloads; len(lines) != n || n < 7 {
		t.Fatalf("%d reload lines for %d reloads (want one each, at least 7):\n%s", len(lines), n, strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		for _, key := range []string{"changed=", "hooks=", "took="} {
			if !strings.Contains(l, key) {
				t.Errorf("reload line %q lacks %s", l, key)
			}
		}
	}
	for _, want := range []string{"10-ver.lua (reloaded)", "10-ver.lua (failed)", "20-x.lua (removed)"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("no reload line says %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

func TestFileEmptiedOnPurposeIsAppliedOnceSettled(t *testing.T) {
	// An empty file is first taken for one being rewritten in place; once it
	// stays empty for the settle period it is what it is.
	root := t.TempDir()
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[[hooks.PreToolUse]]\nmatcher = \"bash\"\ncommand = \"sh -c 'echo from-config >&2; exit 2'\"\n")
	writeFile(t, filepath.Join(root, "hooks.d", "10-ver.lua"),
		`hook.register("PreToolUse", "bash", function() return hook.deny("from-lua") end, { stage = "validate" })`)
	e := openEngine(t, Options{ConfigPath: cfgPath})
	waitVerdict(t, e, "from-config")

	writeFile(t, cfgPath, "")
	waitVerdict(t, e, "from-lua")
	writeFile(t, filepath.Join(root, "hooks.d", "10-ver.lua"), "")
	waitVerdict(t, e, "allowed")
	waitNoErr(t, e)
	if st := e.Stats(); st.Files != 1 || st.Hooks != 0 {
		t.Errorf("stats %+v, want one empty file and no hook", st)
	}
}

func TestFreshlyEmptiedFileIsLeftForLater(t *testing.T) {
	// A rewrite in place truncates the file before it writes it: a reload
	// that reads it in between must not load the empty file (and drop its
	// hooks) but leave it for later, when the new content is there.
	const cfgText = "[[hooks.PreToolUse]]\nmatcher = \"bash\"\ncommand = \"sh -c 'echo %s >&2; exit 2'\"\n"
	const user = `local words = require("words")
hook.register("PreToolUse", "bash", function() return hook.deny(words.reason) end)`
	tests := []struct {
		name  string
		files map[string]string
		path  string // the file rewritten
		ch    change // what the watcher saw
		full  string
	}{
		{"config", map[string]string{"luahook.toml": fmt.Sprintf(cfgText, "v1")},
			"luahook.toml", change{config: true}, fmt.Sprintf(cfgText, "v2")},
		{"hook file", map[string]string{"hooks.d/10-ver.lua": denyFile("v1")},
			"hooks.d/10-ver.lua", change{lua: true}, denyFile("v2")},
		{"lib module", map[string]string{"hooks.d/lib/words.lua": `return { reason = "v1" }`, "hooks.d/10-user.lua": user},
			"hooks.d/lib/words.lua", change{libs: map[string]bool{"words": true}}, `return { reason = "v2" }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.files["luahook.toml"] += "" // every case has a config file, empty if nothing else
			for name, src := range tt.files {
				writeFile(t, filepath.Join(root, name), src)
			}
			e := openEngine(t, Options{ConfigPath: filepath.Join(root, "luahook.toml"), NoWatch: true})
			ctx := context.Background()
			waitVerdict(t, e, "v1")
			path := filepath.Join(root, tt.path)

			writeFile(t, path, "") // truncated, not written yet
			later, err := e.apply(ctx, tt.ch, true)
			if err != nil {
				t.Fatal(err)
			}
			if later.empty() {
				t.Errorf("nothing left for later")
			}
			if got := verdict(e); got != "v1" {
				t.Errorf("verdict %q with the file truncated, want v1 still", got)
			}

			writeFile(t, path, tt.full)
			if _, err := e.apply(ctx, later, true); err != nil {
				t.Fatal(err)
			}
			if got := verdict(e); got != "v2" {
				t.Errorf("verdict %q once written, want v2", got)
			}
		})
	}
}

// TestLibEditedDuringALoadIsFoundStale: the files of one load share the lib
// module as the first of them read it; an edit made while the load ran
// (here, just before its second file opens) is not lost: the files record
// the sum of what they ran, so the next Reload, with no watcher to report
// the edit, finds both stale and loads the new module into both.
func TestLibEditedDuringALoadIsFoundStale(t *testing.T) {
	user := func(tool string) string {
		return fmt.Sprintf(`local words = require("words")
hook.register("PreToolUse", %q, function() return hook.deny(words.reason) end)`, tool)
	}
	dir := hooksDir(t, map[string]string{
		"lib/words.lua": `return { reason = "v1" }`,
		"10-a.lua":      user("bash"),
		"20-b.lua":      user("edit"),
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	tool := func(name string) string {
		in := bashInput(os.TempDir())
		in.ToolName = name
		return describe(e.Runner().PreToolUse(context.Background(), in))
	}
	if a, b := tool("bash"), tool("edit"); a != "v1" || b != "v1" {
		t.Fatalf("verdicts %q, %q before the edit", a, b)
	}
	writeFile(t, filepath.Join(dir, "lib", "words.lua"), `return { reason = "v2" }`)
	second := filepath.Join(dir, "20-b.lua")
	// The lib changes once the pass has read it, before the second file's
	// hooks are swapped in.
	e.beforeCommit = func(path string) {
		if path == second {
			writeFile(t, filepath.Join(dir, "lib", "words.lua"), `return { reason = "v3" }`)
		}
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.beforeCommit = nil
	if a, b := tool("bash"), tool("edit"); a != "v2" || b != "v2" {
		t.Fatalf("after the load: verdicts %q, %q; want both files on the module the load read first", a, b)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a, b := tool("bash"), tool("edit"); a != "v3" || b != "v3" {
		t.Fatalf("after the next Reload: verdicts %q, %q; want both on the edit", a, b)
	}
}
