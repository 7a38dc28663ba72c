package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
)

// These tests run a real engine (real files, real Lua, fsnotify where the
// watcher is on) under Options.Trust: a test Trust that trusts the contents
// it was given, by name, as a trust record does.

// sumTrust trusts a file whose content is one it was given for its name.
type sumTrust struct {
	mu    sync.Mutex
	sums  map[string][][32]byte
	asked []string
	// onCheck, when set, runs in Check before the answer, with t.mu not
	// held (it may change the files on disk).
	onCheck func(name string, sum [32]byte)
	// files are TrustFiles: the engine watches them.
	files []string
}

func newSumTrust() *sumTrust { return &sumTrust{sums: map[string][][32]byte{}} }

// trust trusts content for the file name (relative to the project folder).
func (t *sumTrust) trust(name, content string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sums[name] = append(t.sums[name], sha256.Sum256([]byte(content)))
}

func (t *sumTrust) Check(name string, sum [32]byte) error {
	t.mu.Lock()
	on := t.onCheck
	t.mu.Unlock()
	if on != nil {
		on(name, sum)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asked = append(t.asked, name)
	for _, s := range t.sums[name] {
		if s == sum {
			return nil
		}
	}
	return &notTrustedError{name: name}
}

// watchedTrust is a sumTrust whose decisions the engine watches in files.
type watchedTrust struct{ *sumTrust }

func (t watchedTrust) TrustFiles() []string { return t.files }

// notTrustedError is what sumTrust refuses with: a whole reason.
type notTrustedError struct{ name string }

func (e *notTrustedError) Error() string {
	return "./" + e.name + " is not trusted: review it, then trust it"
}
func (*notTrustedError) WholeReason() {}

// trustedProject writes files (relative to a fresh project folder) and
// trusts each of them as written; it returns the folder.
func trustedProject(t *testing.T, tr *sumTrust, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), content)
		tr.trust(name, content)
	}
	return root
}

// untrustedErr returns the *UntrustedFileError of Errors naming name, or nil.
func untrustedErr(e *Engine, name string) *UntrustedFileError {
	for _, err := range e.Errors() {
		var ue *UntrustedFileError
		if errors.As(err, &ue) && ue.Name == name {
			return ue
		}
	}
	return nil
}

// decide fires a bash PreToolUse through Decide and describes the result.
func decide(t *testing.T, e *Engine) string {
	t.Helper()
	res, err := e.Decide(context.Background(), bashInput(os.TempDir()))
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	return describe(res)
}

func TestAnUntrustedEditKeepsTheTrustedVersionUntilItIsTrusted(t *testing.T) {
	tr := newSumTrust()
	root := trustedProject(t, tr, map[string]string{"hooks.d/10-ver.lua": denyFile("v1")})
	logs := &logRecorder{}
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), Trust: tr, Logger: slog.New(logs)})
	waitVerdict(t, e, "v1")

	// An edit nobody trusted: not loaded, the trusted version decides.
	path := filepath.Join(root, "hooks.d", "10-ver.lua")
	writeFile(t, path, denyFile("allow everything"))
	eventually(t, "Errors names the file awaiting trust", func() bool { return untrustedErr(e, "hooks.d/10-ver.lua") != nil })
	if got := verdict(e); got != "v1" {
		t.Fatalf("verdict after an untrusted edit %q, want the trusted v1", got)
	}
	if got := decide(t, e); got != "v1" {
		t.Errorf("Decide after an untrusted edit %q, want v1: the trusted version is in force, nothing fails closed", got)
	}
	if fc := e.FailClosed(); len(fc) != 0 {
		t.Errorf("FailClosed = %v, want none: a trusted version is in force", fc)
	}
	if err := untrustedErr(e, "hooks.d/10-ver.lua"); err.Path != path || !strings.Contains(err.Error(), "review it, then trust it") {
		t.Errorf("error %q (path %s), want the Trust's reason for %s", err, err.Path, path)
	}
	if recs := logs.records(slog.LevelError, "hook file not trusted; the previous version stays live"); len(recs) != 1 ||
		!strings.Contains(recs[0], "file="+path) {
		t.Errorf("log records %q, want one naming %s", recs, path)
	}

	// Trusted now: the next reload loads it.
	tr.trust("hooks.d/10-ver.lua", denyFile("allow everything"))
	if err := e.Reload(context.Background()); err != nil {
		t.Fatalf("Reload after trusting: %v", err)
	}
	if got := verdict(e); got != "allow everything" {
		t.Errorf("verdict after trusting the edit %q", got)
	}
}

