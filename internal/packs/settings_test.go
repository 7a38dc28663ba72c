package packs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/packs"
	"github.com/luahook/luahook/runner"
)

// TestEveryPackDeclaresItsSettingsForTheConfig: each pack's settings are
// one literal table given to hook.settings under the pack's own name, a
// record of named settings, each with a type the config is checked
// against (nil defaults aside, which take anything).
func TestEveryPackDeclaresItsSettingsForTheConfig(t *testing.T) {
	all, err := packs.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		decl, ok, err := packs.Declared(p.Name)
		if err != nil || !ok {
			t.Fatalf("%s: Declared: %v, %v", p.Name, ok, err)
		}
		if !decl.IsRecord() || len(decl.Keys) == 0 {
			t.Errorf("%s: the settings are not a record of named settings: %+v", p.Name, decl)
		}
		for _, k := range decl.Keys {
			v := decl.Fields[k]
			if v.Kind != packs.KindNil && v.Want() == "" {
				t.Errorf("%s: setting %s has no type", p.Name, k)
			}
			if v.Kind == packs.KindTable && len(v.List) > 0 && len(v.Keys) > 0 {
				t.Errorf("%s: setting %s mixes a list and named entries", p.Name, k)
			}
		}
	}
	if _, ok, _ := packs.Declared("nope"); ok {
		t.Error(`Declared("nope") found a pack`)
	}
}

// TestParseSettingsReadsTheLiteralsOfATable covers what a settings table
// may hold (comments, both quotes and escapes, long strings, hex and
// negative numbers, nested records, ["key"] maps), the older form (local
// SETTINGS = { ... }), and names the line of what is not a literal.
func TestParseSettingsReadsTheLiteralsOfATable(t *testing.T) {
	src := `-- x: y
local shell = require("shell")
local SETTINGS = hook.settings("x", {
  -- a comment, and --[[ a long one ]]
  --[==[ spanning
  lines ]==]
  s = "a\"b\\c\n\65", q = 'it''s' == nil and 1 or 'x',
}`
	if _, err := packs.ParseSettings([]byte(src)); err == nil || !strings.Contains(err.Error(), "line 7:") {
		t.Errorf("an expression: %v, want it refused at line 7", err)
	}
	src = `-- x: y
local SETTINGS = hook.settings("x", {
  -- a comment, and --[[ a long one ]]
  --[==[ spanning
  lines ]==]
  s = "a\"b\\c\n\65", q = 'it\'s', long = [[
one]],
  n = 500, f = 0.8, neg = -3, hex = 0x1F, e = 1e3,
  b = true, off = nil,
  list = { "a", "b"; "c", },
  empty = {},
  rec = { repeats = 3, inner = { deep = false } },
  map = { ["package-lock.json"] = "npm install", ["go.sum"] = "go mod tidy" },
})
local other = 1`
	d, err := packs.ParseSettings([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Pack != "x" || d.Table.Line != 2 {
		t.Errorf("pack %q at line %d, want x at line 2", d.Pack, d.Table.Line)
	}
	f := d.Table.Fields
	checks := []struct {
		what      string
		ok        bool
		want, got any
	}{
		{"s", f["s"].Str == "a\"b\\c\nA", "a\"b\\c\nA", f["s"].Str},
		{"q", f["q"].Str == "it's", "it's", f["q"].Str},
		{"long", f["long"].Str == "one" && f["long"].Line == 6, "one at line 6", f["long"]},
		{"n", f["n"].Num == 500 && f["n"].Int, "500, an integer", f["n"]},
		{"f", f["f"].Num == 0.8 && !f["f"].Int, "0.8", f["f"]},
		{"neg", f["neg"].Num == -3, -3, f["neg"].Num},
		{"hex", f["hex"].Num == 31, 31, f["hex"].Num},
		{"e", f["e"].Num == 1000 && !f["e"].Int, 1000.0, f["e"]},
		{"b", f["b"].Kind == packs.KindBool && f["b"].Bool, true, f["b"]},
		{"off", f["off"].Kind == packs.KindNil, "nil", f["off"]},
		{"list", f["list"].IsList() && len(f["list"].List) == 3 && f["list"].Want() == "an array of strings", "3 strings", f["list"]},
		{"empty", f["empty"].IsList() && f["empty"].Want() == "an array of strings", "an empty list of strings", f["empty"]},
		{"rec", f["rec"].IsRecord() && f["rec"].Fields["inner"].IsRecord() && f["rec"].Want() == "a table", "a record", f["rec"]},
		{"map", f["map"].IsMap() && f["map"].Want() == "a table of strings" && f["map"].Fields["go.sum"].Str == "go mod tidy", "a map of strings", f["map"]},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %+v, want %v", c.what, c.got, c.want)
		}
	}
	if got := strings.Join(d.Table.Keys, " "); got != "s q long n f neg hex e b off list empty rec map" {
		t.Errorf("keys in order: %s", got)
	}

	old, err := packs.ParseSettings([]byte("-- git: x\nlocal SETTINGS = {\n  discard = \"ask\",\n}\n"))
	if err != nil || old.Pack != "" || old.Table.Fields["discard"].Str != "ask" {
		t.Errorf("the older form: %+v, %v", old, err)
	}
	for _, bad := range []struct{ src, want string }{
		{"local x = 1\n", "no settings table"},
		{"local SETTINGS = {\n  a = f(),\n}\n", "line 2: f is not a literal"},
		{"local SETTINGS = {\n  a = 1,\n  a = 2,\n}\n", "line 3: a is set twice"},
		{"local SETTINGS = {\n  a = { 1, b = 2 },\n}\n", "line 2: a table holds either a list or named entries"},
		{"local SETTINGS = {\n  a = \"open\n}\n", "line 2: unfinished string"},
		{"local SETTINGS = {\n  a = 1\n", "line 3: the table of line 1 is not closed"},
		{"local SETTINGS = hook.settings(\"x\", {\n  a = 1,\n}, extra)\n", "line 3: hook.settings takes the pack's name and one literal table"},
		{"local SETTINGS = {\n  a = 1 b = 2,\n}\n", "line 2: want , or }"},
		{"local SETTINGS = " + strings.Repeat("{", 40) + strings.Repeat("}", 40) + "\n", "nest more than 16 deep"},
	} {
		if _, err := packs.ParseSettings([]byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.src, err, bad.want)
		}
	}
}

