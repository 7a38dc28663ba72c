package packs_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hooksd "github.com/luahook/luahook/hooks.d"
	"github.com/luahook/luahook/policytest"
)

// packNames returns the packs of this folder: every <name>.lua with a
// <name>_test.lua next to it.
func packNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.lua")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(f, "_test.lua")
		if _, err := os.Stat(name + ".lua"); err == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no packs with tests found")
	}
	return names
}

// hooksFolder returns a hooks folder holding the shipped lib modules and
// the given files, as `luahook add` would install a pack.
func hooksFolder(t testing.TB, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	lib, err := fs.Sub(hooksd.FS, "lib")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "lib"), lib); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPackSuitesPassThroughEveryAgentsNativePayload runs each pack's test
// suite unchanged as Claude Code and Gemini CLI send it (their event and
// tool names, decoded by their adapters), so that a pack that matched one
// agent's tool name, or read a field one adapter does not fill, fails here.
// (In luahook's own payload the suites run in
// TestEveryPackPassesItsOwnTestsAlone.)
func TestPackSuitesPassThroughEveryAgentsNativePayload(t *testing.T) {
	for _, name := range packNames(t) {
		dir := hooksFolder(t, name+".lua", name+"_test.lua")
		for _, agent := range []string{"claude", "gemini"} {
			t.Run(name+"/"+agent, func(t *testing.T) {
				var out bytes.Buffer
				sum, err := policytest.Run(context.Background(), policytest.Options{
					Paths: []string{dir},
					Agent: agent,
					Out:   &out,
				})
				if err != nil {
					t.Fatalf("%v\n%s", err, out.String())
				}
				if sum.Failed != 0 || sum.Passed < 25 {
					t.Errorf("%s under %s: %v, want every case to pass (and at least 25):\n%s", name, agent, sum, out.String())
				}
			})
		}
	}
}
