package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/editor"
	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/internal/safefile"
)

// The sample policy `luahook init` writes: the README's first example, and
// its test.
const (
	initPolicyName = "10-no-force-push.lua"
	initPolicy     = `-- A sample policy (luahook init): the agent may not force-push.
hook.register("PreToolUse", "@shell", function(input, rt)
  local cmd = input.toolInput.command or ""
  if re.match([[git\s+push\b.*\s(--force|-f)\b]], cmd) then
    return hook.deny("force-push is not allowed from the agent")
  end
end, { name = "no-force-push", stage = "validate", failure_policy = "closed", policy = true })
`
	initTestName = "10-no-force-push_test.lua"
	initTest     = `-- The sample policy's tests: each case fires a payload at a fresh engine.
test("a force push is denied", function()
  local r = fire("PreToolUse", { toolName = "bash", toolInput = { command = "git push --force origin main" } })
  expect.denied(r, "force-push")
end)

test("a plain push is not objected to", function()
  expect.no_objection(fire("PreToolUse", { toolName = "bash", toolInput = { command = "git push origin main" } }))
end)
`
	// initEditorDir holds the editor annotations, inside the folder: the
	// engine loads only the folder's top-level *.lua files.
	initEditorDir = ".luahook"
)

// luaGlobals are the globals hook and test files use, for the language
// server's diagnostics.
var luaGlobals = []string{"hook", "json", "log", "re", "store", "env", "fs", "test", "fire", "expect"}

func newInitCmd(g *globalOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a policy folder: the shared lib, a sample policy and its test, editor support",
		Long: `init makes a policy folder (DIR, default ./hooks.d): the lib modules the
shipped policies and the packs require (lib/: shell, paths, secrets, git, ...),
a sample policy (10-no-force-push.lua) and its test, and editor support
(.luarc.json pointing lua-language-server at luahook's annotations, which it
writes into .luahook/). Then it prints the next three commands: test it,
try it on a payload, wire it into an agent.

A folder that holds anything already is left alone: init writes into a new
or empty folder only. Files are readable by all and writable by you only,
as a hooks folder must be.`,
		Example: `  luahook init
  luahook init policies`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := projectHooks
			if len(args) == 1 {
				dir = args[0]
			}
			return runInit(s, dir)
		},
	}
}

// initFile is one file init writes, by its path in the folder.
type initFile struct {
	path string
	data []byte
}

func runInit(s *streams, dir string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s holds files already: init writes into a new or empty folder only (add packs with: luahook add --dir %s PACK)", dir, dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, err)
	}
	files, err := initFiles()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	scope := safefile.Scope{Dir: dir, What: "the new policy folder"}
	for _, f := range files {
		d, err := safefile.OpenDir(scope, filepath.Dir(filepath.FromSlash(f.path)), 0o755)
		if err != nil {
			return err
		}
		err = d.WriteFile(filepath.Base(f.path), f.data, 0o644)
		d.Close()
		if err != nil {
			return err
		}
	}
	libs := 0
	for _, f := range files {
		if strings.HasPrefix(f.path, "lib/") {
			libs++
		}
	}
	w := s.out
	fmt.Fprintf(w, "created %s:\n", dir)
	fmt.Fprintf(w, "  %s  a sample policy: the agent may not force-push\n", filepath.Join(dir, initPolicyName))
	fmt.Fprintf(w, "  %s  its tests\n", filepath.Join(dir, initTestName))
	fmt.Fprintf(w, "  %s  %d modules your policies can require (shell, paths, secrets, git, ...)\n", filepath.Join(dir, "lib")+string(filepath.Separator), libs)
	fmt.Fprintf(w, "  %s  editor support (lua-language-server)\n", filepath.Join(dir, ".luarc.json"))
	fmt.Fprintln(w, "next:")
	fmt.Fprintf(w, "  luahook test %s\n", dir)
	fmt.Fprintf(w, "  luahook --dir %s explain PreToolUse --tool bash --input '{\"toolInput\":{\"command\":\"git push -f\"}}'\n", dir)
	fmt.Fprintln(w, "  luahook install claude    (or codex, copilot, cursor, gemini; then luahook trust, once you read the files)")
	if filepath.Clean(dir) != projectHooks {
		fmt.Fprintf(w, "an agent's hooks run the project's ./%s (or the folder luahook.toml's hooks_dir names)\n", projectHooks)
	}
	return nil
}

// initFiles returns every file init writes, the lib's in a stable order.
func initFiles() ([]initFile, error) {
	var files []initFile
	err := fs.WalkDir(hooksd.FS, "lib", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(hooksd.FS, p)
		files = append(files, initFile{p, data})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("the embedded lib: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	stubs, err := fs.ReadDir(editor.FS, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range stubs {
		data, err := fs.ReadFile(editor.FS, e.Name())
		if err != nil {
			return nil, err
		}
		files = append(files, initFile{path.Join(initEditorDir, e.Name()), data})
	}
	luarc, err := json.MarshalIndent(map[string]any{
		"$schema":             "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
		"runtime.version":     "Lua 5.1",
		"workspace.library":   []string{initEditorDir},
		"diagnostics.globals": luaGlobals,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	files = append(files, initFile{".luarc.json", append(luarc, '\n')},
		initFile{initPolicyName, []byte(initPolicy)}, initFile{initTestName, []byte(initTest)})
	return files, nil
}
