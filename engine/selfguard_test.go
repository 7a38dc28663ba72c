package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// guarded is a project on disk (hooks folder with a lib module, config),
// a home with trust records and agent settings, and an engine opened on
// the project with what the CLI protects.
type guarded struct {
	root, proj, home, hooks, config, trust string
	protect                                []Protected
}

// allowAll answers every PreToolUse call with an explicit allow: the
// self-protection's denial must stand over it.
const allowAll = `
hook.register("PreToolUse", "*", function(input)
  return hook.allow()
end, { name = "allow-all", stage = "validate", policy = true })
`

func newGuarded(t testing.TB, config string) *guarded {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &guarded{root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	g.hooks = filepath.Join(g.proj, "hooks.d")
	g.config = filepath.Join(g.proj, "luahook.toml")
	g.trust = filepath.Join(g.home, ".config", "luahook", "trust")
	writeFile(t, filepath.Join(g.hooks, "10-allow.lua"), allowAll)
	writeFile(t, filepath.Join(g.hooks, "lib", "m.lua"), "return {}\n")
	writeFile(t, g.config, config)
	writeFile(t, filepath.Join(g.trust, "rec.json"), "{}")
	writeFile(t, filepath.Join(g.home, ".claude", "settings.json"), "{}")
	writeFile(t, filepath.Join(g.proj, ".claude", "settings.json"), "{}")
	writeFile(t, filepath.Join(g.proj, "src", "main.go"), "package main\n")
	if err := os.Symlink(g.hooks, filepath.Join(g.proj, "policies")); err != nil {
		t.Fatal(err)
	}
	g.protect = []Protected{
		{Path: g.trust, What: "luahook's trust records"},
		{Path: filepath.Join(g.home, ".claude", "settings.json"), What: "the claude settings luahook's hooks are installed in"},
		{Path: ".claude/settings.json", What: "the claude settings luahook's hooks are installed in"},
		{Path: ".claude/settings.local.json", What: "Claude Code's local settings"},
		{Path: ".gemini/settings.json", What: "the gemini settings luahook's hooks are installed in"},
		{Path: ".cursor/hooks.json", What: "the cursor settings luahook's hooks are installed in"},
		{Path: ".codex/hooks.json", What: "the codex settings luahook's hooks are installed in"},
	}
	t.Setenv("HOME", g.home)
	return g
}

func (g *guarded) open(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.Dir, opts.ConfigPath, opts.NoWatch = g.hooks, g.config, true
	if opts.Protect == nil {
		opts.Protect = g.protect
	}
	return openEngine(t, opts)
}

func shellCall(cmd, cwd string) *luahook.Input {
	ti, _ := json.Marshal(map[string]string{"command": cmd})
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: ti, Cwd: cwd}
}

func toolCall(tool string, input map[string]any, cwd string) *luahook.Input {
	ti, _ := json.Marshal(input)
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: tool, ToolInput: ti, Cwd: cwd}
}

