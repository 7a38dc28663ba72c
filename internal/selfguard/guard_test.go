package selfguard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/luahook/luahook"
)

// fixture is a project and a home folder on disk, and a Guard protecting
// what the CLI protects in them.
type fixture struct {
	proj, home, hooks, config, trust string
	g                                *Guard
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	f.hooks = filepath.Join(f.proj, "hooks.d")
	f.config = filepath.Join(f.proj, "luahook.toml")
	f.trust = filepath.Join(f.home, ".config", "luahook", "trust")
	for _, d := range []string{filepath.Join(f.hooks, "lib"), filepath.Join(f.proj, "src"), f.trust,
		filepath.Join(f.proj, ".claude"), filepath.Join(f.home, ".claude"), filepath.Join(root, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{filepath.Join(f.hooks, "10-x.lua"), filepath.Join(f.hooks, "lib", "m.lua"), f.config,
		filepath.Join(f.proj, ".claude", "settings.json"), filepath.Join(f.home, ".claude", "settings.json")} {
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.hooks, filepath.Join(f.proj, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.hooks, "new.lua"), filepath.Join(f.proj, "dangling")); err != nil {
		t.Fatal(err)
	}
	f.g = New(f.options())
	return f
}

func (f *fixture) options() Options {
	return Options{Home: f.home, Base: f.proj, Paths: []Path{
		{Path: f.hooks, What: "luahook's policy folder"},
		{Path: f.config, What: "luahook's config file"},
		{Path: f.trust, What: "luahook's trust records"},
		{Path: filepath.Join(f.home, ".claude", "settings.json"), What: "claude's settings"},
		{Path: ".claude/settings.json", What: "claude's settings"},
		{Path: ".claude/settings.local.json", What: "claude's local settings"},
		{Path: ".github/hooks/luahook.json", What: "copilot's settings"},
	}}
}

func (f *fixture) shell(cmd, cwd string) *luahook.Input {
	ti, _ := json.Marshal(map[string]string{"command": cmd})
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash", ToolInput: ti, Cwd: cwd}
}

func (f *fixture) tool(name string, input map[string]any, cwd string) *luahook.Input {
	ti, _ := json.Marshal(input)
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: name, ToolInput: ti, Cwd: cwd}
}

func TestShellCommands(t *testing.T) {
	f := newFixture(t)
	deny := []string{
		`echo x > hooks.d/10-x.lua`,
		`echo x >> hooks.d/10-x.lua`,
		`echo x >| hooks.d/10-x.lua`,
		`echo x 1> hooks.d/10-x.lua`,
		`echo x &> hooks.d/10-x.lua`,
		`echo x 2>&1 >hooks.d/new.lua`,
		`cat <<EOF > hooks.d/lib/m.lua
return {}
EOF`,
		`tee hooks.d/10-x.lua < /dev/null`,
		`echo x | tee -a hooks.d/10-x.lua`,
		`sed -i 's/deny/allow/' hooks.d/10-x.lua`,
		`sed -i.bak -e 's/deny/allow/' hooks.d/10-x.lua`,
		`sed -ie 's/a/b/' hooks.d/10-x.lua`,
		`perl -pi -e 's/deny/allow/' hooks.d/10-x.lua`,
		`cp /tmp/evil.lua hooks.d/10-x.lua`,
		`cp /tmp/evil.lua hooks.d/`,
		`cp -t hooks.d /tmp/evil.lua`,
		`mv hooks.d/10-x.lua /tmp/`,
		`mv hooks.d /tmp/x`,
		`mv /tmp/hooks.d .`,
		`rm hooks.d/10-x.lua`,
		`rm -rf hooks.d`,
		`rm -rf ./hooks.d/lib`,
		`rm -f luahook.toml`,
		`ln -sf /tmp/evil.lua hooks.d/10-x.lua`,
		`ln -s hooks.d mylink`,
		`install -m 644 /tmp/evil.lua hooks.d/10-x.lua`,
		`truncate -s 0 hooks.d/10-x.lua`,
		`chmod 777 hooks.d`,
		`chmod -R g+w hooks.d`,
		`chown -R nobody hooks.d`,
		`touch hooks.d/20-new.lua`,
		`dd if=/dev/zero of=hooks.d/10-x.lua bs=1 count=1`,
		`rsync -a /tmp/x/ hooks.d/`,
		`git checkout hooks.d/10-x.lua`,
		`git checkout -- hooks.d`,
		`git checkout HEAD~1 -- luahook.toml`,
		`git checkout .`,
		`git restore .`,
		`git restore hooks.d/10-x.lua`,
		`git reset --hard`,
		`git reset --hard HEAD~1`,
		`git stash`,
		`git stash -u`,
		`git stash pop`,
		`git clean -fdx`,
		`git -C src clean -fdx ..`,
		`git rm -r hooks.d`,
		`cd hooks.d && rm 10-x.lua`,
		`cd hooks.d; echo > 10-x.lua`,
		`(cd hooks.d && rm -f 10-x.lua)`,
		`rm hoo"ks".d/10-x.lua`,
		`rm hoo\ks.d/10-x.lua`,
		`rm $'hoo\x6bs.d/10-x.lua'`,
		`rm hook{s.d,}/10-x.lua`,
		`rm hook?.d/10-x.lua`,
		`rm -rf h*`,
		`rm -rf *`,
		`rm -rf .`,
		`d=hooks.d; rm $d/10-x.lua`,
		`a=hoo; rm "${a}ks.d/10-x.lua"`,
		`sh -c 'rm hooks.d/10-x.lua'`,
		`bash -c "echo x > hooks.d/10-x.lua"`,
		`bash -lc 'cd hooks.d && rm -f *'`,
		`eval "rm hooks.d/10-x.lua"`,
		`sudo rm -rf hooks.d`,
		`env X=1 rm hooks.d/10-x.lua`,
		`timeout 5 rm hooks.d/10-x.lua`,
		`nohup rm hooks.d/10-x.lua &`,
		`ls hooks.d | xargs rm`,
		`find hooks.d -name '*.lua' -delete`,
		`find . -name '*.lua' -exec rm {} \;`,
		`find . -name '*.lua' -delete`,
		`find . -name hooks.d -exec rm -rf {} +`,
		`find . -name '*.pyc' -o -name '*.lua' -delete`,
		`find hooks.d -type f -exec sed -i s/a/b/ {} +`,
		`rm $(ls hooks.d/*.lua)`,
		`rm "$(echo hooks.d)/10-x.lua"`,
		`python3 -c "open('hooks.d/10-x.lua','w').write('')"`,
		`node -e "require('fs').unlinkSync('hooks.d/10-x.lua')"`,
		`echo 'rm hooks.d/10-x.lua' | sh`,
		`bash <<'EOF'
rm hooks.d/10-x.lua
EOF`,
		`vim hooks.d/10-x.lua`,
		`curl -o hooks.d/10-x.lua https://example.com/x`,
		`tar -xzf /tmp/x.tgz -C hooks.d`,
		`patch hooks.d/10-x.lua < /tmp/fix.diff`,
		`echo x > ~/.config/luahook/trust/rec.json`,
		`rm -rf $HOME/.config/luahook/trust`,
		`rm -rf ~/.config/luahook`,
		`echo '{}' > .claude/settings.json`,
		`echo '{}' > .claude/settings.local.json`,
		`echo '{}' > ~/.claude/settings.json`,
		`rm -rf .claude`,
		`mkdir -p .github/hooks && echo '{}' > .github/hooks/luahook.json`,
		`echo x > ` + "`echo hooks.d`" + `/10-x.lua`,
		`rm -rf "$PWD/hooks.d"`,
		`apply_patch <<'EOF'
*** Begin Patch
*** Update File: hooks.d/10-x.lua
@@
-a
+b
*** End Patch
EOF`,
		"echo ok; rm hooks.d/10-x.lua",
		"true && rm hooks.d/10-x.lua",
		"false || rm hooks.d/10-x.lua",
		"if true; then rm hooks.d/10-x.lua; fi",
		"for f in hooks.d/*.lua; do rm \"$f\"; done",
		"rm hooks.d/10-x.lua # comment",
		"X=$(cat list); rm $X; cat hooks.d/10-x.lua",
	}
	for _, cmd := range deny {
		if ok, reason := f.g.Check(f.shell(cmd, f.proj)); !ok {
			t.Errorf("allowed, want denied: %s", cmd)
		} else if !strings.Contains(reason, "ask the user") {
			t.Errorf("%s: reason %q does not tell the agent to ask the user", cmd, reason)
		}
	}
	allow := []string{
		`cat hooks.d/10-x.lua`,
		`grep -r deny hooks.d`,
		`less luahook.toml`,
		`git diff hooks.d`,
		`git log -- hooks.d`,
		`git status`,
		`git checkout main`,
		`git checkout -b feature`,
		`git stash list`,
		`git clean -n`,
		`git restore --staged hooks.d/10-x.lua`,
		`git add hooks.d/10-x.lua`,
		`echo hooks.d`,
		`echo "hooks.d is where policies live" > notes.txt`,
		`ls -la hooks.d`,
		`cp hooks.d/10-x.lua /tmp/copy.lua`,
		`cp -r hooks.d /tmp/backup`,
		`diff hooks.d/10-x.lua /tmp/x`,
		`echo x > /tmp/hooks.d.bak`,
		`echo x > hooks.d.bak`,
		`rm -rf src/hooks.d.bak`,
		`rm -rf build`,
		`rm -rf src/*.o`,
		`npm install left-pad`,
		`go test ./...`,
		`luahook fire --agent claude`,
		`luahook list`,
		`luahook check`,
		`luahook test hooks.d`,
		`luahook add secrets`,
		`luahook trust --help`,
		`luahook trust --watch --help`,
		`script -qc 'make test' /dev/null`,
		`script -q /dev/null go test ./...`,
		`script session.log`,
		`find hooks.d -name '*.lua'`,
		`find . -name '*.go' -print`,
		`python3 -c "print(open('hooks.d/10-x.lua').read())"`,
		`tar -czf /tmp/backup.tgz hooks.d`,
		`sed -n 1,10p hooks.d/10-x.lua`,
		`sed 's/a/b/' hooks.d/10-x.lua > /tmp/out`,
		`echo x > ../elsewhere/file`,
		`mkdir -p src/new && touch src/new/a.go`,
		`rm -rf /`,
		`rm -rf ~`,
		`cat ~/.claude/settings.json`,
		`echo '*' > .gitignore`,
		`ls ?`,
		`X=1 echo $X`,
		`find . -name '*.pyc' -delete`,
		`find . -type f -name '*.tmp' -exec rm -f {} +`,
		`find . -name '*.go' | xargs grep -l TODO`,
		`rm -rf .github`,
		`rm -rf node_modules dist`,
		`mv *.txt docs/`,
		`sed -i 's/x/y/' src/*.go`,
		`git restore --source=HEAD~1 src/main.go`,
		`git stash list`,
		`chmod +x scripts/*.sh`,
		`rm -rf build/*`,
		`rm -rf src/*`,
		`rm -rf src/*/cache`,
		`rm -rf /tmp/x/*`,
	}
	for _, cmd := range allow {
		if ok, reason := f.g.Check(f.shell(cmd, f.proj)); ok {
			t.Errorf("denied, want allowed: %s\n  %s", cmd, reason)
		}
	}
}

func TestLuahookCommands(t *testing.T) {
	f := newFixture(t)
	deny := []string{
		`luahook trust`,
		`luahook trust .`,
		`luahook untrust`,
		`luahook install claude`,
		`luahook add --force secrets`, `luahook add --upgrade git`, `luahook --dir hooks.d add git --upgrade=true`,
		`luahook add secrets --force`,
		`luahook --dir hooks.d trust`,
		`luahook --log-level debug install codex --project`,
		`./bin/luahook trust`,
		`/usr/local/bin/luahook trust`,
		`go run ./cmd/luahook trust`,
		`go run -race ./cmd/luahook/ trust`,
		`go run github.com/luahook/luahook/cmd/luahook@latest trust`,
		`env X=1 luahook trust`,
		`make && luahook trust`,
		`true; luahook trust`,
		`echo y | luahook trust`,
		`sh -c 'luahook trust'`,
		`bash -c "luahook install claude"`,
		`sudo -u me luahook trust`,
		`L=luahook; $L trust`,
		`$(which luahook) trust`,
		`luahook $SUB`,
		`"luahook" trust`,
		`lua\hook trust`,
		// trust --watch, and the terminal it needs: script runs a command in one.
		`luahook trust --watch`,
		`luahook trust --watch ~/src/project`,
		`luahook --dir hooks.d trust --watch=true .`,
		`nohup luahook trust --watch &`,
		`setsid -f luahook trust --watch`,
		`unbuffer luahook trust --watch`,
		`script -qc 'luahook trust --watch' /dev/null`,
		`script -q -c "luahook trust --watch" /dev/null`,
		`script --command='luahook trust --watch' -q /dev/null`,
		`script -q /dev/null luahook trust --watch`,
		`env -u CLAUDECODE script -qefc 'luahook trust --watch' /dev/null`,
	}
	for _, cmd := range deny {
		ok, reason := f.g.Check(f.shell(cmd, f.proj))
		if !ok {
			t.Errorf("allowed, want denied: %s", cmd)
			continue
		}
		if !strings.Contains(reason, "ask the user") {
			t.Errorf("%s: reason %q", cmd, reason)
		}
	}
	allow := []string{
		`luahook fire`, `luahook list`, `luahook serve --addr :8080`, `luahook demo`, `luahook explain`,
		`luahook add secrets`, `luahook add --force=false secrets`, `luahook add --upgrade=false git`, `luahook help trust`, `luahook --version`,
		`go run ./cmd/luahook list`, `go test ./cmd/luahook`, `echo luahook trust`, `grep -r "luahook trust" docs`,
	}
	for _, cmd := range allow {
		if ok, reason := f.g.Check(f.shell(cmd, f.proj)); ok {
			t.Errorf("denied, want allowed: %s\n  %s", cmd, reason)
		}
	}
}

func TestWriteTools(t *testing.T) {
	f := newFixture(t)
	type tc struct {
		tool  string
		input map[string]any
		cwd   string
	}
	deny := []tc{
		{"Write", map[string]any{"file_path": filepath.Join(f.hooks, "10-x.lua"), "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "hooks.d/20-new.lua", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "10-x.lua", "content": "x"}, f.hooks},
		{"Write", map[string]any{"file_path": "../luahook.toml", "content": "x"}, filepath.Join(f.proj, "src")},
		{"Edit", map[string]any{"file_path": "hooks.d/lib/m.lua", "old_string": "a", "new_string": "b"}, f.proj},
		{"MultiEdit", map[string]any{"file_path": f.config, "edits": []any{}}, f.proj},
		{"NotebookEdit", map[string]any{"notebook_path": "hooks.d/x.ipynb"}, f.proj},
		{"Write", map[string]any{"file_path": "link/10-x.lua", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "link/new.lua", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "dangling", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "hooks.d/../hooks.d/./10-x.lua"}, f.proj},
		{"Write", map[string]any{"file_path": "//" + f.hooks[1:] + "//lib/m.lua"}, f.proj},
		{"Write", map[string]any{"file_path": "~/.config/luahook/trust/x.json", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": ".claude/settings.local.json", "content": "{}"}, f.proj},
		{"Write", map[string]any{"file_path": filepath.Join(f.home, ".claude", "settings.json"), "content": "{}"}, f.proj},
		{"Write", map[string]any{"file_path": "/other/repo/.claude/settings.json", "content": "{}"}, f.proj},
		{"write_file", map[string]any{"file_path": "hooks.d/10-x.lua", "content": "x"}, f.proj},
		{"replace", map[string]any{"file_path": "hooks.d/10-x.lua"}, f.proj},
		{"create", map[string]any{"path": "hooks.d/x.lua"}, f.proj},
		{"Delete", map[string]any{"path": "hooks.d"}, f.proj},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: hooks.d/10-x.lua\n@@\n-a\n+b\n*** End Patch\n"}, f.proj},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: src/a.go\n+x\n*** Add File: luahook.toml\n+x\n*** End Patch\n"}, f.proj},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: src/a.go\n*** Move to: hooks.d/a.lua\n*** End Patch\n"}, f.proj},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Delete File: hooks.d/10-x.lua\n*** End Patch\n"}, f.proj},
	}
	for _, c := range deny {
		ok, reason := f.g.Check(f.tool(c.tool, c.input, c.cwd))
		if !ok {
			t.Errorf("allowed, want denied: %s %v", c.tool, c.input)
			continue
		}
		if !strings.Contains(reason, "which the agent may not change; ask the user to make this change") {
			t.Errorf("%s %v: reason %q", c.tool, c.input, reason)
		}
	}
	allow := []tc{
		{"Write", map[string]any{"file_path": "src/a.go", "content": "hooks.d luahook trust"}, f.proj},
		{"Write", map[string]any{"file_path": "hooks.d.bak", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "/tmp/hooks.d/x.lua", "content": "x"}, f.proj},
		{"Write", map[string]any{"file_path": "src/hooks.d-notes.md", "content": "x"}, f.proj},
		{"Read", map[string]any{"file_path": "hooks.d/10-x.lua"}, f.proj},
		{"Grep", map[string]any{"pattern": "x", "path": "hooks.d"}, f.proj},
		{"Edit", map[string]any{"file_path": ".claude/other.json"}, f.proj},
		{"apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: src/a.go\n@@\n-hooks.d\n+x\n*** End Patch\n"}, f.proj},
	}
	for _, c := range allow {
		if ok, reason := f.g.Check(f.tool(c.tool, c.input, c.cwd)); ok {
			t.Errorf("denied, want allowed: %s %v\n  %s", c.tool, c.input, reason)
		}
	}
}