// gitEngine opens an engine on the git pack with the config text cfg
// (none when empty) and returns it and the config's path.
func gitEngine(t *testing.T, cfg string) (*engine.Engine, string) {
	t.Helper()
	dir := hooksFolder(t, "git.lua")
	opts := engine.Options{Dir: dir, NoWatch: true, NoSelfProtect: true}
	path := filepath.Join(t.TempDir(), "luahook.toml")
	if cfg != "" {
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		opts.ConfigPath = path
	}
	e, err := engine.Open(context.Background(), opts)
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, path
}

func gitCall(e *engine.Engine, command string) runner.Result {
	raw, _ := json.Marshal(map[string]string{"command": command})
	in := luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolCapabilities: []string{"shell"},
		ToolInput: raw, Cwd: "/home/dev/project", SessionID: "s"}
	return e.Runner().Fire(context.Background(), &in)
}

// TestConfiguredPackSettingsChangeWhatThePackDecides: [packs.git] in the
// config, not an edit of git.lua, changes the pack's decisions, both ways:
// a branch named in protected_branches becomes protected (a push
// --force-with-lease to it, allowed by default, is denied) and one left out
// is not (main: denied by default, allowed); discard = "ask" asks about git reset --hard,
// which the default denies.
func TestConfiguredPackSettingsChangeWhatThePackDecides(t *testing.T) {
	plain, _ := gitEngine(t, "")
	set, _ := gitEngine(t, "[packs.git]\nprotected_branches = [\"release\"]\ndiscard = \"ask\"\n")
	for _, c := range []struct {
		command          string
		byDefault, isSet string // "deny", "ask", "run"
	}{
		{"git push --force-with-lease origin release", "run", "deny"},
		{"git push --force-with-lease origin main", "deny", "run"},
		{"git reset --hard HEAD~3", "deny", "ask"},
	} {
		for _, e := range []struct {
			name string
			eng  *engine.Engine
			want string
		}{{"by default", plain, c.byDefault}, {"with [packs.git]", set, c.isSet}} {
			r := gitCall(e.eng, c.command)
			got := "run"
			if r.Denied() {
				got = "deny"
			} else if r.Asked() {
				got = "ask"
			}
			if got != e.want {
				t.Errorf("%s %s: %s (%q), want %s", c.command, e.name, got, r.Reason, e.want)
			}
		}
	}
}