func TestANewUntrustedFileDeniesWhatCanBlockNamingIt(t *testing.T) {
	tr := newSumTrust()
	root := trustedProject(t, tr, map[string]string{"hooks.d/10-ver.lua": denyFile("v1")})
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), Trust: tr})
	waitVerdict(t, e, "v1")

	writeFile(t, filepath.Join(root, "hooks.d", "20-new.lua"),
		`hook.register("PreToolUse", "bash", function() return hook.allow() end, { name = "new" })`)
	eventually(t, "the new file fails closed", func() bool { return len(e.FailClosed()) == 1 })
	var ue *UntrustedFileError
	if err := e.FailClosed()[0]; !errors.As(err, &ue) || ue.Name != "hooks.d/20-new.lua" {
		t.Errorf("FailClosed = %v, want the new file's refusal", err)
	}
	got := decide(t, e)
	if !strings.Contains(got, "v1") || !strings.Contains(got, "./hooks.d/20-new.lua is not trusted: review it, then trust it") ||
		strings.Contains(got, "broken") {
		t.Errorf("Decide with a new untrusted file = %q, want a denial quoting the reason whole", got)
	}
	// An event that cannot block is not denied.
	res, err := e.Decide(context.Background(), &luahook.Input{Event: luahook.SessionStart, SessionID: "s", Cwd: os.TempDir()})
	if err != nil || res.Denied() {
		t.Errorf("SessionStart with a new untrusted file: %v, %v", describe(res), err)
	}
}

// A project never trusted: no file has a trusted version, and every event
// that can block is denied.
func TestNothingTrustedDeniesWhatCanBlock(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "hooks.d", "10-allow.lua"),
		`hook.register("PreToolUse", "bash", function() return hook.allow() end)`)
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), Trust: newSumTrust(), NoWatch: true})
	if e.Registry().Len() != 0 {
		t.Fatalf("%d hooks registered from an untrusted folder", e.Registry().Len())
	}
	if got := decide(t, e); !strings.Contains(got, "luahook denied the action because not every policy loaded: ./hooks.d/10-allow.lua is not trusted") {
		t.Errorf("Decide = %q", got)
	}
}