func TestReasonNamesWhatIsProtected(t *testing.T) {
	f := newFixture(t)
	_, reason := f.g.Check(f.tool("Write", map[string]any{"file_path": "hooks.d/10-x.lua"}, f.proj))
	want := filepath.Join(f.hooks, "10-x.lua") + " is in luahook's policy folder (" + f.hooks +
		"), which the agent may not change; ask the user to make this change."
	if !strings.HasSuffix(reason, want) {
		t.Errorf("reason %q\nwant it to end %q", reason, want)
	}
	_, reason = f.g.Check(f.shell("luahook trust", f.proj))
	if !strings.Contains(reason, "`luahook trust`") || !strings.Contains(reason, "ask the user to run it") {
		t.Errorf("reason %q", reason)
	}
}

func TestOtherEventsAndTools(t *testing.T) {
	f := newFixture(t)
	in := f.shell("rm -rf hooks.d", f.proj)
	in.Event = luahook.PostToolUse
	if ok, _ := f.g.Check(in); ok {
		t.Error("PostToolUse denied")
	}
	in = f.tool("mcp__github__create_issue", map[string]any{"path": "hooks.d/x"}, f.proj)
	if ok, _ := f.g.Check(in); ok {
		t.Error("an MCP tool denied")
	}
	var g *Guard
	if ok, _ := g.Check(f.shell("rm -rf hooks.d", f.proj)); ok {
		t.Error("a nil Guard denied")
	}
	// capabilities decide over the name
	in = f.tool("Frobnicate", map[string]any{"command": "rm -rf hooks.d"}, f.proj)
	in.ToolCapabilities = []string{"shell"}
	if ok, _ := f.g.Check(in); !ok {
		t.Error("a tool with the shell capability allowed")
	}
}