// TestSelfProtectionDecide holds the engine's self-protection through
// engine.Decide, on real files, with a Lua hook that allows everything: a
// call that would change the policy folder, the config, the trust records
// or an agent's settings, or run luahook trust, is denied naming what it
// would change; reading and writing elsewhere are allowed (the hook's
// explicit allow stands).
func TestSelfProtectionDecide(t *testing.T) {
	g := newGuarded(t, "[runner]\nallow_non_policy = true\n")
	eng := g.open(t, Options{})
	src := filepath.Join(g.proj, "src")
	type tc struct {
		name string
		in   *luahook.Input
		want string // in the reason; "" = allowed
	}
	policy := "luahook's policy folder"
	cases := []tc{
		// file tools
		{"Write into hooks.d", toolCall("Write", map[string]any{"file_path": filepath.Join(g.hooks, "10-allow.lua"), "content": "x"}, g.proj), policy},
		{"Write relative", toolCall("Write", map[string]any{"file_path": "hooks.d/20-new.lua", "content": "x"}, g.proj), policy},
		{"Write relative from a subfolder", toolCall("Write", map[string]any{"file_path": "../hooks.d/lib/m.lua"}, src), policy},
		{"Write from inside hooks.d", toolCall("Write", map[string]any{"file_path": "10-allow.lua"}, g.hooks), policy},
		{"Edit lib", toolCall("Edit", map[string]any{"file_path": "hooks.d/lib/m.lua", "old_string": "a", "new_string": "b"}, g.proj), policy},
		{"MultiEdit config", toolCall("MultiEdit", map[string]any{"file_path": "luahook.toml", "edits": []any{}}, g.proj), "luahook's config file"},
		{"NotebookEdit", toolCall("NotebookEdit", map[string]any{"notebook_path": "hooks.d/n.ipynb"}, g.proj), policy},
		{"Write through a link to hooks.d", toolCall("Write", map[string]any{"file_path": "policies/10-allow.lua"}, g.proj), policy},
		{"Write ~ trust record", toolCall("Write", map[string]any{"file_path": "~/.config/luahook/trust/x.json"}, g.proj), "luahook's trust records"},
		{"Write user settings", toolCall("Write", map[string]any{"file_path": filepath.Join(g.home, ".claude", "settings.json")}, g.proj), "claude settings"},
		{"Write project settings", toolCall("Write", map[string]any{"file_path": ".claude/settings.json"}, g.proj), "claude settings"},
		{"Write local settings", toolCall("Write", map[string]any{"file_path": ".claude/settings.local.json"}, g.proj), "local settings"},
		{"Write gemini settings", toolCall("write_file", map[string]any{"file_path": ".gemini/settings.json"}, g.proj), "gemini settings"},
		{"Edit cursor hooks", toolCall("Edit", map[string]any{"file_path": ".cursor/hooks.json"}, g.proj), "cursor settings"},
		{"codex apply_patch", toolCall("apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: hooks.d/10-allow.lua\n@@\n-a\n+b\n*** End Patch\n"}, g.proj), policy},
		{"codex apply_patch move", toolCall("apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: src/main.go\n*** Move to: .codex/hooks.json\n*** End Patch\n"}, g.proj), "codex settings"},
		// shell
		{"redirect", shellCall("echo x > hooks.d/10-allow.lua", g.proj), policy},
		{"append", shellCall("echo x >> luahook.toml", g.proj), "luahook's config file"},
		{"clobber", shellCall("echo x >| hooks.d/a.lua", g.proj), policy},
		{"fd redirect", shellCall("echo x 1> hooks.d/a.lua", g.proj), policy},
		{"&> redirect", shellCall("make &> hooks.d/log", g.proj), policy},
		{"sed -i", shellCall("sed -i 's/allow/deny/' hooks.d/10-allow.lua", g.proj), policy},
		{"perl -i", shellCall("perl -pi -e 's/a/b/' luahook.toml", g.proj), "config"},
		{"tee", shellCall("echo x | tee hooks.d/a.lua", g.proj), policy},
		{"tee -a", shellCall("echo x | tee -a luahook.toml", g.proj), "config"},
		{"cp", shellCall("cp /tmp/x.lua hooks.d/", g.proj), policy},
		{"mv out", shellCall("mv hooks.d/10-allow.lua /tmp/", g.proj), policy},
		{"rm", shellCall("rm -f hooks.d/10-allow.lua", g.proj), policy},
		{"rm -r lib", shellCall("rm -rf hooks.d/lib", g.proj), policy},
		{"ln", shellCall("ln -sf /tmp/x.lua hooks.d/10-allow.lua", g.proj), policy},
		{"link to hooks.d", shellCall("ln -s hooks.d mine", g.proj), policy},
		{"install", shellCall("install -m 644 /tmp/x hooks.d/x.lua", g.proj), policy},
		{"truncate", shellCall("truncate -s 0 luahook.toml", g.proj), "config"},
		{"chmod", shellCall("chmod 666 hooks.d/10-allow.lua", g.proj), policy},
		{"chown", shellCall("chown -R nobody hooks.d", g.proj), policy},
		{"touch", shellCall("touch hooks.d/new.lua", g.proj), policy},
		{"dd", shellCall("dd if=/dev/zero of=luahook.toml count=1", g.proj), "config"},
		{"rsync", shellCall("rsync -a /tmp/x/ hooks.d/", g.proj), policy},
		{"git checkout path", shellCall("git checkout -- hooks.d/10-allow.lua", g.proj), policy},
		{"git checkout .", shellCall("git checkout .", g.proj), policy},
		{"git restore .", shellCall("git restore .", g.proj), policy},
		{"git reset --hard", shellCall("git reset --hard HEAD~1", g.proj), policy},
		{"git stash", shellCall("git stash", g.proj), policy},
		{"git clean", shellCall("git clean -fdx", g.proj), policy},
		{"cd && rm", shellCall("cd hooks.d && rm 10-allow.lua", g.proj), policy},
		{"relative from inside", shellCall("rm 10-allow.lua", g.hooks), policy},
		{"~ expansion", shellCall("rm -rf ~/.config/luahook/trust", g.proj), "trust records"},
		{"$HOME expansion", shellCall("echo '{}' > $HOME/.claude/settings.json", src), "claude settings"},
		{"sh -c", shellCall("sh -c 'rm hooks.d/10-allow.lua'", g.proj), policy},
		{"bash -c", shellCall(`bash -c "echo x > luahook.toml"`, g.proj), "config"},
		{"after &&", shellCall("go build ./... && rm -rf hooks.d", g.proj), policy},
		{"quotes", shellCall(`rm "hoo"'ks'.d/10-allow.lua`, g.proj), policy},
		{"braces", shellCall("rm hook{s.d,}/10-allow.lua", g.proj), policy},
		{"eval", shellCall(`eval "rm hooks.d/10-allow.lua"`, g.proj), policy},
		{"substitution", shellCall("rm $(ls hooks.d/*)", g.proj), "cannot tell"},
		{"unclosed quote", shellCall(`rm 'hooks.d/10-allow.lua`, g.proj), "cannot tell"},
		{"luahook trust", shellCall("luahook trust", g.proj), "`luahook trust`"},
		{"luahook untrust", shellCall("luahook untrust .", g.proj), "`luahook untrust`"},
		{"luahook install", shellCall("luahook install claude --project", g.proj), "`luahook install`"},
		{"luahook add --force", shellCall("luahook add --force secrets", g.proj), "`luahook add --force`"},
		{"./bin/luahook", shellCall("./bin/luahook trust", g.proj), "`luahook trust`"},
		{"absolute luahook", shellCall("/usr/local/bin/luahook trust", g.proj), "`luahook trust`"},
		{"go run", shellCall("go run ./cmd/luahook trust", g.proj), "trust"},
		{"env luahook", shellCall("env X=1 luahook trust", g.proj), "`luahook trust`"},
		{"luahook after ;", shellCall("cd /tmp; luahook trust", g.proj), "`luahook trust`"},
		{"luahook after |", shellCall("yes | luahook trust", g.proj), "`luahook trust`"},
		{"luahook in sh -c", shellCall("sh -c 'luahook trust'", g.proj), "`luahook trust`"},
		{"luahook in bash -c", shellCall(`bash -c "luahook install codex"`, g.proj), "`luahook install`"},
		// allowed: the hook's explicit allow stands
		{"Read hooks.d", toolCall("Read", map[string]any{"file_path": "hooks.d/10-allow.lua"}, g.proj), ""},
		{"Write elsewhere", toolCall("Write", map[string]any{"file_path": "src/main.go", "content": "hooks.d luahook trust"}, g.proj), ""},
		{"Write hooks.d.bak", toolCall("Write", map[string]any{"file_path": "hooks.d.bak"}, g.proj), ""},
		{"Write hooks.d elsewhere", toolCall("Write", map[string]any{"file_path": filepath.Join(g.root, "other", "hooks.d", "x.lua")}, g.proj), ""},
		{"cat", shellCall("cat hooks.d/10-allow.lua", g.proj), ""},
		{"grep", shellCall("grep -rn allow hooks.d luahook.toml", g.proj), ""},
		{"less", shellCall("less luahook.toml", g.proj), ""},
		{"git diff", shellCall("git diff -- hooks.d", g.proj), ""},
		{"git log", shellCall("git log -p hooks.d", g.proj), ""},
		{"echo hooks.d", shellCall("echo hooks.d", g.proj), ""},
		{"write elsewhere", shellCall("echo x > /tmp/out.txt", g.proj), ""},
		{"hooks.d.bak elsewhere", shellCall("echo x > /tmp/hooks.d.bak", g.proj), ""},
		{"luahook fire", shellCall("luahook fire --agent claude < payload.json", g.proj), ""},
		{"luahook list", shellCall("luahook list", g.proj), ""},
		{"luahook add", shellCall("luahook add secrets", g.proj), ""},
		{"ordinary", shellCall("npm install left-pad", g.proj), ""},
		{"rm elsewhere", shellCall("rm -rf build dist", g.proj), ""},
		{"git checkout branch", shellCall("git checkout main", g.proj), ""},
	}
	ctx := context.Background()
	for _, c := range cases {
		res, err := eng.Decide(ctx, c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.want == "" && !res.Allowed():
			t.Errorf("%s: %s %q, want the hook's allow", c.name, res.Verdict, res.Reason)
		case c.want != "" && !res.Denied():
			t.Errorf("%s: %s, want denied (%s)", c.name, res.Verdict, c.in.ToolInput)
		case c.want != "" && (!strings.Contains(res.Reason, c.want) || !strings.Contains(res.Reason, "ask the user")):
			t.Errorf("%s: reason %q, want it to name %q and tell the agent to ask the user", c.name, res.Reason, c.want)
		case c.want != "" && (res.DecidedBy != "" || len(res.Trace) != 0):
			t.Errorf("%s: decided by %q with %d hooks traced, want no hook run", c.name, res.DecidedBy, len(res.Trace))
		}
	}
}