func TestAnUntrustedConfigEditDoesNotRunItsCommandHook(t *testing.T) {
	tr := newSumTrust()
	const trusted = "[runner]\non_load_error = \"deny\"\n"
	root := trustedProject(t, tr, map[string]string{
		"luahook.toml":       trusted,
		"hooks.d/10-ver.lua": denyFile("v1"),
	})
	cfgPath := filepath.Join(root, "luahook.toml")
	marker := filepath.Join(root, "pwned")
	e := openEngine(t, Options{ConfigPath: cfgPath, Trust: tr})
	waitVerdict(t, e, "v1")

	edited := trusted + "\n[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n"
	saveByRename(t, cfgPath, edited)
	eventually(t, "Errors names the config awaiting trust", func() bool { return untrustedErr(e, "luahook.toml") != nil })
	if got := decide(t, e); got != "v1" {
		t.Errorf("Decide after an untrusted config edit %q, want v1", got)
	}
	other := &luahook.Input{Event: luahook.PreToolUse, ToolName: "other", ToolInput: []byte(`{}`), Cwd: root, SessionID: "s"}
	if res, err := e.Decide(context.Background(), other); err != nil || res.Denied() {
		t.Fatalf("Decide: %s, %v", describe(res), err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted config's command hook ran")
	}
	if e.Registry().CountByOwner(ConfiguredOwner) != 0 {
		t.Fatalf("configured hooks registered from an untrusted config")
	}

	// Trusted, it loads on the next reload, and its hook runs: the marker
	// test above would have seen it.
	tr.trust("luahook.toml", edited)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if res, err := e.Decide(context.Background(), other); err != nil || res.Denied() {
		t.Fatalf("Decide: %s, %v", describe(res), err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the trusted config's command hook did not run: %v", err)
	}
}

// A config that is not trusted at Open: an error without PartialConfig;
// with it, the defaults (nothing of the file) and a fail-closed problem.
func TestAnUntrustedConfigAtOpen(t *testing.T) {
	tr := newSumTrust()
	root := trustedProject(t, tr, map[string]string{"hooks.d/10-ver.lua": denyFile("v1")})
	cfgPath := filepath.Join(root, "luahook.toml")
	writeFile(t, cfgPath, "[runner]\non_load_error = \"skip\"\n\n[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n")
	_, err := Open(context.Background(), Options{ConfigPath: cfgPath, Trust: tr, NoWatch: true})
	var ue *UntrustedFileError
	if !errors.As(err, &ue) || ue.Name != "luahook.toml" {
		t.Fatalf("Open with an untrusted config = %v, want an *UntrustedFileError naming luahook.toml", err)
	}
	e := openEngine(t, Options{ConfigPath: cfgPath, Trust: tr, NoWatch: true, PartialConfig: true})
	if e.OnLoadError("") != OnLoadErrorDeny || e.Registry().CountByOwner(ConfiguredOwner) != 0 {
		t.Errorf("on_load_error %s, %d configured hooks: the untrusted config was read", e.OnLoadError(""), e.Registry().CountByOwner(ConfiguredOwner))
	}
	if e.Dir() != filepath.Join(root, "hooks.d") {
		t.Errorf("hooks folder %s, want the default next to the config", e.Dir())
	}
	got := decide(t, e)
	if !strings.Contains(got, "./luahook.toml is not trusted") {
		t.Errorf("Decide = %q, want a denial naming the config", got)
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Fatal("the untrusted config's command hook ran")
	}
}

// A lib module edited and not trusted is not used when a hook first
// requires it during a call, nor when a file that requires it at load
// reloads.
func TestAnUntrustedLibModuleIsNotUsed(t *testing.T) {
	tr := newSumTrust()
	lazy := `hook.register("PreToolUse", "bash", function()
  return hook.deny(require("lazy").reason)
end, { name = "lazy" })
`
	eager := `local m = require("eager")
hook.register("PreToolUse", "*", function(input)
  if input.toolName == "eager" then return hook.deny(m.reason) end
end, { name = "eager" })
`
	root := trustedProject(t, tr, map[string]string{
		"hooks.d/10-lazy.lua":   lazy,
		"hooks.d/20-eager.lua":  eager,
		"hooks.d/lib/lazy.lua":  `return { reason = "trusted lazy" }`,
		"hooks.d/lib/eager.lua": `return { reason = "trusted eager" }`,
	})
	dir := filepath.Join(root, "hooks.d")
	e := openEngine(t, Options{Dir: dir, Trust: tr})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	eagerVerdict := func() string {
		return describe(e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "eager",
			ToolInput: []byte(`{}`), Cwd: os.TempDir(), SessionID: "s"}))
	}
	if got := eagerVerdict(); got != "trusted eager" {
		t.Fatalf("eager verdict %q", got)
	}

	// Edited before any call required it: the call fails on the refusal,
	// never runs the edit.
	writeFile(t, filepath.Join(dir, "lib", "lazy.lua"), `return { reason = "untrusted lazy" }`)
	writeFile(t, filepath.Join(dir, "lib", "eager.lua"), `return { reason = "untrusted eager" }`)
	eventually(t, "the eager file's reload fails on its module", func() bool { return len(e.Errors()) == 1 })
	got := verdict(e)
	if !strings.HasPrefix(got, "failure: ") || !strings.Contains(got, "./hooks.d/lib/lazy.lua is not trusted") {
		t.Errorf("verdict with an untrusted lazy module %q, want the hook to fail naming it", got)
	}
	if got := eagerVerdict(); got != "trusted eager" {
		t.Errorf("eager verdict after an untrusted edit of its module %q, want the trusted version", got)
	}
	err := e.Errors()[0]
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "./hooks.d/lib/eager.lua is not trusted") {
		t.Errorf("error %v, want the eager file's load error naming its module", err)
	}
	if r := FailClosedReason([]error{err}); !strings.Contains(r, "policy file 20-eager.lua did not load: ./hooks.d/lib/eager.lua is not trusted: review it") {
		t.Errorf("FailClosedReason = %q", r)
	}

	// Trusted: a call requires the lazy module afresh; a reload brings the
	// eager one in.
	tr.trust("hooks.d/lib/lazy.lua", `return { reason = "untrusted lazy" }`)
	tr.trust("hooks.d/lib/eager.lua", `return { reason = "untrusted eager" }`)
	if got := verdict(e); got != "untrusted lazy" {
		t.Errorf("verdict once the lazy module is trusted %q", got)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := eagerVerdict(); got != "untrusted eager" {
		t.Errorf("eager verdict once its module is trusted %q", got)
	}
}