// TestFolding: where the file system folds case (macOS, Windows), a path
// or a command spelled in other capitals is the same one.
func TestFolding(t *testing.T) {
	f := newFixture(t)
	g := newGuard(f.options(), true)
	for _, cmd := range []string{`echo x > HOOKS.D/10-x.lua`, `rm -rf Hooks.D`, `LUAHOOK trust`, `RM -rf .`,
		`Git Checkout .`, `echo x > "hOOks".d/x`} {
		if ok, _ := g.Check(f.shell(cmd, f.proj)); !ok {
			t.Errorf("folding: allowed %s", cmd)
		}
		// program names compare lower-case everywhere (RM, LUAHOOK)
		if ok, _ := f.g.Check(f.shell(cmd, f.proj)); ok && runtime.GOOS == "linux" && strings.Contains(cmd, "HOOKS") {
			t.Errorf("not folding: denied %s", cmd)
		}
	}
	in := f.tool("Write", map[string]any{"file_path": strings.ToUpper(filepath.Join(f.hooks, "10-x.lua"))}, f.proj)
	if ok, _ := g.Check(in); !ok {
		t.Errorf("folding: allowed a Write to %s", in.ToolInput)
	}
}

// TestProtectedPathBehindALink: a protected path given through a link is
// protected at its target too (New follows the protected paths' links).
func TestProtectedPathBehindALink(t *testing.T) {
	f := newFixture(t)
	g := New(Options{Home: f.home, Base: f.proj, Paths: []Path{
		{Path: filepath.Join(f.proj, "link"), What: "luahook's policy folder"}}})
	for _, in := range []*luahook.Input{
		f.tool("Write", map[string]any{"file_path": filepath.Join(f.hooks, "10-x.lua")}, f.proj),
		f.tool("Write", map[string]any{"file_path": "link/10-x.lua"}, f.proj),
		f.shell("rm -rf link/lib", f.proj),
		f.shell("echo x > hooks.d/10-x.lua", f.proj),
	} {
		if ok, _ := g.Check(in); !ok {
			t.Errorf("allowed %s", in.ToolInput)
		}
	}
}

