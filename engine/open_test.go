package engine

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/luabind"
)

func TestOpenLoadsTopLevelHookFilesInFileNameOrder(t *testing.T) {
	reg := func(name string) string {
		return `hook.register("Stop", nil, function() end, { name = "` + name + `" })` + "\n"
	}
	dir := hooksDir(t, map[string]string{
		"20-b.lua":        reg("b1") + reg("b2"),
		"10-a.lua":        reg("a"),
		"30-c.lua":        reg("c"),
		"30-c_test.lua":   reg("test-file"),
		"notes.txt":       reg("not-lua"),
		".#10-a.lua":      reg("emacs-lock"),
		"lib/helper.lua":  reg("lib-module"),
		"sub/nested.lua":  reg("nested"),
		"10-a.lua~":       reg("backup"),
		".10-a.lua.swp":   reg("swap"),
		"20-b.lua.orig":   reg("orig"),
		"00-empty.lua":    "-- registers nothing\n",
		"05-comment.lua":  "",
		"99-zz.lua.bak":   reg("bak"),
		"sub/deeper/x.lu": reg("x"),
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	if err := e.Err(); err != nil {
		t.Fatalf("Err = %v", err)
	}
	var names []string
	for _, en := range e.Registry().List(luahook.Stop) {
		names = append(names, en.Name)
	}
	if want := []string{"a", "b1", "b2", "c"}; !slices.Equal(names, want) {
		t.Errorf("Stop hooks %v, want %v (top-level *.lua but *_test.lua, in file-name order)", names, want)
	}
	if st := e.Stats(); st.Files != 5 || st.Hooks != 4 {
		t.Errorf("stats %+v, want 5 files (two register nothing), 4 hooks", st)
	}
}

func TestFileWithAnErrorIsRejectedWholeAndTheOthersLoad(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-good.lua": denyFile("good"),
		"20-bad.lua": `hook.register("Stop", nil, function() end)
hook.register("PreToolUse", "bash", function() return hook.deny("bad") end)
hook.register("Stop", nil, function() end, { retries = 3 })
`,
		"30-syntax.lua": "local x = \nhook.register(",
		"40-good.lua":   `hook.register("Stop", nil, function() end, { name = "later" })`,
	})
	e := openEngine(t, Options{Dir: dir, NoWatch: true})
	errs := e.Errors()
	if len(errs) != 2 {
		t.Fatalf("Errors = %v, want two", errs)
	}
	wantPos := []string{filepath.Join(dir, "20-bad.lua") + ":3:", filepath.Join(dir, "30-syntax.lua") + ":2:"}
	for i, err := range errs {
		var le *luabind.LoadError
		if !errors.As(err, &le) {
			t.Errorf("error %d %T is not a *luabind.LoadError", i, err)
		}
		if !strings.HasPrefix(err.Error(), wantPos[i]) {
			t.Errorf("error %d %q does not start with %q", i, err, wantPos[i])
		}
	}
	if got := verdict(e); got != "good" {
		t.Errorf("verdict %q: the bad file's hooks must not be registered", got)
	}
	if n := e.Registry().CountByOwner("20-bad.lua"); n != 0 {
		t.Errorf("the rejected file has %d hooks registered", n)
	}
	if n := e.Registry().CountByOwner("40-good.lua"); n != 1 {
		t.Errorf("the file after the broken ones has %d hooks, want 1", n)
	}
	if st := e.Stats(); st.Errors != 2 || st.Files != 2 {
		t.Errorf("stats %+v, want 2 files and 2 errors", st)
	}
}

func TestConfiguredCommandHookDeniesWithExitTwo(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, `
[[hooks.PreToolUse]]
name = "sh-guard"
matcher = "bash"
command = "sh -c 'cat >/dev/null; echo denied by sh >&2; exit 2'"
`)
	e := openEngine(t, Options{ConfigPath: cfg, NoWatch: true})
	if e.Dir() != filepath.Join(root, "hooks.d") {
		t.Errorf("Dir = %q, want the config's default hooks_dir next to it", e.Dir())
	}
	res := e.Runner().PreToolUse(context.Background(), bashInput(root))
	if !res.Denied() || res.Reason != "denied by sh" {
		t.Fatalf("result %+v, want denied by the sh hook", res)
	}
	if k := res.Trace[0].Kind; k != luahook.KindCommand {
		t.Errorf("trace kind %q, want command", k)
	}
}

func TestOpenFailsOnAConfigThatDoesNotLoad(t *testing.T) {
	root := t.TempDir()
	tests := []struct{ name, path, content, want string }{
		{"missing", filepath.Join(root, "absent.toml"), "", "absent.toml"},
		{"unknown key", filepath.Join(root, "bad.toml"), "hooks_dri = \"x\"\n", "bad.toml:1"},
		{"command not allowed", filepath.Join(root, "cmd.toml"), "[[hooks.Stop]]\ncommand = \"nc -l 80\"\n", "cmd.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content != "" {
				writeFile(t, tt.path, tt.content)
			}
			e, err := Open(context.Background(), Options{ConfigPath: tt.path, NoWatch: true})
			if err == nil {
				e.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
		})
	}
}

func TestMissingHooksFolderIsNoError(t *testing.T) {
	e := openEngine(t, Options{Dir: filepath.Join(t.TempDir(), "nope"), NoWatch: true})
	if err := e.Err(); err != nil || e.Stats().Hooks != 0 {
		t.Errorf("Err %v, stats %+v; want no error and no hook", err, e.Stats())
	}
}

