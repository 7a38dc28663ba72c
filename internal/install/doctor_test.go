package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook/agent"
)

// Check finds, in each file install writes, every event it wired and how
// each entry calls luahook: a command, --http (Claude Code's HTTP hooks or
// luahook fire --http) or --socket (luahook-fire); Claude Code's entries
// as written fail closed on every blocking event, and its SessionStart
// is a command, which it runs.
func TestCheckReadsHowInstallWiredEachAgent(t *testing.T) {
	for _, name := range agent.Names() {
		for _, c := range []struct {
			mode string
			set  func(*Options)
		}{
			{"command", func(*Options) {}},
			{"--http", func(o *Options) { o.HTTP = "http://127.0.0.1:8787" }},
			{"--socket", func(o *Options) { o.Socket, o.FireCommand = "/run/luahook.sock", "/usr/local/bin/luahook-fire" }},
		} {
			t.Run(string(name)+" "+c.mode, func(t *testing.T) {
				o := projectOptions(t, name)
				c.set(&o)
				ch, err := Plan(o)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ch.Write(); err != nil {
					t.Fatal(err)
				}
				rs := Check(context.Background(), CheckOptions{Agents: []agent.Name{name}, ProjectDir: o.ProjectDir, NoVersion: true})
				if len(rs) != 1 || len(rs[0].Files) != 1 {
					t.Fatalf("reports %+v", rs)
				}
				w := rs[0].Files[0]
				// Claude Code's SessionStart is a command forwarding to the
				// server: --http too.
				modes := []string{c.mode}
				if !w.Wired || !slices.Equal(w.Modes, modes) || !slices.Equal(w.Events, targets[name].events) ||
					len(w.NoOnFailure) > 0 || len(w.Skipped) > 0 || w.Error != "" || w.Scope != "project" {
					t.Errorf("wiring %+v, want modes %q on %q", w, modes, targets[name].events)
				}
				if len(rs[0].CannotBlock) > 0 {
					t.Errorf("cannot block: %q", rs[0].CannotBlock)
				}
			})
		}
	}
}

// A settings file that cannot be read is reported with its line and
// column; files that do not exist are left out; a file that holds other
// hooks only is not wired.
func TestCheckReportsFilesItCannotRead(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".claude", "settings.json"), "{\n  \"hooks\": {,}\n}\n")
	write(filepath.Join(home, ".gemini", "settings.json"), `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "lint"}]}]}}`)
	rs := Check(context.Background(), CheckOptions{ProjectDir: dir, Home: home, NoVersion: true})
	byAgent := map[agent.Name]Report{}
	for _, r := range rs {
		byAgent[r.Agent] = r
	}
	if f := byAgent[agent.Claude].Files; len(f) != 1 || !strings.Contains(f[0].Error, "settings.json:2:") || f[0].Wired {
		t.Errorf("claude files %+v", f)
	}
	if f := byAgent[agent.Gemini].Files; len(f) != 1 || f[0].Wired || f[0].Error != "" || f[0].Scope != "user" {
		t.Errorf("gemini files %+v", f)
	}
	if f := byAgent[agent.Codex].Files; len(f) != 0 {
		t.Errorf("codex files %+v, want none", f)
	}
}

// In the home folder itself, the project's file is the user's, reported
// once.
func TestCheckReportsTheHomesFileOnce(t *testing.T) {
	home := t.TempDir()
	o := Options{Agent: agent.Codex, Scope: User, Home: home, Command: "/usr/local/bin/luahook"}
	ch, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Write(); err != nil {
		t.Fatal(err)
	}
	rs := Check(context.Background(), CheckOptions{Agents: []agent.Name{agent.Codex}, ProjectDir: home, Home: home, NoVersion: true})
	if f := rs[0].Files; len(f) != 1 || f[0].Scope != "user" || !f[0].Wired {
		t.Errorf("files %+v, want the user's once", f)
	}
}