// TestABadReloadKeepsThePreviousPackSettings: a config whose [packs.git]
// names an unknown key does not reload, and the settings in force stay;
// a good one puts its settings in force at once (the pack reloads).
func TestABadReloadKeepsThePreviousPackSettings(t *testing.T) {
	e, path := gitEngine(t, "[packs.git]\nprotected_branches = [\"release\"]\n")
	denied := func(what, command string, want bool) {
		t.Helper()
		if r := gitCall(e, command); r.Denied() != want {
			t.Errorf("%s: %s denied=%v (%q), want %v", what, command, r.Denied(), r.Reason, want)
		}
	}
	denied("at start", "git push --force-with-lease origin release", true)
	if err := os.WriteFile(path, []byte("[packs.git]\nprotected_branch = [\"main\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := e.Reload(context.Background())
	if err == nil || !strings.Contains(err.Error(), path+":2: packs.git.protected_branch: unknown key; did you mean protected_branches?") {
		t.Errorf("reload of a bad config: %v", err)
	}
	denied("after the bad reload", "git push --force-with-lease origin release", true)
	denied("after the bad reload", "git push --force-with-lease origin main", false)
	if err := os.WriteFile(path, []byte("[packs.git]\nprotected_branches = [\"main\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatalf("reload of a good config: %v", err)
	}
	denied("after the good reload", "git push --force-with-lease origin release", false)
	denied("after the good reload", "git push --force-with-lease origin main", true)
}

// TestHookSettingsMergesTheConfigOverTheDefaults: hook.settings returns
// the defaults with [packs.NAME] merged over them: a table of named
// entries entry by entry (loop keeps its window_ms), a list whole
// (usage_fields.tokens), a scalar replaced; another pack's table does not
// apply.
func TestHookSettingsMergesTheConfigOverTheDefaults(t *testing.T) {
	dir := t.TempDir()
	src := `local S = hook.settings("budget", {
  max_tool_calls = 500, warn_at = 0.8,
  loop = { repeats = 3, window_ms = 600000 },
  usage_fields = { tokens = { "a", "b" }, cost_usd = { "c" } },
})
local G = hook.settings("git", { discard = "deny" })
hook.register("PreToolUse", nil, function() return hook.deny(json.encode({ budget = S, git = G })) end)
`
	if err := os.WriteFile(filepath.Join(dir, "show.lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "luahook.toml")
	if err := os.WriteFile(cfg, []byte("[packs.budget]\nmax_tool_calls = 7\nloop = { repeats = 2 }\nusage_fields = { tokens = [\"x\"] }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), engine.Options{Dir: dir, ConfigPath: cfg, NoWatch: true, NoSelfProtect: true})
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := gitCall(e, "true")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.Reason), &got); err != nil {
		t.Fatalf("reason %q: %v", r.Reason, err)
	}
	want := map[string]any{
		"budget": map[string]any{"max_tool_calls": 7.0, "warn_at": 0.8,
			"loop":         map[string]any{"repeats": 2.0, "window_ms": 600000.0},
			"usage_fields": map[string]any{"tokens": []any{"x"}, "cost_usd": []any{"c"}}},
		"git": map[string]any{"discard": "deny"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v\nwant %v", got, want)
	}
}