// TestSelfProtectionEveryEntry: the runner's own entry points deny as
// Decide does (Fire, FireInto, PreToolUse, Explain), a payload in
// luahook's format (DecidePayload) too, and the denial is the decision
// the observer sees.
func TestSelfProtectionEveryEntry(t *testing.T) {
	g := newGuarded(t, "")
	eng := g.open(t, Options{})
	ctx := context.Background()
	in := shellCall("rm -rf hooks.d", g.proj)
	if res := eng.Runner().Fire(ctx, in); !res.Denied() {
		t.Errorf("Fire: %s", res.Verdict)
	}
	var res Result
	eng.Runner().FireInto(ctx, in, &res)
	if !res.Denied() {
		t.Errorf("FireInto: %s", res.Verdict)
	}
	if res := eng.Runner().PreToolUse(ctx, in); !res.Denied() {
		t.Errorf("PreToolUse: %s", res.Verdict)
	}
	x := eng.Runner().Explain(ctx, in)
	if !x.Result.Denied() {
		t.Errorf("Explain: %s", x.Result.Verdict)
	}
	for _, h := range x.Hooks {
		if h.Matched && h.Trace == nil && !strings.Contains(h.NotRun, "refused") {
			t.Errorf("Explain: hook %s not run: %q", h.Name, h.NotRun)
		}
	}
	payload, _ := json.Marshal(in)
	if res, err := eng.DecidePayload(ctx, payload); err != nil || !res.Denied() {
		t.Errorf("DecidePayload: %s %v", res.Verdict, err)
	}
}