// TestCommandForms: the forms an agent's shell tool takes: Codex's argv
// list, a working folder of its own, PowerShell's cmdlets.
func TestCommandForms(t *testing.T) {
	f := newFixture(t)
	for _, in := range []*luahook.Input{
		f.tool("exec_command", map[string]any{"command": []string{"bash", "-lc", "rm -rf hooks.d"}}, f.proj),
		f.tool("local_shell", map[string]any{"command": []string{"rm", "hooks.d/10-x.lua"}}, f.proj),
		f.tool("Shell", map[string]any{"command": "rm 10-x.lua", "working_directory": f.hooks}, f.proj),
		f.tool("exec_command", map[string]any{"cmd": "rm lib/m.lua", "workdir": "hooks.d"}, f.proj),
		f.tool("PowerShell", map[string]any{"command": "Remove-Item -Recurse hooks.d"}, f.proj),
		f.tool("PowerShell", map[string]any{"command": "Set-Content -Path luahook.toml -Value x"}, f.proj),
	} {
		if ok, _ := f.g.Check(in); !ok {
			t.Errorf("%s allowed %s", in.ToolName, in.ToolInput)
		}
	}
	for _, in := range []*luahook.Input{
		f.tool("exec_command", map[string]any{"command": []string{"cat", "hooks.d/10-x.lua"}}, f.proj),
		f.tool("PowerShell", map[string]any{"command": "Get-Content hooks.d/10-x.lua"}, f.proj),
	} {
		if ok, reason := f.g.Check(in); ok {
			t.Errorf("%s denied %s: %s", in.ToolName, in.ToolInput, reason)
		}
	}
}

