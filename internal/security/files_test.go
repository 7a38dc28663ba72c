package security

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luahook/luahook/engine"
)

const denyAll = `hook.register("PreToolUse", "*", function() return hook.deny("policy") end)`

func TestLooseHookFilesAndFoldersAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		chmod func(dir string) string // returns the path it loosened
		want  string
	}{
		{"file writable by group", func(dir string) string { return chmod(t, filepath.Join(dir, "deny.lua"), 0o664) }, "mode -rw-rw-r-- is writable by group"},
		{"file writable by others", func(dir string) string { return chmod(t, filepath.Join(dir, "deny.lua"), 0o646) }, "mode -rw-r--rw- is writable by others"},
		{"file writable by everyone", func(dir string) string { return chmod(t, filepath.Join(dir, "deny.lua"), 0o666) }, "mode -rw-rw-rw- is writable by group and others"},
		{"folder writable by group", func(dir string) string { return chmod(t, dir, 0o775) }, "mode drwxrwxr-x is writable by group"},
		{"world-writable sticky folder", func(dir string) string { return chmod(t, dir, 0o1777|os.ModeSticky) }, "is writable by group and others"},
		{"lib folder writable by others", func(dir string) string {
			lib := filepath.Join(dir, "lib")
			os.Mkdir(lib, 0o755)
			return chmod(t, lib, 0o757)
		}, "mode drwxr-xrwx is writable by others"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, map[string]string{"deny.lua": denyAll})
			loose := tt.chmod(dir)
			e := open(t, engine.Options{Dir: dir})
			var pe *engine.PermissionError
			if err := e.Err(); !errors.As(err, &pe) || pe.Path != loose || !strings.Contains(err.Error(), tt.want) ||
				!strings.Contains(err.Error(), "chmod go-w "+loose) || !strings.Contains(err.Error(), "allow_loose_permissions") {
				t.Fatalf("Err() = %v; want a *PermissionError for %s saying %q, the fix and the switch", err, loose, tt.want)
			}
			if res := pre(e, "bash", `{}`); res.Denied() {
				t.Errorf("the refused file's hook ran: %q", res.Reason)
			}
			// The switch loads it, from the option or from the config.
			for _, opts := range []engine.Options{
				{Dir: dir, AllowLoosePermissions: true},
				{Dir: dir, ConfigPath: writeConfig(t, dir, "[lua]\nallow_loose_permissions = true\n")},
			} {
				e := open(t, opts)
				if err := e.Err(); err != nil {
					t.Errorf("with the switch: %v", err)
				}
				if res := pre(e, "bash", `{}`); !res.Denied() {
					t.Errorf("with the switch the hook did not run")
				}
			}
		})
	}
}

func TestLooseLibModulesAreRefused(t *testing.T) {
	dir := hooksDir(t, map[string]string{
		"deny.lua":       `local m = require("policy")` + "\n" + denyAll,
		"lib/policy.lua": `return {}`,
	})
	lib := chmod(t, filepath.Join(dir, "lib", "policy.lua"), 0o666)
	e := open(t, engine.Options{Dir: dir})
	var pe *engine.PermissionError
	if err := e.Err(); !errors.As(err, &pe) || pe.Path != lib || !strings.Contains(err.Error(), `require "policy"`) {
		t.Errorf("Err() = %v; want a *PermissionError for %s", err, lib)
	}
	if res := pre(e, "bash", `{}`); res.Denied() {
		t.Errorf("the file requiring a refused module loaded")
	}
	if e := open(t, engine.Options{Dir: dir, AllowLoosePermissions: true}); e.Err() != nil {
		t.Errorf("with the switch: %v", e.Err())
	}
}

func TestARefusedEditKeepsThePreviousVersionLive(t *testing.T) {
	dir := hooksDir(t, map[string]string{"deny.lua": denyAll})
	e := open(t, engine.Options{Dir: dir})
	path := filepath.Join(dir, "deny.lua")
	if err := os.WriteFile(path, []byte(`hook.register("PreToolUse", "*", function() end)`), 0o644); err != nil {
		t.Fatal(err)
	}
	chmod(t, path, 0o666)
	if err := e.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), "writable by group and others") {
		t.Errorf("Reload: %v; want the file refused", err)
	}
	if res := pre(e, "bash", `{}`); !res.Denied() {
		t.Errorf("the previous version of the file is no longer live")
	}
	chmod(t, path, 0o644)
	if err := e.Reload(t.Context()); err != nil {
		t.Errorf("Reload after chmod go-w: %v", err)
	}
	if res := pre(e, "bash", `{}`); res.Denied() {
		t.Errorf("the edit was not loaded once its mode was fixed")
	}
}

func TestSymlinksOutOfTheHooksFolderAreRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.lua")
	writeFile(t, outside, denyAll)
	tests := []struct {
		name, target string
		refused      bool
	}{
		{"link to a file outside", outside, true},
		{"relative link climbing out", "../" + filepath.Base(filepath.Dir(outside)) + "/elsewhere.lua", true},
		{"link to a file in a sub-folder", "variants/deny.lua", false},
		{"link to a sibling", "real.lua.off", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := hooksDir(t, map[string]string{"variants/deny.lua": denyAll, "real.lua.off": denyAll})
			target := tt.target
			if strings.HasPrefix(target, "../") {
				// Climb from the hooks folder to the outside file's folder.
				rel, err := filepath.Rel(dir, outside)
				if err != nil {
					t.Fatal(err)
				}
				target = rel
			}
			link := filepath.Join(dir, "linked.lua")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			e := open(t, engine.Options{Dir: dir, AllowLoosePermissions: true})
			var se *engine.SymlinkError
			err := e.Err()
			if tt.refused {
				if !errors.As(err, &se) || se.Path != link || !strings.Contains(err.Error(), "outside the hooks folder") {
					t.Errorf("Err() = %v; want a *SymlinkError for %s", err, link)
				}
				if res := pre(e, "bash", `{}`); res.Denied() {
					t.Errorf("the hook of a link outside the folder ran")
				}
			} else {
				if err != nil {
					t.Errorf("Err() = %v; a link inside the folder is fine", err)
				}
				if res := pre(e, "bash", `{}`); !res.Denied() {
					t.Errorf("the linked file's hook did not run")
				}
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}