func TestPolicyOnlyGating(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-policy.lua": `hook.register("UserPromptSubmit", nil, function() return hook.context("policy") end, { policy = true })`,
		"20-other.lua":  `hook.register("UserPromptSubmit", nil, function() return hook.context("other") end)`,
	})
	root := t.TempDir()
	strict := filepath.Join(root, "strict.toml")
	writeFile(t, strict, "hooks_dir = \"x\"\n[runner]\nallow_non_policy = false\n")
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"zero value runs every hook", Options{}, "policy\nother"},
		{"PolicyOnly", Options{PolicyOnly: true}, "policy"},
		{"config allow_non_policy = false", Options{ConfigPath: strict}, "policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Dir, tt.opts.NoWatch = dir, true
			e := openEngine(t, tt.opts)
			res := e.Runner().UserPromptSubmit(context.Background(), &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "hi"})
			if res.AdditionalContext != tt.want {
				t.Errorf("context %q, want %q", res.AdditionalContext, tt.want)
			}
		})
	}
}

func TestGoSchemasAddToAndOverrideTheConfigs(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "luahook.toml")
	writeFile(t, cfg, `
[tools.bash]
schema = '{"type":"object","required":["command"]}'
[tools.write]
schema = '{"type":"object","required":["path"]}'
`)
	dir := hooksDir(t, map[string]string{
		"10-rewrite.lua": `hook.register("PreToolUse", "bash|write", function(input)
  return hook.mutate({ other = "x" })
end)`,
	})
	e := openEngine(t, Options{Dir: dir, ConfigPath: cfg, NoWatch: true,
		Schemas: map[string]json.RawMessage{"bash": json.RawMessage(`{"type":"object","required":["cmd"]}`)}})
	for tool, want := range map[string]string{"bash": "cmd", "write": "path"} {
		res := e.Runner().PreToolUse(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: tool,
			ToolInput: json.RawMessage(`{}`), Cwd: root})
		if !res.Denied() || !strings.Contains(res.Reason, want) {
			t.Errorf("%s: result %+v, want a schema denial naming %q", tool, res, want)
		}
	}
}

func TestSessionIDSourceKeysPayloadsWithoutOne(t *testing.T) {
	e := openEngine(t, Options{Dir: t.TempDir(), NoWatch: true, SessionID: func() string { return "host-session" }})
	release := make(chan struct{})
	_, err := e.Registry().Register(luahook.Spec{Event: luahook.PostToolUse, Background: true,
		Hook: luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
			<-release // after the PostToolUse call returned: the context waits for the next call
			return luahook.Context("from the background"), nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e.Runner().PostToolUse(ctx, &luahook.Input{Event: luahook.PostToolUse, ToolName: "bash",
		ToolInput: json.RawMessage(`{}`), ToolResult: &luahook.ToolResult{Content: "ok"}})
	close(release)
	eventually(t, "background context buffered", func() bool { return e.Runner().Has(luahook.UserPromptSubmit) })
	res := e.Runner().UserPromptSubmit(ctx, &luahook.Input{Event: luahook.UserPromptSubmit, Prompt: "next", SessionID: "host-session"})
	if res.AdditionalContext != "from the background" {
		t.Errorf("context %q, want the background context of the host's session", res.AdditionalContext)
	}
}

// With PartialConfig a config with problems does not stop Open: every valid
// setting and configured hook is in force, each problem is in Errors with
// its file and line, and the Lua files load. Without it Open fails.
func TestPartialConfigOpensWithWhatIsValid(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"10-guard.lua": `hook.register("Stop", nil, function() end, { name = "lua-guard" })`,
		"luahook.toml": `hooks_dir = "."

[runner]
allow_non_policy = "yes"

[[hooks.PreToolUse]]
name = "good"
command = "sh -c 'exit 0'"

[[hooks.PreToolUse]]
name = "not-allowed"
command = "./guard.sh arg"

[[hooks.Stop]]
name = "bad-key"
command = "true"
bogus = 1
`,
	})
	cfgPath := filepath.Join(dir, "luahook.toml")
	if _, err := Open(context.Background(), Options{ConfigPath: cfgPath, NoWatch: true}); err == nil {
		t.Fatal("Open without PartialConfig accepted a broken config")
	}
	e := openEngine(t, Options{ConfigPath: cfgPath, NoWatch: true, PartialConfig: true})
	var names []string
	for _, ev := range []luahook.Event{luahook.PreToolUse, luahook.Stop} {
		for _, en := range e.Registry().List(ev) {
			names = append(names, en.Name)
		}
	}
	if want := []string{"good", "lua-guard"}; !slices.Equal(names, want) {
		t.Errorf("hooks %v, want %v", names, want)
	}
	msg := e.Err().Error()
	for _, want := range []string{
		cfgPath + ":4: runner.allow_non_policy: must be a boolean",
		cfgPath + ":17: hooks.Stop[0].bogus: unknown key",
		cfgPath + ":10: hooks.PreToolUse: ",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("Errors:\n%s\nwant %q", msg, want)
		}
	}
	if got := e.Stats().Errors; got != 1 {
		t.Errorf("Stats.Errors = %d, want the config counted once", got)
	}
}