// TestGlobHoldsARelativeEntryOnlyWhereOneExists: a pattern whose matches
// could hold a relative protected entry (build/* holding
// build/x/.claude/settings.json) is denied where the files on disk show
// such an entry under one of its matches, and allowed where they show
// none; a pattern the guard cannot expand within its bounds stays denied.
func TestGlobHoldsARelativeEntryOnlyWhereOneExists(t *testing.T) {
	f := newFixture(t)
	if ok, reason := f.g.Check(f.shell(`rm -rf build/*`, f.proj)); ok {
		t.Fatalf("build/* with no build folder: denied: %s", reason)
	}
	sub := filepath.Join(f.proj, "build", "app", ".claude")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{`rm -rf build/*`, `rm -rf build/a*`, `rm -rf b*/*`} {
		if ok, _ := f.g.Check(f.shell(cmd, f.proj)); ok {
			t.Errorf("%s with no settings file under build: denied", cmd)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, "settings.json"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{`rm -rf build/*`, `rm -rf build/a*`, `rm -rf b*/*`, `rm -rf */app`} {
		if ok, _ := f.g.Check(f.shell(cmd, f.proj)); !ok {
			t.Errorf("allowed, want denied (build/app/.claude/settings.json exists): %s", cmd)
		}
	}
	if ok, _ := f.g.Check(f.shell(`rm -rf build/x*`, f.proj)); ok {
		t.Errorf("build/x* matches nothing holding the settings file: denied")
	}
	// a folder with more names than the guard reads: not known, denied
	many := filepath.Join(f.proj, "many")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxGlobEntries + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := f.g.Check(f.shell(`rm -rf many/*`, f.proj)); !ok {
		t.Errorf("many/* (%d names, past the bound): allowed, want denied", maxGlobEntries+1)
	}
}