// The check is on the bytes loaded: a file swapped on disk between the
// hash and the compile (by the Trust's own callback) never runs; what was
// checked does.
func TestWhatRunsIsWhatWasChecked(t *testing.T) {
	tr := newSumTrust()
	hook := `local m = require("m")
hook.register("PreToolUse", "bash", function() return hook.deny(m.reason .. " / checked file") end, { name = "ver" })
`
	root := trustedProject(t, tr, map[string]string{
		"luahook.toml":       "[runner]\non_load_error = \"deny\"\n",
		"hooks.d/10-ver.lua": hook,
		"hooks.d/lib/m.lua":  `return { reason = "checked lib" }`,
	})
	swapped := map[string]string{
		"luahook.toml":       "[[hooks.PreToolUse]]\nname = \"pwn\"\ncommand = \"sh -c 'touch pwned'\"\n",
		"hooks.d/10-ver.lua": `hook.register("PreToolUse", "bash", function() return hook.deny("swapped file") end, { name = "ver" })`,
		"hooks.d/lib/m.lua":  `return { reason = "swapped lib" }`,
	}
	var swaps sync.Map
	tr.onCheck = func(name string, sum [32]byte) {
		if content, ok := swapped[name]; ok {
			if _, done := swaps.LoadOrStore(name, true); !done {
				// Between the hash and the compile: the bytes on disk change.
				if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
	}
	cache, err := luabind.OpenDiskCache(filepath.Join(t.TempDir(), "chunks"))
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, Options{ConfigPath: filepath.Join(root, "luahook.toml"), Trust: tr, NoWatch: true, ChunkCache: cache})
	for name := range swapped {
		if _, ok := swaps.Load(name); !ok {
			t.Errorf("%s was never checked", name)
		}
	}
	if got := verdict(e); got != "checked lib / checked file" {
		t.Errorf("verdict %q, want the checked content's", got)
	}
	if e.Registry().CountByOwner(ConfiguredOwner) != 0 {
		t.Error("the swapped config's hook was registered")
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the swapped config's command hook ran")
	}
	// On disk now: the swapped content, which is refused at the next
	// reload while the checked version stays in force.
	e.Reload(context.Background())
	if got := verdict(e); got != "checked lib / checked file" {
		t.Errorf("verdict after a reload %q, want the checked content's", got)
	}
	for _, name := range []string{"luahook.toml", "hooks.d/10-ver.lua"} {
		if untrustedErr(e, name) == nil {
			t.Errorf("Errors %v, want %s awaiting trust", e.Errors(), name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the swapped config's command hook ran")
	}
}

// An untrusted file whose compiled chunk sits in the disk cache (compiled
// by an engine that trusted everything) is refused all the same: the check
// comes before any cache lookup.
func TestTheChunkCacheLetsNoUntrustedFileIn(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	writeFile(t, filepath.Join(dir, "10-ver.lua"), `local m = require("m")
hook.register("PreToolUse", "bash", function() return hook.deny(m.reason) end, { name = "ver" })`)
	writeFile(t, filepath.Join(dir, "lib", "m.lua"), `return { reason = "cached" }`)
	cache, err := luabind.OpenDiskCache(filepath.Join(t.TempDir(), "chunks"))
	if err != nil {
		t.Fatal(err)
	}
	warm := openEngine(t, Options{Dir: dir, NoWatch: true, ChunkCache: cache})
	if got := verdict(warm); got != "cached" {
		t.Fatalf("warm-up verdict %q", got)
	}
	warm.Close()
	tr := newSumTrust()
	e := openEngine(t, Options{Dir: dir, NoWatch: true, ChunkCache: cache, Trust: tr})
	if e.Registry().Len() != 0 || untrustedErr(e, "hooks.d/10-ver.lua") == nil {
		t.Fatalf("untrusted file loaded from the cache: %d hooks, errors %v", e.Registry().Len(), e.Errors())
	}
	// The file trusted, its module not: the module is refused too.
	tr.trust("hooks.d/10-ver.lua", `local m = require("m")
hook.register("PreToolUse", "bash", function() return hook.deny(m.reason) end, { name = "ver" })`)
	e.Reload(context.Background())
	if err := e.Err(); err == nil || !strings.Contains(err.Error(), "./hooks.d/lib/m.lua is not trusted") {
		t.Errorf("errors %v, want the module refused", err)
	}
}

// Under Trust, hook files, lib modules and the config load only as
// regular files: a link is refused even to a file inside the folder, whose
// content is trusted under the link's name. Without Trust such a link
// loads, as it always did.
func TestLinksAreRefusedUnderTrust(t *testing.T) {
	tr := newSumTrust()
	hook := `hook.register("PreToolUse", "bash", function() return hook.deny(require("m").reason) end, { name = "ver" })`
	root := trustedProject(t, tr, map[string]string{
		"hooks.d/variants/ver.lua":   hook,
		"hooks.d/lib/variants/m.lua": `return { reason = "linked lib" }`,
		"variants/luahook.toml":      "[runner]\non_load_error = \"skip\"\n",
		"hooks.d/20-plain.lua":       `hook.register("PreToolUse", "bash", function() return hook.deny(require("m").reason) end, { name = "plain" })`,
	})
	dir := filepath.Join(root, "hooks.d")
	for link, target := range map[string]string{
		"hooks.d/10-ver.lua": "variants/ver.lua",
		"hooks.d/lib/m.lua":  "variants/m.lua",
		"luahook.toml":       "variants/luahook.toml",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	tr.trust("hooks.d/10-ver.lua", hook)
	tr.trust("hooks.d/lib/m.lua", `return { reason = "linked lib" }`)
	tr.trust("luahook.toml", "[runner]\non_load_error = \"skip\"\n")

	plain := openEngine(t, Options{Dir: dir, NoWatch: true})
	if err := plain.Err(); err != nil || plain.Registry().Len() != 2 || verdict(plain) != "linked lib" {
		t.Fatalf("without Trust: errors %v, %d hooks, verdict %q; links inside the folder load", err, plain.Registry().Len(), verdict(plain))
	}

	e := openEngine(t, Options{Dir: dir, NoWatch: true, Trust: tr})
	var le *LinkError
	if err := e.Errors(); len(err) != 1 || !errors.As(err[0], &le) || le.Path != filepath.Join(dir, "10-ver.lua") ||
		!strings.Contains(err[0].Error(), "10-ver.lua: refused: a symbolic link") {
		t.Errorf("errors %v, want the linked hook file refused", err)
	}
	if got := verdict(e); !strings.HasPrefix(got, "failure: ") || !strings.Contains(got, "lib/m.lua: refused: a symbolic link") {
		t.Errorf("verdict %q, want the plain file's hook to fail on the linked module", got)
	}
	if fc := e.FailClosed(); len(fc) != 1 || !errors.As(fc[0], &le) {
		t.Errorf("FailClosed %v, want the linked hook file", fc)
	}

	cfg := filepath.Join(root, "luahook.toml")
	if _, err := Open(context.Background(), Options{ConfigPath: cfg, Trust: tr, NoWatch: true}); !errors.As(err, &le) {
		t.Errorf("Open with a linked config = %v, want a *LinkError", err)
	}
	pe := openEngine(t, Options{ConfigPath: cfg, Trust: tr, NoWatch: true, PartialConfig: true})
	if pe.OnLoadError("") != OnLoadErrorDeny || len(pe.FailClosed()) == 0 || !errors.As(pe.FailClosed()[0], &le) {
		t.Errorf("partial Open with a linked config: on_load_error %s, FailClosed %v", pe.OnLoadError(""), pe.FailClosed())
	}
}

// A Trust that reads its decisions from files (TrustWatcher) is followed:
// a change to one of them loads what awaited trust, with no change to the
// hooks folder.
func TestTheWatcherFollowsTheTrustFiles(t *testing.T) {
	tr := newSumTrust()
	root := trustedProject(t, tr, map[string]string{"hooks.d/10-ver.lua": denyFile("v1")})
	record := filepath.Join(t.TempDir(), "record.json")
	writeFile(t, record, "1")
	tr.files = []string{record}
	e := openEngine(t, Options{Dir: filepath.Join(root, "hooks.d"), Trust: watchedTrust{tr}})
	waitVerdict(t, e, "v1")
	writeFile(t, filepath.Join(root, "hooks.d", "10-ver.lua"), denyFile("v2"))
	eventually(t, "the edit awaits trust", func() bool { return untrustedErr(e, "hooks.d/10-ver.lua") != nil })
	tr.trust("hooks.d/10-ver.lua", denyFile("v2"))
	saveByRename(t, record, "2")
	waitVerdict(t, e, "v2")
	waitNoErr(t, e)
}

// Names are relative to the config's folder, else to the folder above the
// hooks folder; a file outside it is named by its absolute path.
func TestTrustNames(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct{ config, dir, path, want string }{
		{"", filepath.Join(root, "hooks.d"), filepath.Join(root, "hooks.d", "10-x.lua"), "hooks.d/10-x.lua"},
		{filepath.Join(root, "luahook.toml"), filepath.Join(root, "policies"), filepath.Join(root, "policies", "lib", "a", "b.lua"), "policies/lib/a/b.lua"},
		{filepath.Join(root, "luahook.toml"), "", filepath.Join(root, "luahook.toml"), "luahook.toml"},
		{filepath.Join(root, "p", "luahook.toml"), filepath.Join(root, "shared"), filepath.Join(root, "shared", "x.lua"), filepath.ToSlash(filepath.Join(root, "shared", "x.lua"))},
	} {
		if got := trustName(trustBase(c.config, c.dir), c.path); got != c.want {
			t.Errorf("trustName(%q, %q, %q) = %q, want %q", c.config, c.dir, c.path, got, c.want)
		}
	}
	// ReadContent's Sums use the same names.
	writeFile(t, filepath.Join(root, "luahook.toml"), "hooks_dir = \"policies\"\n")
	writeFile(t, filepath.Join(root, "policies", "10-x.lua"), "-- x\n")
	writeFile(t, filepath.Join(root, "policies", "lib", "a", "b.lua"), "-- b\n")
	if err := os.Symlink("10-x.lua", filepath.Join(root, "policies", "20-link.lua")); err != nil {
		t.Fatal(err)
	}
	c, err := ReadContent(filepath.Join(root, "luahook.toml"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"luahook.toml": "hooks_dir = \"policies\"\n", "policies/10-x.lua": "-- x\n", "policies/lib/a/b.lua": "-- b\n"}
	if len(c.Sums) != len(want) {
		t.Errorf("Sums %v, want %d entries (no link)", c.Sums, len(want))
	}
	for name, content := range want {
		if c.Sums[name] != sha256.Sum256([]byte(content)) {
			t.Errorf("Sums[%s] is not the content's", name)
		}
	}
}
