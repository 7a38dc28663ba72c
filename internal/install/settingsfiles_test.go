package install

import (
	"path/filepath"
	"testing"

	"github.com/luahook/luahook/agent"
)

// TestSettingsFilesAreTheFilesInstallWrites holds SettingsFiles to Path:
// every agent, both scopes, the project files relative to the project.
func TestSettingsFilesAreTheFilesInstallWrites(t *testing.T) {
	home, proj := "/home/dev", "/work/proj"
	env := func(name string) (string, bool) {
		if name == "CODEX_HOME" {
			return "/opt/codex", true
		}
		return "", false
	}
	files := SettingsFiles(home, env)
	if len(files) != 2*len(targets) {
		t.Fatalf("%d files, want %d", len(files), 2*len(targets))
	}
	for _, f := range files {
		o := Options{Agent: f.Agent, Scope: f.Scope, ProjectDir: proj, Home: home, Env: env}
		want, err := o.Path()
		if err != nil {
			t.Fatal(err)
		}
		got := f.Path
		if f.Scope == Project {
			if filepath.IsAbs(got) {
				t.Errorf("%s project file %s is absolute", f.Agent, got)
			}
			got = filepath.Join(proj, got)
		}
		if got != want {
			t.Errorf("%s %s: %s, want %s", f.Agent, f.Scope, got, want)
		}
	}
	for _, f := range files {
		if f.Agent == agent.Codex && f.Scope == User && f.Path != "/opt/codex/hooks.json" {
			t.Errorf("codex user file %s does not follow CODEX_HOME", f.Path)
		}
	}
	if n := len(SettingsFiles("", nil)); n != len(targets) {
		t.Errorf("without home: %d files, want %d", n, len(targets))
	}
}