// TestSelfProtectionOverHooks: neither a hook's allow nor its rewrite gets
// past the self-protection: a mutate hook that rewrites a harmless command
// into one that changes the policy folder is denied.
func TestSelfProtectionOverHooks(t *testing.T) {
	g := newGuarded(t, "")
	writeFile(t, filepath.Join(g.hooks, "05-rewrite.lua"), `
hook.register("PreToolUse", "Bash", function(input)
  if input.toolInput.command == "make" then
    return hook.mutate({ command = "echo x > hooks.d/10-allow.lua" })
  end
end, { name = "rewrite", stage = "mutate" })
`)
	eng := g.open(t, Options{})
	ctx := context.Background()
	res, err := eng.Decide(ctx, shellCall("make", g.proj))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Denied() || res.Input != nil || !strings.Contains(res.Reason, "luahook's policy folder") {
		t.Errorf("rewritten into a write to hooks.d: %s %q input %s", res.Verdict, res.Reason, res.Input)
	}
	res, _ = eng.Decide(ctx, shellCall("rm -rf hooks.d", g.proj))
	if !res.Denied() {
		t.Errorf("allow-all overrode the denial: %s", res.Verdict)
	}
}

// TestSelfProtectionSwitches: the config's [runner] self_protect = false
// and Options.NoSelfProtect turn it off (the hook's allow decides), and a
// config edit turns it off and on again at reload.
func TestSelfProtectionSwitches(t *testing.T) {
	ctx := context.Background()
	in := shellCall("rm -rf hooks.d && luahook trust", "")
	check := func(name string, eng *Engine, wantDenied bool) {
		t.Helper()
		res, err := eng.Decide(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Denied() != wantDenied {
			t.Errorf("%s: %s %q, want denied %v", name, res.Verdict, res.Reason, wantDenied)
		}
	}
	g := newGuarded(t, "[runner]\nself_protect = false\n")
	in.Cwd = g.proj
	eng := g.open(t, Options{})
	check("self_protect = false", eng, false)
	writeFile(t, g.config, "[runner]\nself_protect = true\n")
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	check("self_protect = true after reload", eng, true)

	g = newGuarded(t, "")
	in.Cwd = g.proj
	check("NoSelfProtect", g.open(t, Options{NoSelfProtect: true}), false)
	check("default", g.open(t, Options{}), true)
}

// TestSelfProtectionWithoutHooks: an engine whose folder holds no hook
// file still protects it (the runner has no hook to run).
func TestSelfProtectionWithoutHooks(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "hooks.d")
	eng := openEngine(t, Options{Dir: dir, NoWatch: true})
	res, err := eng.Decide(context.Background(), toolCall("Write", map[string]any{"file_path": filepath.Join(dir, "x.lua")}, root))
	if err != nil || !res.Denied() {
		t.Errorf("Write into an empty hooks folder: %s %v", res.Verdict, err)
	}
	if res := eng.Runner().PreToolUse(context.Background(), shellCall("ls", root)); res.Verdict != luahook.VerdictNone {
		t.Errorf("ls: %s", res.Verdict)
	}
}
