package install

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luahook/luahook/agent"
	"github.com/luahook/luahook/internal/regfile"
)

func projectOptions(t *testing.T, name agent.Name) Options {
	return Options{Agent: name, ProjectDir: t.TempDir(), Command: "/usr/local/bin/luahook"}
}

func TestWriteBacksUpTheFileAndKeepsItsMode(t *testing.T) {
	o := projectOptions(t, agent.Claude)
	path := filepath.Join(o.ProjectDir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := []byte(existing[agent.Claude])
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != path || c.UpToDate() {
		t.Fatalf("plan: path %s, up to date %v", c.Path, c.UpToDate())
	}
	backup, err := c.Write()
	if err != nil {
		t.Fatal(err)
	}
	if backup != path+BackupSuffix {
		t.Errorf("backup %s", backup)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{path, c.New}, {backup, orig}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s holds:\n%s", f.path, got)
		}
		if fi, _ := os.Stat(f.path); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want the original's 0600", f.path, fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("the folder holds %d files, want the settings and the backup (no temporary file left)", len(entries))
	}
}

func TestASecondInstallWritesNothing(t *testing.T) {
	for _, name := range agent.Names() {
		t.Run(string(name), func(t *testing.T) {
			o := projectOptions(t, name)
			c, err := Plan(o)
			if err != nil {
				t.Fatal(err)
			}
			if backup, err := c.Write(); err != nil || backup != "" {
				t.Fatalf("first write: backup %q, err %v (a new file has no backup)", backup, err)
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(c.Path, old, old); err != nil {
				t.Fatal(err)
			}
			again, err := Plan(o)
			if err != nil {
				t.Fatal(err)
			}
			if !again.UpToDate() {
				t.Fatalf("the second plan changes the file:\n%s", again.New)
			}
			if backup, err := again.Write(); err != nil || backup != "" {
				t.Fatalf("second write: backup %q, err %v", backup, err)
			}
			fi, err := os.Stat(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.ModTime().Equal(old) {
				t.Errorf("the second run touched the file (mtime %v)", fi.ModTime())
			}
			if _, err := os.Stat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the second run wrote a backup: %v", err)
			}
		})
	}
}

func TestPlanRefusesALargeFileUnread(t *testing.T) {
	o := projectOptions(t, agent.Cursor)
	path := filepath.Join(o.ProjectDir, ".cursor", "hooks.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	big := append([]byte(`{"version": 1, "x": "`), bytes.Repeat([]byte("a"), MaxFileBytes)...)
	big = append(big, `"}`...)
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Plan(o)
	var tl *regfile.TooLargeError
	if !errors.As(err, &tl) || tl.Path != path {
		t.Fatalf("err = %v, want a *regfile.TooLargeError naming %s", err, path)
	}
}

func TestPlanFollowsASymbolicLink(t *testing.T) {
	// The user's own settings (a project's are written through no link).
	o := Options{Agent: agent.Gemini, Scope: User, Home: t.TempDir(), Command: "/usr/local/bin/luahook"}
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	if err := os.WriteFile(real, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(o.Home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(real); !bytes.Equal(got, c.New) {
		t.Errorf("the link's target was not written")
	}
}

func TestWriteLeavesAFileThatChangedSincePlan(t *testing.T) {
	o := projectOptions(t, agent.Codex)
	path := filepath.Join(o.ProjectDir, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{}"), 0o644)
	c, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`{"hooks": {}}`), 0o644)
	if _, err := c.Write(); err == nil {
		t.Fatal("wrote over a file that changed since it was read")
	}
	if got, _ := os.ReadFile(path); string(got) != `{"hooks": {}}` {
		t.Errorf("the file was changed: %s", got)
	}
	if _, err := os.Stat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup was written")
	}
}

func TestPathsPerAgentAndScope(t *testing.T) {
	env := map[string]string{"CODEX_HOME": "/ch", "COPILOT_HOME": "/cp"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name  agent.Name
		scope Scope
		want  string
	}{
		{agent.Claude, Project, "/p/.claude/settings.json"},
		{agent.Claude, User, "/h/.claude/settings.json"},
		{agent.Codex, Project, "/p/.codex/hooks.json"},
		{agent.Codex, User, "/ch/hooks.json"},
		{agent.Copilot, Project, "/p/.github/hooks/luahook.json"},
		{agent.Copilot, User, "/cp/hooks/luahook.json"},
		{agent.Cursor, Project, "/p/.cursor/hooks.json"},
		{agent.Cursor, User, "/h/.cursor/hooks.json"},
		{agent.Gemini, Project, "/p/.gemini/settings.json"},
		{agent.Gemini, User, "/h/.gemini/settings.json"},
	}
	for _, tt := range tests {
		o := Options{Agent: tt.name, Scope: tt.scope, ProjectDir: "/p", Home: "/h", Env: lookup}
		if got, _ := o.Path(); got != filepath.FromSlash(tt.want) {
			t.Errorf("%s %s: %s, want %s", tt.name, tt.scope, got, tt.want)
		}
	}
}
