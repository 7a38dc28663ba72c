package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/internal/config"
	"github.com/luahook/luahook/internal/packs"
)

// shippedPack returns the library's file of pack name.
func shippedPack(t *testing.T, name string) []byte {
	t.Helper()
	src, err := packs.FS.ReadFile(name + ".lua")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// olderCopy returns pack name as an older luahook wrote it (its settings a
// plain table, local SETTINGS = { ... }), with the lines of its table
// changed (pairs of was, to) as an operator who edited them would.
func olderCopy(t *testing.T, name string, pairs ...string) []byte {
	t.Helper()
	s := string(shippedPack(t, name))
	open := `local SETTINGS = hook.settings("` + name + `", {` + "\n"
	i := strings.Index(s, open)
	j := strings.Index(s[i:], "\n})\n")
	if i < 0 || j < 0 {
		t.Fatalf("%s.lua: no hook.settings table", name)
	}
	s = s[:i] + "local SETTINGS = {\n" + s[i+len(open):i+j] + "\n}\n" + s[i+j+len("\n})\n"):]
	for k := 0; k+1 < len(pairs); k += 2 {
		if n := strings.Count(s, pairs[k]); n != 1 {
			t.Fatalf("%s.lua holds %q %d times, want once", name, pairs[k], n)
		}
		s = strings.Replace(s, pairs[k], pairs[k+1], 1)
	}
	return []byte(s)
}

// upgradeRig is a hooks folder holding the git pack as an older luahook
// wrote it, with its settings edited, and a config next to it.
type upgradeRig struct {
	dir, cfg, old string
}

func newUpgradeRig(t *testing.T, cfgText string) upgradeRig {
	t.Helper()
	root := t.TempDir()
	r := upgradeRig{dir: filepath.Join(root, "hooks.d"), cfg: filepath.Join(root, "luahook.toml")}
	var out bytes.Buffer
	if err := addPacks(&streams{out: &out, err: &out}, r.dir, []string{"git"}, addMode{}); err != nil {
		t.Fatal(err)
	}
	r.old = string(olderCopy(t, "git",
		`protected_branches = { "main", "master" },`, `protected_branches = { "main", "master", "release" },`,
		`discard = "deny",`, `discard = "ask",`))
	if err := os.WriteFile(filepath.Join(r.dir, "git.lua"), []byte(r.old), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfgText != "" {
		if err := os.WriteFile(r.cfg, []byte(cfgText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// add runs luahook add with mode on the rig's folder and returns its
// output, errors aside.
func (r upgradeRig) add(mode addMode, names ...string) (stdout, stderr string, err error) {
	var out, errs bytes.Buffer
	err = addPacks(&streams{out: &out, err: &errs}, r.dir, names, mode)
	return out.String(), errs.String(), err
}

func (r upgradeRig) gitFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "git.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// verdicts fires shell commands at an engine on the rig (with its config
// when there is one) and returns each verdict.
func (r upgradeRig) verdicts(t *testing.T, commands []string) []string {
	t.Helper()
	opts := engine.Options{Dir: r.dir, NoWatch: true, NoSelfProtect: true}
	if _, err := os.Stat(r.cfg); err == nil {
		opts.ConfigPath = r.cfg
	}
	e, err := engine.Open(context.Background(), opts)
	if err == nil {
		err = e.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var out []string
	for _, c := range commands {
		raw, _ := json.Marshal(map[string]string{"command": c})
		res := e.Runner().Fire(context.Background(), &luahook.Input{Event: luahook.PreToolUse, ToolName: "Bash",
			ToolCapabilities: []string{"shell"}, ToolInput: raw, Cwd: "/home/dev/project", SessionID: "s"})
		v := "run"
		if res.Denied() {
			v = "deny"
		} else if res.Asked() {
			v = "ask"
		}
		out = append(out, c+": "+v)
	}
	return out
}

var upgradeCommands = []string{
	"git push --force-with-lease origin release", // protected only as edited
	"git push --force-with-lease origin main",
	"git push --force-with-lease origin feature",
	"git reset --hard HEAD~1", // asked as edited, denied by default
	"git status",
}

// TestAddUpgradeKeepsTheSettingsChangedInAnOlderCopy: --upgrade of a pack
// an older luahook wrote, whose SETTINGS table was edited, moves the
// values that differ from the defaults into the config's [packs.git]
// (appended; the rest of the file as it was), replaces the code with the
// shipped one, and the pack decides as it did; a second --upgrade finds
// it up to date.
func TestAddUpgradeKeepsTheSettingsChangedInAnOlderCopy(t *testing.T) {
	const cfgText = "# my config\nhooks_dir = \"hooks.d\"\n\n[runner]\non_load_error = \"deny\"\n"
	r := newUpgradeRig(t, cfgText)
	before := r.verdicts(t, upgradeCommands)
	if before[0] != upgradeCommands[0]+": deny" || before[3] != upgradeCommands[3]+": ask" {
		t.Fatalf("the edited copy does not decide as edited: %v", before)
	}
	stdout, stderr, err := r.add(addMode{upgrade: true, config: r.cfg}, "git")
	if err != nil {
		t.Fatalf("add --upgrade: %v\n%s%s", err, stdout, stderr)
	}
	for _, want := range []string{"kept      the settings changed in " + filepath.Join(r.dir, "git.lua") + ", in [packs.git] of " + r.cfg,
		`protected_branches = ["main", "master", "release"]`, `discard = "ask"`, "replaced  " + filepath.Join(r.dir, "git.lua")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("add --upgrade said\n%s\nwant %q", stdout, want)
		}
	}
	if r.gitFile(t) != string(shippedPack(t, "git")) {
		t.Error("git.lua is not the shipped version after --upgrade")
	}
	text, err := os.ReadFile(r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := cfgText + "\n[packs.git]\nprotected_branches = [\"main\", \"master\", \"release\"]\ndiscard = \"ask\"\n"; string(text) != want {
		t.Errorf("the config is now\n%s\nwant\n%s", text, want)
	}
	if after := r.verdicts(t, upgradeCommands); !reflect.DeepEqual(after, before) {
		t.Errorf("after --upgrade the pack decides\n  %s\nwas\n  %s", strings.Join(after, "\n  "), strings.Join(before, "\n  "))
	}
	stdout, _, err = r.add(addMode{upgrade: true, config: r.cfg}, "git")
	if err != nil || !strings.Contains(stdout, "unchanged git (up to date") {
		t.Errorf("a second --upgrade: %v\n%s", err, stdout)
	}
}

// TestAddUpgradeAddsToTheConfigsOwnPackTable: a config that has a
// [packs.git] table gets the changed settings it lacks at the top of that
// table; those it already says the same way are not written twice.
func TestAddUpgradeAddsToTheConfigsOwnPackTable(t *testing.T) {
	r := newUpgradeRig(t, "[packs.git] # mine\nprotected_branches = [\"main\", \"master\", \"release\"]\n\n[runner]\nself_protect = true\n")
	before := r.verdicts(t, upgradeCommands)
	if _, _, err := r.add(addMode{upgrade: true, config: r.cfg}, "git"); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(r.cfg)
	if want := "[packs.git] # mine\ndiscard = \"ask\"\nprotected_branches = [\"main\", \"master\", \"release\"]\n\n[runner]\nself_protect = true\n"; string(text) != want {
		t.Errorf("the config is now\n%s\nwant\n%s", text, want)
	}
	if after := r.verdicts(t, upgradeCommands); !reflect.DeepEqual(after, before) {
		t.Errorf("after --upgrade the pack decides %v, was %v", after, before)
	}
}

// TestAddUpgradeRefusesWhatItCannotKeep: when the settings changed in the
// copy cannot be kept safely (no config, a JSON config, a config that says
// otherwise, a key the pack no longer has, a table it cannot read) the
// pack is not written, nor the config, and the error says what to do: the
// lines to add, or what disagrees.
func TestAddUpgradeRefusesWhatItCannotKeep(t *testing.T) {
	for _, c := range []struct {
		name, cfgFile, cfgText string
		copy                   func(old string) string
		want                   []string
	}{
		{"no config", "", "", nil, []string{"settings changed in it are not kept: no config file loads this hooks folder (name it with --config); add to the config:\n[packs.git]\nprotected_branches = [\"main\", \"master\", \"release\"]\ndiscard = \"ask\"\nand run add --upgrade again"}},
		{"a JSON config", "luahook.json", "{\"hooksDir\": \"hooks.d\"}\n", nil, []string{"luahook.json is JSON, which add does not edit", `"discard": "ask"`}},
		{"a config that says otherwise", "luahook.toml", "[packs.git]\ndiscard = \"deny\"\n", nil,
			[]string{`the copy and the config's [packs.git] disagree: discard is "ask" in the copy, "deny" in the config; settle which you want, in the config, then pass --force`}},
		{"a broken config", "luahook.toml", "[packs.git]\ndiscrd = \"ask\"\n", nil,
			[]string{"the config has problems to fix first:", "packs.git.discrd: unknown key; did you mean discard?"}},
		{"a key the pack no longer has", "luahook.toml", "", func(old string) string {
			return strings.Replace(old, "local SETTINGS = {\n", "local SETTINGS = {\n  legacy = 1,\n", 1)
		}, []string{"legacy (line ", ") is no longer a setting of the pack; change the copy, or pass --force to replace it as shipped"}},
		{"a table it cannot read", "luahook.toml", "", func(old string) string {
			return strings.Replace(old, `discard = "ask",`, `discard = os.getenv("X"),`, 1)
		}, []string{"cannot read its settings table: line ", "move the settings you changed into the config's [packs.git] by hand, then pass --force"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newUpgradeRig(t, "")
			if c.copy != nil {
				r.old = c.copy(r.old)
				os.WriteFile(filepath.Join(r.dir, "git.lua"), []byte(r.old), 0o644)
			}
			mode := addMode{upgrade: true}
			if c.cfgFile != "" {
				mode.config = filepath.Join(filepath.Dir(r.cfg), c.cfgFile)
				if err := os.WriteFile(mode.config, []byte(c.cfgText), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := r.add(mode, "git")
			if err == nil {
				t.Fatal("add --upgrade wrote the pack")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant %q", err, w)
				}
			}
			if r.gitFile(t) != r.old {
				t.Error("git.lua was changed")
			}
			if mode.config != "" {
				if b, _ := os.ReadFile(mode.config); string(b) != c.cfgText {
					t.Errorf("the config was changed:\n%s", b)
				}
			}
		})
	}
}

// TestAddUpgradeOfAnOlderCopyAsShippedLeavesTheConfigAlone: an older copy
// whose settings are the defaults is replaced; the config is not touched.
func TestAddUpgradeOfAnOlderCopyAsShippedLeavesTheConfigAlone(t *testing.T) {
	r := newUpgradeRig(t, "hooks_dir = \"hooks.d\"\n")
	os.WriteFile(filepath.Join(r.dir, "git.lua"), olderCopy(t, "git"), 0o644)
	stdout, _, err := r.add(addMode{upgrade: true, config: r.cfg}, "git")
	if err != nil || strings.Contains(stdout, "kept") || !strings.Contains(stdout, "replaced") {
		t.Errorf("add --upgrade: %v\n%s", err, stdout)
	}
	if b, _ := os.ReadFile(r.cfg); string(b) != "hooks_dir = \"hooks.d\"\n" {
		t.Errorf("the config was changed:\n%s", b)
	}
}

// TestAddForceWarnsOfTheSettingsItDiscards: --force replaces an edited
// older copy as shipped (its settings are then the defaults), and says on
// stderr which changed settings that discards.
func TestAddForceWarnsOfTheSettingsItDiscards(t *testing.T) {
	r := newUpgradeRig(t, "")
	_, stderr, err := r.add(addMode{force: true}, "git")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: " + filepath.Join(r.dir, "git.lua") + ": replacing it discards the settings changed in it (--upgrade keeps them in the config's [packs.git]):",
		`  protected_branches = ["main", "master", "release"]`, `  discard = "ask"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr\n%s\nwant %q", stderr, want)
		}
	}
	if r.gitFile(t) != string(shippedPack(t, "git")) {
		t.Error("git.lua is not the shipped version after --force")
	}
	cfg, err := config.Parse("x.toml", nil)
	if err != nil || cfg.Packs != nil {
		t.Fatalf("an empty config: %v, %v", cfg.Packs, err)
	}
}
